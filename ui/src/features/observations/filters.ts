// The filters a person builds in the Observations view, and how each becomes a condition of the v2
// observations API's `filter` JSON (`[{type, column, operator, value, key?}]`, the columns of
// crates/reads/src/observations/mod.rs), and back. The time range becomes
// `fromStartTime`/`toStartTime`. Other filter JSON of the same shape (a widget's or a monitor's
// Metrics filters, an evaluation rule's filter) is built from its own list of columns.

/** How a column is filtered; decides the operators offered and the `type` sent. */
export type FilterKind = "text" | "options" | "number" | "metadata" | "io" | "bool" | "score" | "tags" | "list" | "null";

export interface FilterColumn {
  /** The API's column name. */
  id: string;
  label: string;
  kind: FilterKind;
  /** For `options`. */
  options?: readonly string[];
  /** This column's operators when they are not its kind's (an evaluation rule's metadata takes
   * `is set`, its booleans `<>`). */
  operators?: readonly string[];
}

export const OBSERVATION_TYPES = [
  "SPAN",
  "GENERATION",
  "EVENT",
  "AGENT",
  "TOOL",
  "CHAIN",
  "RETRIEVER",
  "EVALUATOR",
  "EMBEDDING",
  "GUARDRAIL",
] as const;
export const LEVELS = ["DEBUG", "DEFAULT", "WARNING", "ERROR"] as const;

export const FILTER_COLUMNS: readonly FilterColumn[] = [
  { id: "name", label: "Name", kind: "text" },
  { id: "type", label: "Type", kind: "options", options: OBSERVATION_TYPES },
  { id: "traceId", label: "Trace ID", kind: "text" },
  { id: "id", label: "Observation ID", kind: "text" },
  { id: "latency", label: "Latency (s)", kind: "number" },
  { id: "model", label: "Model", kind: "text" },
  { id: "totalTokens", label: "Tokens", kind: "number" },
  { id: "totalCost", label: "Cost ($)", kind: "number" },
  { id: "level", label: "Level", kind: "options", options: LEVELS },
  { id: "userId", label: "User ID", kind: "text" },
  { id: "sessionId", label: "Session ID", kind: "text" },
  { id: "environment", label: "Environment", kind: "text" },
  { id: "traceName", label: "Trace name", kind: "text" },
  { id: "statusMessage", label: "Status message", kind: "text" },
  { id: "version", label: "Version", kind: "text" },
  { id: "promptName", label: "Prompt name", kind: "text" },
  { id: "isRootObservation", label: "Root observation", kind: "bool" },
  { id: "metadata", label: "Metadata", kind: "metadata" },
  { id: "scores", label: "Score", kind: "score" },
  { id: "input", label: "Input", kind: "io" },
  { id: "output", label: "Output", kind: "io" },
];

/** The operators of each kind, as the API spells them. Input and output only take the two the
 * server can answer without scanning every value (`=`, `matches`). */
export const OPERATORS: Record<FilterKind, readonly string[]> = {
  text: ["=", "contains", "does not contain", "starts with", "ends with"],
  options: ["any of", "none of"],
  number: [">", ">=", "<", "<=", "="],
  metadata: ["=", "contains", "starts with"],
  io: ["matches", "="],
  bool: ["="],
  // `=` also takes a categorical or boolean score's text value (`good`, `True`).
  score: [">=", "<=", "=", ">", "<", "<>"],
  // An array column (Metrics' `tags`): the values typed comma-separated.
  tags: ["any of", "all of", "none of"],
  // A text column matched against a list of values typed comma-separated (`stringOptions`).
  list: ["any of", "none of"],
  // Whether the column has a value at all; no value is typed.
  null: ["is null", "is not null"],
};

/** The operators offered on a column. */
export function operatorsOf(column: FilterColumn): readonly string[] {
  return column.operators ?? OPERATORS[column.kind];
}

/** Operators that take no value (a metadata key there or not, a column empty or not). */
export const VALUELESS = ["is set", "is not set", "is null", "is not null"];

