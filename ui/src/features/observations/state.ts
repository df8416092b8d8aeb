// What the Observations view shows — filters, columns, search, time range — and how it lives in the
// URL, so a view can be shared by its address and kept by a saved view. Selection (`trace`,
// `observation`) and the applied saved view (`view`) are URL keys too, kept apart from the state.
//
// URL keys: `filter` (JSON of the filters), `cols` (visible columns in order, comma-separated),
// `q` (search), `in=io` (search input/output instead of names and ids), `order=asc` (oldest
// first), `range` (a preset) or `from`/`to` (ISO instants). Defaults are left out.

import { DEFAULT_RANGE, filterColumn, isPreset, type TimeRange, type ViewFilter } from "./filters";

/** Every column the table can show, in the default order. */
export const COLUMN_IDS = [
  "name",
  "type",
  "traceId",
  "startTime",
  "latency",
  "model",
  "tokens",
  "cost",
  "level",
  "userId",
  "sessionId",
  "scores",
] as const;
export type ColumnId = (typeof COLUMN_IDS)[number];

export function isColumnId(id: string): id is ColumnId {
  return (COLUMN_IDS as readonly string[]).includes(id);
}

/** What the search box looks at: names and ids, or the words of input and output. */
export type SearchIn = "ids" | "io";
/** By start time: newest first (the API's order) or oldest first. */
export type Order = "desc" | "asc";

export interface ViewState {
  filters: ViewFilter[];
  /** Visible columns, in order. */
  columns: ColumnId[];
  search: string;
  searchIn: SearchIn;
  order: Order;
  range: TimeRange;
}

export const DEFAULT_STATE: ViewState = {
  filters: [],
  columns: [...COLUMN_IDS],
  search: "",
  searchIn: "ids",
  order: "desc",
  range: DEFAULT_RANGE,
};

/** The URL keys the state owns; others (`trace`, `observation`, `view`) pass through. */
const STATE_KEYS = ["filter", "cols", "q", "in", "order", "range", "from", "to"] as const;

const cleanSearchIn = (raw: unknown): SearchIn => (raw === "io" ? "io" : "ids");
const cleanOrder = (raw: unknown): Order => (raw === "asc" ? "asc" : "desc");

/** At most this many filters are read from a URL or a saved view. */
export const MAX_FILTERS = 30;

function cleanFilter(raw: unknown): ViewFilter | null {
  if (!raw || typeof raw !== "object") return null;
  const { column, operator, value, key } = raw as Record<string, unknown>;
  if (typeof column !== "string" || typeof operator !== "string" || !filterColumn(column)) return null;
  const cleanValue =
    typeof value === "string"
      ? value
      : Array.isArray(value)
        ? value.filter((v): v is string => typeof v === "string")
        : typeof value === "number" || typeof value === "boolean"
          ? String(value)
          : "";
  return { column, operator, value: cleanValue, ...(typeof key === "string" ? { key } : {}) };
}

function cleanFilters(raw: unknown): ViewFilter[] {
  if (!Array.isArray(raw)) return [];
  return raw
    .slice(0, MAX_FILTERS)
    .map(cleanFilter)
    .filter((f): f is ViewFilter => f !== null);
}

function cleanColumns(raw: unknown): ColumnId[] {
  const ids = Array.isArray(raw) ? raw : typeof raw === "string" ? raw.split(",") : [];
  const seen = new Set<ColumnId>();
  for (const id of ids) if (typeof id === "string" && isColumnId(id)) seen.add(id);
  return seen.size ? [...seen] : [...COLUMN_IDS];
}

function cleanRange(raw: unknown): TimeRange {
  if (!raw || typeof raw !== "object") return DEFAULT_RANGE;
  const r = raw as Record<string, unknown>;
  if (typeof r.preset === "string") return isPreset(r.preset) ? { preset: r.preset } : DEFAULT_RANGE;
  const from = typeof r.from === "string" && !Number.isNaN(Date.parse(r.from)) ? r.from : undefined;
  const to = typeof r.to === "string" && !Number.isNaN(Date.parse(r.to)) ? r.to : undefined;
  return from || to ? { ...(from ? { from } : {}), ...(to ? { to } : {}) } : DEFAULT_RANGE;
}

function parseJson(text: string | null): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** The state a URL describes; anything unreadable falls back to the default. */
export function readViewState(params: URLSearchParams): ViewState {
  const preset = params.get("range");
  const range: TimeRange =
    params.has("from") || params.has("to")
      ? cleanRange({ from: params.get("from"), to: params.get("to") })
      : cleanRange(preset ? { preset } : null);
  return {
    filters: cleanFilters(parseJson(params.get("filter"))),
    columns: cleanColumns(params.get("cols")),
    search: (params.get("q") ?? "").slice(0, 200),
    searchIn: cleanSearchIn(params.get("in")),
    order: cleanOrder(params.get("order")),
    range,
  };
}

function sameColumns(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((id, i) => id === b[i]);
}

/** `base` with the state's keys replaced by `state` (defaults left out); other keys kept. */
export function writeViewState(state: ViewState, base: URLSearchParams = new URLSearchParams()): URLSearchParams {
  const params = new URLSearchParams(base);
  STATE_KEYS.forEach((key) => params.delete(key));
  if (state.filters.length) params.set("filter", JSON.stringify(state.filters));
  if (!sameColumns(state.columns, COLUMN_IDS)) params.set("cols", state.columns.join(","));
  if (state.search) params.set("q", state.search);
  if (state.searchIn === "io") params.set("in", "io");
  if (state.order === "asc") params.set("order", "asc");
  if ("preset" in state.range) {
    if (!("preset" in DEFAULT_RANGE) || state.range.preset !== DEFAULT_RANGE.preset) params.set("range", state.range.preset);
  } else {
    if (state.range.from) params.set("from", state.range.from);
    if (state.range.to) params.set("to", state.range.to);
  }
  return params;
}

/** The state from a saved view's JSON (which anyone with write access could have written). */
export function stateFromSaved(raw: unknown): ViewState {
  const r = raw && typeof raw === "object" ? (raw as Record<string, unknown>) : {};
  return {
    filters: cleanFilters(r.filters),
    columns: cleanColumns(r.columns),
    search: typeof r.search === "string" ? r.search.slice(0, 200) : "",
    searchIn: cleanSearchIn(r.searchIn),
    order: cleanOrder(r.order),
    range: cleanRange(r.range),
  };
}

/** Whether two states show the same (cleaned first, so the order of a filter's keys is no difference). */
export function sameState(a: ViewState, b: ViewState): boolean {
  return writeViewState(stateFromSaved(a)).toString() === writeViewState(stateFromSaved(b)).toString();
}
