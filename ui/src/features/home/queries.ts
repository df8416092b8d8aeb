// The Metrics v2 queries behind the Home charts (crates/reads/src/metrics: view, metrics,
// dimensions, filters, time dimension), the rows they answer, and the Observations view each
// chart opens: the same time range, and the name, model or level the chart shows.

import { projectPath } from "../../app/routes";
import type { ProjectApi } from "../../api/public";
import type { TimeRange, ViewFilter } from "../observations/filters";
import { DEFAULT_STATE, writeViewState } from "../observations/state";
import { fillBuckets, parseBucket, type Granularity, type Point } from "../../components/charts/scale";

export type MetricRow = Record<string, unknown>;

export interface MetricsQuery {
  view: string;
  metrics: { measure: string; aggregation: string }[];
  dimensions?: { field: string }[];
  filters?: unknown[];
  timeDimension?: { granularity: string };
  orderBy?: { field: string; direction: "asc" | "desc" }[];
  config?: { row_limit?: number; bins?: number };
  fromTimestamp: string;
  toTimestamp: string;
}

export async function runMetrics(api: ProjectApi, query: MetricsQuery, signal?: AbortSignal): Promise<MetricRow[]> {
  const body = await api.get<{ data: MetricRow[] }>("v2/metrics", { query: JSON.stringify(query) }, signal);
  return body.data;
}

export const ROOTS = { type: "null", column: "parentObservationId", operator: "is null", value: "" };
export const ERRORS = { type: "stringOptions", column: "level", operator: "any of", value: ["ERROR"] };

interface Span {
  from: number;
  to: number;
  granularity: Granularity;
}

const iso = (t: number) => new Date(t).toISOString();

/** A count per time bucket of the observations view. */
export function countOverTime(span: Span, filters: unknown[] = []): MetricsQuery {
  return {
    view: "observations",
    metrics: [{ measure: "count", aggregation: "count" }],
    filters,
    timeDimension: { granularity: span.granularity },
    fromTimestamp: iso(span.from),
    toTimestamp: iso(span.to),
  };
}

/** Latency percentiles of the slowest names (by p95). */
export function latencyByName(span: Span): MetricsQuery {
  return {
    view: "observations",
    dimensions: [{ field: "name" }],
    metrics: ["p50", "p95", "p99"].map((aggregation) => ({ measure: "latency", aggregation })),
    orderBy: [{ field: "p95_latency", direction: "desc" }],
    config: { row_limit: 10 },
    fromTimestamp: iso(span.from),
    toTimestamp: iso(span.to),
  };
}

/** Cost and tokens of the costliest models. */
export function costByModel(span: Span): MetricsQuery {
  return {
    view: "observations",
    dimensions: [{ field: "providedModelName" }],
    metrics: [
      { measure: "totalCost", aggregation: "sum" },
      { measure: "totalTokens", aggregation: "sum" },
    ],
    filters: [{ type: "null", column: "providedModelName", operator: "is not null", value: "" }],
    orderBy: [{ field: "sum_totalCost", direction: "desc" }, { field: "sum_totalTokens", direction: "desc" }],
    config: { row_limit: 10 },
    fromTimestamp: iso(span.from),
    toTimestamp: iso(span.to),
  };
}

/** The average of each numeric score per time bucket. */
export function scoresOverTime(span: Span): MetricsQuery {
  return {
    view: "scores-numeric",
    dimensions: [{ field: "name" }],
    metrics: [{ measure: "value", aggregation: "avg" }],
    timeDimension: { granularity: span.granularity },
    fromTimestamp: iso(span.from),
    toTimestamp: iso(span.to),
  };
}

export const num = (v: unknown): number => (typeof v === "number" ? v : Number(v ?? 0)) || 0;

/** One series from time rows: `metric` per bucket, empty buckets as 0. */
export function toSeries(rows: readonly MetricRow[], metric: string, span: Span): Point[] {
  const points = rows.map((r) => ({ t: parseBucket(r.time_dimension), v: num(r[metric]) })).filter((p) => Number.isFinite(p.t));
  return fillBuckets(points, span.from, span.to, span.granularity);
}

/** Series per value of `dimension` (at most `limit`, the largest totals first). Empty buckets
 * stay out: an average of no scores is not 0. */
export function toSeriesBy(rows: readonly MetricRow[], dimension: string, metric: string, limit = 6): { name: string; points: Point[] }[] {
  const groups = new Map<string, Point[]>();
  for (const r of rows) {
    const name = String(r[dimension] ?? "");
    const t = parseBucket(r.time_dimension);
    if (!Number.isFinite(t)) continue;
    groups.set(name, [...(groups.get(name) ?? []), { t, v: num(r[metric]) }]);
  }
  return [...groups.entries()]
    .sort((a, b) => b[1].length - a[1].length)
    .slice(0, limit)
    .map(([name, points]) => ({ name, points: points.sort((a, b) => a.t - b.t) }));
}

/** The Observations view showing `filters` over `range`. */
export function observationsLink(projectId: string, range: TimeRange, filters: ViewFilter[] = []): string {
  const params = writeViewState({ ...DEFAULT_STATE, range, filters });
  const query = params.toString();
  return `${projectPath(projectId, "observations")}${query ? `?${query}` : ""}`;
}

export const rootsFilter: ViewFilter = { column: "isRootObservation", operator: "=", value: "true" };
export const errorsFilter: ViewFilter = { column: "level", operator: "any of", value: ["ERROR"] };
export const nameFilter = (name: string): ViewFilter => ({ column: "name", operator: "=", value: name });
export const modelFilter = (model: string): ViewFilter => ({ column: "model", operator: "=", value: model });