/** One filter as the view keeps it (and the URL and saved views store it). */
export interface ViewFilter {
  column: string;
  operator: string;
  /** Text; a number's digits; `true`/`false`; options as an array; tags comma-separated. */
  value: string | string[];
  /** Metadata key; the score name of a `scores` filter. */
  key?: string;
}

/** A condition of the API's `filter` JSON. */
export interface ApiFilter {
  type: string;
  column: string;
  operator: string;
  value: string | number | boolean | string[];
  key?: string;
}

export function filterColumn(id: string, columns: readonly FilterColumn[] = FILTER_COLUMNS): FilterColumn | undefined {
  return columns.find((c) => c.id === id);
}

/** A new filter on `column` with its first operator and an empty value. */
export function blankFilter(column: string, columns: readonly FilterColumn[] = FILTER_COLUMNS): ViewFilter {
  const found = filterColumn(column, columns);
  const kind = found?.kind ?? "text";
  const operator = (found ? operatorsOf(found) : OPERATORS.text)[0] ?? "=";
  if (kind === "options") return { column, operator, value: [] };
  if (kind === "bool") return { column, operator, value: "true" };
  if (kind === "metadata" || kind === "score") return { column, operator, value: "", key: "" };
  return { column, operator, value: "" };
}

/** The API condition of one filter, or `null` while it is incomplete (no value yet, a number that
 * is not one): such a filter is shown but not sent. */
export function toApiFilter(filter: ViewFilter, columns: readonly FilterColumn[] = FILTER_COLUMNS): ApiFilter | null {
  const column = filterColumn(filter.column, columns);
  if (!column || !operatorsOf(column).includes(filter.operator)) return null;
  const text = typeof filter.value === "string" ? filter.value : "";
  switch (column.kind) {
    case "options": {
      const values = Array.isArray(filter.value) ? filter.value.filter(Boolean) : text ? [text] : [];
      return values.length ? { type: "stringOptions", column: column.id, operator: filter.operator, value: values } : null;
    }
    case "number": {
      const value = Number(text.trim());
      return text.trim() !== "" && Number.isFinite(value)
        ? { type: "number", column: column.id, operator: filter.operator, value }
        : null;
    }
    case "bool":
      return { type: "boolean", column: column.id, operator: filter.operator, value: text !== "false" };
    case "metadata": {
      const key = filter.key?.trim() ?? "";
      const valueless = VALUELESS.includes(filter.operator);
      return key && (text || valueless) ? { type: "stringObject", column: "metadata", operator: filter.operator, key, value: valueless ? "" : text } : null;
    }
    case "null":
      return { type: "null", column: column.id, operator: filter.operator, value: "" };
    case "score": {
      // A number compares a numeric or boolean score's value; any other text is a categorical or
      // boolean value (`good`, `True`), which only `=` can match.
      const key = filter.key?.trim() ?? "";
      const raw = text.trim();
      if (!key || !raw) return null;
      const value = Number(raw);
      if (Number.isFinite(value)) return { type: "numberObject", column: "scores", operator: filter.operator, key, value };
      return filter.operator === "=" ? { type: "stringObject", column: "scores", operator: "=", key, value: raw } : null;
    }
    case "tags":
    case "list": {
      const values = text.split(",").map((v) => v.trim()).filter(Boolean);
      const type = column.kind === "tags" ? "arrayOptions" : "stringOptions";
      return values.length ? { type, column: column.id, operator: filter.operator, value: values } : null;
    }
    case "text":
    case "io":
      return text ? { type: "string", column: column.id, operator: filter.operator, value: text } : null;
  }
}

export function toApiFilters(filters: readonly ViewFilter[], columns: readonly FilterColumn[] = FILTER_COLUMNS): ApiFilter[] {
  return filters.map((f) => toApiFilter(f, columns)).filter((f): f is ApiFilter => f !== null);
}

const isStrings = (value: unknown): value is string[] => Array.isArray(value) && value.every((v) => typeof v === "string");

/** The builder's filter showing an API condition, or `null` when its rows cannot (a column not in
 * `columns`, or a type, operator or value they do not offer): the inverse of `toApiFilter`. A
 * single `=` on an options column reads as "any of" that one option, which means the same. */
