// The Home dashboard's time range, in the URL as the Observations view keeps it (`range` = a
// preset, or `from`/`to` ISO instants), so a chart's link carries the same range over.

import { DEFAULT_RANGE, RANGE_PRESETS, isPreset, type TimeRange } from "../observations/filters";

export function readRange(params: URLSearchParams): TimeRange {
  const from = params.get("from");
  const to = params.get("to");
  const valid = (v: string | null) => (v && !Number.isNaN(Date.parse(v)) ? v : undefined);
  if (valid(from) || valid(to)) {
    return { ...(valid(from) ? { from: valid(from) } : {}), ...(valid(to) ? { to: valid(to) } : {}) };
  }
  const preset = params.get("range");
  return preset && isPreset(preset) ? { preset } : DEFAULT_RANGE;
}

export function writeRange(range: TimeRange, base: URLSearchParams): URLSearchParams {
  const params = new URLSearchParams(base);
  ["range", "from", "to"].forEach((k) => params.delete(k));
  if ("preset" in range) {
    if (!("preset" in DEFAULT_RANGE) || range.preset !== DEFAULT_RANGE.preset) params.set("range", range.preset);
  } else {
    if (range.from) params.set("from", range.from);
    if (range.to) params.set("to", range.to);
  }
  return params;
}

/** The earliest instant "all time" asks the metrics API for (it needs a start). */
export const ALL_TIME_FROM = Date.UTC(2000, 0, 1);

/** The instants a range covers as of `now`; `open` when it has no start (all time). */
export function resolveRange(range: TimeRange, now: number): { from: number; to: number; open: boolean } {
  if ("preset" in range) {
    const ms = RANGE_PRESETS.find((p) => p.id === range.preset)?.ms ?? null;
    return ms === null ? { from: ALL_TIME_FROM, to: now, open: true } : { from: now - ms, to: now, open: false };
  }
  const to = range.to ? Date.parse(range.to) : now;
  return range.from ? { from: Date.parse(range.from), to, open: false } : { from: ALL_TIME_FROM, to, open: true };
}
