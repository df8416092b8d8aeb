// A time series as lines or stacked-free bars, in hand-written SVG: value ticks on the left, round
// UTC instants below, a tooltip with every series' value at the hovered bucket, and an empty state.
// Hand-written rather than a charting library: two small components cover every chart here, and
// the page chunks stay a few kilobytes instead of the 40–100 kB gzipped a library adds.

import { useMemo, useState } from "react";

import { formatNumber, formatTime, linear, niceTicks, timeStep, timeTicks, type Point } from "./scale";

export interface Series {
  name: string;
  points: Point[];
}

interface TimeChartProps {
  series: readonly Series[];
  from: number;
  to: number;
  kind?: "line" | "bar";
  /** How a value reads (tooltip and axis). */
  format?: (v: number) => string;
  label: string;
}

const W = 600;
const H = 180;
const PAD = { left: 44, right: 12, top: 10, bottom: 24 };

export function TimeChart({ series, from, to, kind = "line", format = formatNumber, label }: TimeChartProps) {
  const [hover, setHover] = useState<number | null>(null);
  const times = useMemo(() => [...new Set(series.flatMap((s) => s.points.map((p) => p.t)))].sort((a, b) => a - b), [series]);
  const values = series.flatMap((s) => s.points.map((p) => p.v));
  if (!values.length || values.every((v) => v === 0)) {
    return (
      <div className="chart chart--empty" role="img" aria-label={`${label}: no data in this range`}>
        No data in this range
      </div>
    );
  }
  // The x domain covers the range and any bucket that starts before it (a bucket's start).
  const x0 = Math.min(from, times[0] ?? from);
  const x1 = Math.max(to, times.at(-1) ?? to);
  const bucket = times.length > 1 ? Math.min(...times.slice(1).map((t, i) => t - (times[i] ?? t))) : (x1 - x0) / 20;
  const x = linear([x0, x1], [PAD.left, W - PAD.right]);
  const yTicks = niceTicks(Math.min(...values), Math.max(...values));
  const y = linear([yTicks[0] ?? 0, yTicks.at(-1) ?? 1], [H - PAD.bottom, PAD.top]);
  const xTicks = timeTicks(x0, x1, 5);
  const step = timeStep(x0, x1, 5);
  const barWidth = Math.max(1, ((x(x0 + bucket) - x(x0)) * 0.8) / Math.max(1, series.length));

  const onMove = (event: React.MouseEvent<SVGSVGElement>) => {
    const box = event.currentTarget.getBoundingClientRect();
    const at = x0 + ((((event.clientX - box.left) / box.width) * W - PAD.left) / (W - PAD.left - PAD.right)) * (x1 - x0);
    let best: number | null = null;
    for (const t of times) if (best === null || Math.abs(t - at) < Math.abs(best - at)) best = t;
    setHover(best);
  };

  return (
    <div className="chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={label} onMouseMove={onMove} onMouseLeave={() => setHover(null)}>
        {yTicks.map((v) => (
          <g key={v} className="chart__grid">
            <line x1={PAD.left} x2={W - PAD.right} y1={y(v)} y2={y(v)} />
            <text x={PAD.left - 6} y={y(v)} dy="0.32em" textAnchor="end">
              {format(v)}
            </text>
          </g>
        ))}
        {xTicks.map((t) => (
          <text key={t} className="chart__tick" x={x(t)} y={H - 6} textAnchor="middle">
            {formatTime(t, step)}
          </text>
        ))}
        {series.map((s, i) =>
          kind === "bar" ? (
            <g key={s.name} className={`chart__series chart__series--${i % 6}`}>
              {s.points.map((p) => (
                <rect key={p.t} x={x(p.t) + i * barWidth} y={Math.min(y(p.v), y(0))} width={barWidth} height={Math.abs(y(0) - y(p.v))} />
              ))}
            </g>
          ) : (
            <polyline
              key={s.name}
              className={`chart__line chart__series--${i % 6}`}
              points={s.points.map((p) => `${x(p.t)},${y(p.v)}`).join(" ")}
            />
          ),
        )}
        {hover !== null && <line className="chart__cursor" x1={x(hover)} x2={x(hover)} y1={PAD.top} y2={H - PAD.bottom} />}
      </svg>
      {hover !== null && (
        <div className="chart__tooltip" role="status" style={{ left: `${(x(hover) / W) * 100}%` }}>
          <div className="chart__tooltip-time">{new Date(hover).toISOString().replace("T", " ").slice(0, 16)} UTC</div>
          {series.map((s, i) => (
            <div key={s.name}>
              <span className={`chart__swatch chart__series--${i % 6}`} /> {s.name}: {format(s.points.find((p) => p.t === hover)?.v ?? 0)}
            </div>
          ))}
        </div>
      )}
      {series.length > 1 && <Legend names={series.map((s) => s.name)} />}
    </div>
  );
}

export function Legend({ names }: { names: readonly string[] }) {
  return (
    <ul className="chart__legend">
      {names.map((name, i) => (
        <li key={name}>
          <span className={`chart__swatch chart__series--${i % 6}`} /> {name}
        </li>
      ))}
    </ul>
  );
}
