// The filter builder's columns for a monitor: the Metrics v2 filter columns of each view (the
// dimensions of crates/reads/src/metrics/views/{mod,v2}.rs, which check a monitor's query on save).
// Month and day buckets are left out (a filter on them means little over a window of minutes), and
// so is what the builder's rows cannot express (`null` tests, `matches`, an options list on a text
// column): a monitor with such a filter is edited as JSON.

import { fromApiFilter, LEVELS, OBSERVATION_TYPES, toApiFilter, type ApiFilter, type FilterColumn, type ViewFilter } from "../observations/filters";
import type { MonitorFilter } from "./api";

const text = (id: string, label: string): FilterColumn => ({ id, label, kind: "text" });
const number = (id: string, label: string): FilterColumn => ({ id, label, kind: "number" });

const OBSERVATION_COLUMNS: readonly FilterColumn[] = [
  text("name", "Name"),
  { id: "type", label: "Type", kind: "options", options: OBSERVATION_TYPES },
  { id: "level", label: "Level", kind: "options", options: LEVELS },
  text("environment", "Environment"),
  text("providedModelName", "Model"),
  text("traceName", "Trace name"),
  { id: "tags", label: "Tags", kind: "tags" },
  text("version", "Version"),
  text("release", "Release"),
  text("traceRelease", "Trace release"),
  text("traceVersion", "Trace version"),
  text("promptName", "Prompt name"),
  number("promptVersion", "Prompt version"),
  text("userId", "User ID"),
  text("sessionId", "Session ID"),
  text("traceId", "Trace ID"),
  text("id", "Observation ID"),
  text("parentObservationId", "Parent observation ID"),
];

const SCORE_COLUMNS: readonly FilterColumn[] = [
  text("name", "Score name"),
  { id: "source", label: "Source", kind: "options", options: ["API", "ANNOTATION", "EVAL"] },
  text("environment", "Environment"),
  number("value", "Value"),
  text("stringValue", "Text value"),
  text("configId", "Config ID"),
  text("traceName", "Trace name"),
  { id: "tags", label: "Trace tags", kind: "tags" },
  text("traceRelease", "Trace release"),
  text("traceVersion", "Trace version"),
  text("observationName", "Observation name"),
  text("observationModelName", "Observation model"),
  text("observationPromptName", "Observation prompt name"),
  number("observationPromptVersion", "Observation prompt version"),
  text("userId", "User ID"),
  text("sessionId", "Session ID"),
  text("traceId", "Trace ID"),
  text("observationId", "Observation ID"),
  text("id", "Score ID"),
];

/** The columns a monitor over `view` filters on. */
export function filterColumnsOf(view: string): readonly FilterColumn[] {
  return view === "observations" ? OBSERVATION_COLUMNS : SCORE_COLUMNS;
}

/** The builder's rows for stored filters, or `null` when any of them is beyond the builder. */
export function builderRows(filters: readonly MonitorFilter[], view: string): ViewFilter[] | null {
  const rows = filters.map((f) => fromApiFilter(f as ApiFilter, filterColumnsOf(view)));
  return rows.every((r): r is ViewFilter => r !== null) ? rows : null;
}

/** The filters of the builder's rows, or the 1-based number of the first row that is not complete. */
export function rowFilters(rows: readonly ViewFilter[], view: string): MonitorFilter[] | number {
  const filters: MonitorFilter[] = [];
  for (const [i, row] of rows.entries()) {
    const filter = toApiFilter(row, filterColumnsOf(view));
    if (!filter) return i + 1;
    filters.push(filter);
  }
  return filters;
}

/** The rows that still mean the same after the view changes from `from` to `to` (the same column,
 * filtered the same way); the others go, as the new view has no such column. */
export function rowsForView(rows: readonly ViewFilter[], from: string, to: string): ViewFilter[] {
  const kind = (view: string, id: string) => filterColumnsOf(view).find((c) => c.id === id)?.kind;
  return rows.filter((row) => kind(to, row.column) !== undefined && kind(to, row.column) === kind(from, row.column));
}
