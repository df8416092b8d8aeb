// The filter builder's columns for a Metrics v2 query (a widget's, a monitor's): the filter columns
// of each view (the dimensions of crates/reads/src/metrics/views/{mod,v2}.rs, which check the query
// on save; the three score views share theirs). Month and day buckets are left out (a filter on them
// means little over a window of minutes), and so is what the builder's rows cannot express (`null`
// tests, `matches`, an options list on a text column): such filters are edited as JSON.

import { fromApiFilter, LEVELS, OBSERVATION_TYPES, toApiFilter, type ApiFilter, type FilterColumn, type ViewFilter } from "../observations/filters";

/** A condition of the Metrics filter JSON as stored (a widget's or a monitor's). */
export interface MetricsFilter {
  column: string;
  operator: string;
  type: string;
  value?: unknown;
  key?: string;
}

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

/** The columns a query over `view` filters on. */
export function filterColumnsOf(view: string): readonly FilterColumn[] {
  return view === "observations" ? OBSERVATION_COLUMNS : SCORE_COLUMNS;
}

/** A filters field's state: the builder's rows, or the JSON instead of them (`null` while the
 * builder is used). */
export interface FiltersState {
  filters: ViewFilter[];
  filtersJson: string | null;
}

/** The field's state for stored filters: the builder when it can show them all, JSON otherwise. */
export function filtersState(filters: readonly MetricsFilter[], view: string): FiltersState {
  const rows = builderRows(filters, view);
  return rows ? { filters: rows, filtersJson: null } : { filters: [], filtersJson: JSON.stringify(filters, null, 2) };
}

/** The field's filters to send: the JSON's or the rows', or what is wrong (the JSON's shape, the
 * first incomplete row, too many). */
export function stateFilters(state: FiltersState, view: string, max: number): MetricsFilter[] | string {
  const filters = state.filtersJson !== null ? parseFilters(state.filtersJson) : rowFilters(state.filters, view);
  if (typeof filters === "number") return `Filter ${filters} is not complete: give it a value`;
  if (typeof filters !== "string" && filters.length > max) return `At most ${max} filters`;
  return filters;
}

/** The builder's rows for stored filters, or `null` when any of them is beyond the builder. */
export function builderRows(filters: readonly MetricsFilter[], view: string): ViewFilter[] | null {
  const rows = filters.map((f) => fromApiFilter(f as ApiFilter, filterColumnsOf(view)));
  return rows.every((r): r is ViewFilter => r !== null) ? rows : null;
}

/** The filters of the builder's rows, or the 1-based number of the first row that is not complete. */
export function rowFilters(rows: readonly ViewFilter[], view: string): ApiFilter[] | number {
  const filters: ApiFilter[] = [];
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

/** Typed filter JSON as a list of filters, or what is wrong with it. */
export function parseFilters(json: string): MetricsFilter[] | string {
  try {
    const parsed: unknown = JSON.parse(json.trim() || "[]");
    if (Array.isArray(parsed) && parsed.every((f) => f && typeof f === "object" && !Array.isArray(f))) return parsed as MetricsFilter[];
  } catch {
    // Said below, as for any other shape.
  }
  return "Filters are a JSON list of {column, operator, value, type}";
}
