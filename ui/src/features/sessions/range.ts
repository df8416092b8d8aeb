// The sessions list's time range, as the URL holds it (`?range=24h`, or `?range=custom&from&to`),
// so a filtered list can be shared and survives a reload.

export type RangePreset = "1h" | "24h" | "7d" | "30d" | "all";
export type RangeChoice = RangePreset | "custom";

export const PRESETS: readonly { value: RangePreset; label: string; seconds: number | null }[] = [
  { value: "1h", label: "Last hour", seconds: 3_600 },
  { value: "24h", label: "Last 24 hours", seconds: 86_400 },
  { value: "7d", label: "Last 7 days", seconds: 7 * 86_400 },
  { value: "30d", label: "Last 30 days", seconds: 30 * 86_400 },
  { value: "all", label: "All time", seconds: null },
];

export const DEFAULT_RANGE: RangePreset = "7d";

export interface Range {
  choice: RangeChoice;
  /** `datetime-local` values (the reader's time), for `custom`. */
  from: string;
  to: string;
}

export function readRange(params: URLSearchParams): Range {
  const raw = params.get("range");
  const choice: RangeChoice =
    raw === "custom" || PRESETS.some((p) => p.value === raw) ? (raw as RangeChoice) : DEFAULT_RANGE;
  return { choice, from: params.get("from") ?? "", to: params.get("to") ?? "" };
}

/** The range as the API's `fromTimestamp` / `toTimestamp` (ISO 8601), at `now`. */
export function rangeQuery(range: Range, now: number = Date.now()): { fromTimestamp?: string; toTimestamp?: string } {
  if (range.choice === "custom") {
    const from = localToIso(range.from);
    const to = localToIso(range.to);
    return { ...(from ? { fromTimestamp: from } : {}), ...(to ? { toTimestamp: to } : {}) };
  }
  const seconds = PRESETS.find((p) => p.value === range.choice)?.seconds ?? null;
  return seconds === null ? {} : { fromTimestamp: new Date(now - seconds * 1000).toISOString() };
}

/** A `datetime-local` value read in the reader's time zone; undefined when empty or invalid. */
export function localToIso(local: string): string | undefined {
  if (!local) return undefined;
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** Why a custom range cannot be used, or null. */
export function rangeProblem(range: Range): string | null {
  if (range.choice !== "custom") return null;
  const from = localToIso(range.from);
  const to = localToIso(range.to);
  if (from && to && from > to) return "The start is after the end.";
  return null;
}