export function fromApiFilter(api: ApiFilter, columns: readonly FilterColumn[] = FILTER_COLUMNS): ViewFilter | null {
  const column = filterColumn(api.column, columns);
  if (!column) return null;
  const { type, operator, value } = api;
  const offered = operatorsOf(column).includes(operator);
  const id = column.id;
  switch (column.kind) {
    case "options": {
      const known = (v: string) => column.options?.includes(v) ?? false;
      if (type === "string" && operator === "=" && typeof value === "string" && known(value)) return { column: id, operator: "any of", value: [value] };
      return type === "stringOptions" && offered && isStrings(value) && value.length > 0 && value.every(known) ? { column: id, operator, value: [...value] } : null;
    }
    case "tags":
    case "list": {
      const expected = column.kind === "tags" ? "arrayOptions" : "stringOptions";
      // An empty or comma-holding value would not read back the same from the typed text.
      const typeable = isStrings(value) && value.length > 0 && value.every((v) => v.trim() === v && v !== "" && !v.includes(","));
      return type === expected && offered && typeable ? { column: id, operator, value: value.join(", ") } : null;
    }
    case "null":
      return type === "null" && offered ? { column: id, operator, value: "" } : null;
    case "number":
      return type === "number" && offered && typeof value === "number" ? { column: id, operator, value: String(value) } : null;
    case "bool":
      return type === "boolean" && offered && typeof value === "boolean" ? { column: id, operator, value: String(value) } : null;
    case "metadata":
      if (type !== "stringObject" || !offered || !api.key) return null;
      if (VALUELESS.includes(operator)) return { column: id, operator, key: api.key, value: "" };
      return typeof value === "string" && value ? { column: id, operator, key: api.key, value } : null;
    case "score":
      if (!offered || !api.key) return null;
      if (type === "numberObject" && typeof value === "number") return { column: id, operator, key: api.key, value: String(value) };
      return type === "stringObject" && operator === "=" && typeof value === "string" && value ? { column: id, operator, key: api.key, value } : null;
    case "text":
    case "io":
      return type === "string" && offered && typeof value === "string" && value ? { column: id, operator, value } : null;
  }
}

/** A short text for a filter chip: `Level any of ERROR`, `metadata.region = eu`. */
export function describeFilter(filter: ViewFilter): string {
  const column = filterColumn(filter.column);
  const label =
    column?.kind === "metadata"
      ? `metadata.${filter.key ?? ""}`
      : column?.kind === "score"
        ? `score ${filter.key ?? ""}`
        : (column?.label ?? filter.column);
  const value = Array.isArray(filter.value) ? filter.value.join(", ") : filter.value;
  return `${label} ${filter.operator} ${value}`;
}

// --- time range --------------------------------------------------------------------------------

export const RANGE_PRESETS = [
  { id: "1h", label: "Last 1 hour", ms: 3_600_000 },
  { id: "24h", label: "Last 24 hours", ms: 86_400_000 },
  { id: "7d", label: "Last 7 days", ms: 7 * 86_400_000 },
  { id: "30d", label: "Last 30 days", ms: 30 * 86_400_000 },
  { id: "all", label: "All time", ms: null },
] as const;

export type RangePreset = (typeof RANGE_PRESETS)[number]["id"];

/** A preset relative to now, or a custom span (ISO instants; either end may be open). */
export type TimeRange = { preset: RangePreset } | { from?: string; to?: string };

export const DEFAULT_RANGE: TimeRange = { preset: "24h" };

export function isPreset(id: string): id is RangePreset {
  return RANGE_PRESETS.some((p) => p.id === id);
}

/** The API's `fromStartTime`/`toStartTime` for a range, as of `now`. */
export function rangeParams(range: TimeRange, now: number): { fromStartTime?: string; toStartTime?: string } {
  if ("preset" in range) {
    const ms = RANGE_PRESETS.find((p) => p.id === range.preset)?.ms ?? null;
    return ms === null ? {} : { fromStartTime: new Date(now - ms).toISOString() };
  }
  return {
    ...(range.from ? { fromStartTime: range.from } : {}),
    ...(range.to ? { toStartTime: range.to } : {}),
  };
}
