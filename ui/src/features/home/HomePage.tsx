// Home at /project/{projectId}: the project at a glance from Metrics v2 — traces, observations and
// errors over time, latency percentiles by name, cost and tokens by model, scores over time — over
// one time range (in the URL) shared by every chart. Each chart opens the Observations view
// filtered to what it shows.

import { useMemo, useState, type ReactNode } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";

import { useProject } from "../../app/project";
import { Button } from "../../components/Button";
import { BarList } from "../../components/charts/BarList";
import { formatNumber, granularityFor } from "../../components/charts/scale";
import { TimeChart } from "../../components/charts/TimeChart";
import "../../components/charts/charts.css";
import { ErrorState, Loading } from "../../components/States";
import { useLoad } from "../../components/useLoad";
import { TimeRangePicker } from "../observations/TimeRangePicker";
import type { ViewFilter } from "../observations/filters";
import {
  ERRORS,
  ROOTS,
  costByModel,
  countOverTime,
  errorsFilter,
  latencyByName,
  modelFilter,
  nameFilter,
  num,
  observationsLink,
  rootsFilter,
  runMetrics,
  scoresOverTime,
  toSeries,
  toSeriesBy,
} from "./queries";
import { readRange, resolveRange, writeRange } from "./range";
import "./home.css";

const formatMs = (ms: number) => (ms >= 1000 ? `${formatNumber(ms / 1000)} s` : `${formatNumber(ms)} ms`);
const formatCost = (usd: number) => `$${usd >= 1 ? usd.toFixed(2) : formatNumber(usd)}`;

export default function HomePage() {
  const { project, api } = useProject();
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const range = readRange(params);
  const rangeKey = writeRange(range, new URLSearchParams()).toString();
  const [refresh, setRefresh] = useState(0);
  // "Now" is taken when the range is chosen (or refreshed), not on every render.
  const span = useMemo(() => {
    const resolved = resolveRange(range, Date.now());
    return { ...resolved, granularity: granularityFor(resolved.from, resolved.to) };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [rangeKey, refresh]);

  const loaded = useLoad(
    async (signal) => {
      const [traces, observations, errors, latency, cost, scores] = await Promise.all([
        runMetrics(api, countOverTime(span, [ROOTS]), signal),
        runMetrics(api, countOverTime(span), signal),
        runMetrics(api, countOverTime(span, [ERRORS]), signal),
        runMetrics(api, latencyByName(span), signal),
        runMetrics(api, costByModel(span), signal),
        runMetrics(api, scoresOverTime(span), signal),
      ]);
      return { traces, observations, errors, latency, cost, scores };
    },
    [api, span],
  );

  const link = (filters: ViewFilter[] = []) => observationsLink(project.id, range, filters);
  const data = loaded.data;
  // An open range starts at the first bucket with data, not at the API's earliest instant.
  const firstBucket = (points: { t: number }[]) => (span.open && points[0] ? points[0].t : span.from);
  const series = (rows: Parameters<typeof toSeries>[0]) => {
    const points = toSeries(rows, "count_count", span);
    return span.open ? points.filter((p, i) => p.v > 0 || points.slice(0, i).some((q) => q.v > 0)) : points;
  };

  return (
    <div className="page home">
      <div className="page__header">
        <div>
          <div className="page__eyebrow">{project.name}</div>
          <h1>Home</h1>
        </div>
        <div className="home__toolbar">
          <TimeRangePicker range={range} onChange={(next) => setParams(writeRange(next, params))} />
          <Button size="sm" onClick={() => setRefresh((n) => n + 1)} busy={loaded.loading && !!data}>
            Refresh
          </Button>
        </div>
      </div>
      {loaded.error !== undefined && !data ? (
        <ErrorState error={loaded.error} onRetry={loaded.reload} />
      ) : !data ? (
        <Loading label="Loading the dashboard…" />
      ) : (
        <div className="home__grid">
          {(
            [
              ["Traces", data.traces, [rootsFilter], "line"],
              ["Observations", data.observations, [], "line"],
              ["Errors", data.errors, [errorsFilter], "bar"],
            ] as const
          ).map(([title, rows, filters, kind]) => {
            const points = series(rows);
            const total = rows.reduce((sum, r) => sum + num(r.count_count), 0);
            return (
              <Card key={title} title={title} figure={formatNumber(total)} href={link([...filters])} linkLabel={`Open the ${title.toLowerCase()} in Observations`}>
                <Link to={link([...filters])} className="home-card__chart" aria-label={`${title} over time: open in Observations`}>
                  <TimeChart series={[{ name: title, points }]} from={firstBucket(points)} to={span.to} kind={kind} label={`${title} over time`} />
                </Link>
              </Card>
            );
          })}
          <Card title="Latency by name" href={link()} linkLabel="Open these observations in Observations" wide>
            <BarList
              label="Latency percentiles by name"
              metrics={["p50", "p95", "p99"]}
              rows={data.latency.map((r) => ({ label: String(r.name ?? ""), values: [num(r.p50_latency), num(r.p95_latency), num(r.p99_latency)] }))}
              format={formatMs}
              onOpen={(row) => void navigate(link([nameFilter(row.label)]))}
            />
          </Card>
          <Card title="Cost and tokens by model" href={link()} linkLabel="Open these observations in Observations" wide>
            <BarList
              label="Cost and tokens by model"
              metrics={["Cost", "Tokens"]}
              rows={data.cost.map((r) => ({ label: String(r.providedModelName ?? ""), values: [num(r.sum_totalCost), num(r.sum_totalTokens)] }))}
              format={(v, metric) => (metric === 0 ? formatCost(v) : formatNumber(v))}
              onOpen={(row) => void navigate(link([modelFilter(row.label)]))}
            />
          </Card>
          <Card title="Scores over time" href={link()} linkLabel="Open the scored observations in Observations" full>
            {(() => {
              const scored = toSeriesBy(data.scores, "name", "avg_value");
              const first = Math.min(...scored.flatMap((s) => s.points.map((p) => p.t)));
              return (
                <TimeChart series={scored} from={span.open && Number.isFinite(first) ? first : span.from} to={span.to} label="Average numeric score over time" />
              );
            })()}
          </Card>
        </div>
      )}
    </div>
  );
}

interface CardProps {
  title: string;
  figure?: string;
  href: string;
  linkLabel: string;
  wide?: boolean;
  full?: boolean;
  children: ReactNode;
}

function Card({ title, figure, href, linkLabel, wide, full, children }: CardProps) {
  return (
    <section className={`home-card${wide ? " home-card--wide" : ""}${full ? " home-card--full" : ""}`} aria-label={title}>
      <header className="home-card__header">
        <h2 className="home-card__title">
          <Link to={href} aria-label={linkLabel} title={linkLabel}>
            {title}
          </Link>
        </h2>
        {figure !== undefined && <span className="home-card__figure" aria-label={`${title} total`}>{figure}</span>}
      </header>
      {children}
    </section>
  );
}
