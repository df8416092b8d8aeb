// The arithmetic of the charts: linear scales, "nice" value ticks (1, 2, 5 × 10ⁿ), time ticks on
// round UTC instants, the time buckets of a Metrics query and filling the empty ones, and compact
// number formats. Pure functions, so they are tested without a browser (scale.test.ts).

/** Maps a value of `domain` onto `range` (a degenerate domain maps to the range's start). */
export function linear(domain: readonly [number, number], range: readonly [number, number]): (v: number) => number {
  const [d0, d1] = domain;
  const [r0, r1] = range;
  const span = d1 - d0;
  return (v) => (span === 0 ? r0 : r0 + ((v - d0) / span) * (r1 - r0));
}

/** A round step (1, 2 or 5 × 10ⁿ) that cuts `span` into about `count` parts. */
export function niceStep(span: number, count: number): number {
  if (!(span > 0) || !Number.isFinite(span)) return 1;
  const raw = span / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(raw));
  const fraction = raw / power;
  const nice = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10;
  return nice * power;
}

/** Ticks from 0 (or below, for negative data) to a round value at or above `max`: the value axis.
 * The last tick is the axis' top, so bars and lines never leave the plot. */
export function niceTicks(min: number, max: number, count = 4): number[] {
  const lo = Math.min(0, min);
  const hi = Math.max(0, max);
  if (lo === hi) return [0, 1];
  const step = niceStep(hi - lo, count);
  const start = Math.floor(lo / step) * step;
  const end = Math.ceil(hi / step) * step;
  const ticks: number[] = [];
  // Rounded so 0.1 + 0.2 style drift does not print 0.30000000000000004.
  for (let v = start; v <= end + step / 2; v += step) ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const TIME_STEPS = [MINUTE, 5 * MINUTE, 15 * MINUTE, 30 * MINUTE, HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, DAY, 2 * DAY, 7 * DAY, 14 * DAY, 30 * DAY, 90 * DAY, 365 * DAY];

/** The time-axis step: the smallest round step that gives at most `count` ticks. */
export function timeStep(from: number, to: number, count = 5): number {
  const span = Math.max(0, to - from);
  return TIME_STEPS.find((s) => span / s <= count) ?? Math.ceil(span / count / DAY) * DAY;
}

/** Round UTC instants inside [from, to]. */
export function timeTicks(from: number, to: number, count = 5): number[] {
  if (!(to > from)) return [from];
  const step = timeStep(from, to, count);
  const ticks: number[] = [];
  for (let t = Math.ceil(from / step) * step; t <= to; t += step) ticks.push(t);
  return ticks;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** A tick's label: the time of day for steps under a day, else the date (UTC, as the buckets). */
export function formatTime(t: number, step: number): string {
  const d = new Date(t);
  const pad = (n: number) => String(n).padStart(2, "0");
  if (step < DAY) return `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}`;
}

/** 1234 → "1.23k", 0.000123 → "0.000123", 12.5 → "12.5". */
export function formatNumber(v: number): string {
  if (!Number.isFinite(v)) return "–";
  const abs = Math.abs(v);
  if (abs >= 1e9) return `${trim(v / 1e9)}B`;
  if (abs >= 1e6) return `${trim(v / 1e6)}M`;
  if (abs >= 1e3) return `${trim(v / 1e3)}k`;
  if (abs === 0 || abs >= 1) return trim(v);
  return String(Number(v.toPrecision(3)));
}

function trim(v: number): string {
  return String(Number(v.toFixed(Math.abs(v) >= 100 ? 0 : 2)));
}

export type Granularity = "minute" | "hour" | "day" | "week" | "month";

/** What the metrics API's `auto` granularity picks (crates/reads/src/metrics `bucket`). */
export function granularityFor(from: number, to: number): Granularity {
  const hours = Math.floor((to - from) / HOUR);
  if (hours <= 2) return "minute";
  if (hours <= 72) return "hour";
  if (hours <= 24 * 90) return "day";
  if (hours <= 24 * 365) return "week";
  return "month";
}

const FIXED: Partial<Record<Granularity, number>> = { minute: MINUTE, hour: HOUR, day: DAY };

/** The instant of a `time_dimension` value: ClickHouse answers `2024-01-01 10:00:00` in UTC. */
export function parseBucket(value: unknown): number {
  if (typeof value === "number") return value;
  if (typeof value !== "string") return Number.NaN;
  const iso = value.includes("T") ? value : value.replace(" ", "T");
  return Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(iso) ? iso : `${iso}Z`);
}

export interface Point {
  t: number;
  v: number;
}

/** Every bucket of [from, to) at a fixed granularity, the missing ones as 0 (a count of nothing
 * is 0, and a line should not bridge a gap). Weeks and months are not evenly long; their buckets
 * are kept as answered. */
export function fillBuckets(points: readonly Point[], from: number, to: number, granularity: Granularity): Point[] {
  const step = FIXED[granularity];
  const sorted = [...points].sort((a, b) => a.t - b.t);
  if (!step || !(to > from) || (to - from) / step > 2000) return sorted;
  const byTime = new Map(sorted.map((p) => [p.t, p.v]));
  const out: Point[] = [];
  for (let t = Math.floor(from / step) * step; t < to; t += step) out.push({ t, v: byTime.get(t) ?? 0 });
  return out;
}
