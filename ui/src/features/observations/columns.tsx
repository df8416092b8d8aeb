// The Observations table's columns: header, width and how a row's value is shown.

import type { Column } from "../../components/DataTable";
import type { ObservationRow, Score } from "./api";
import type { ColumnId } from "./state";

export const COLUMN_LABELS: Record<ColumnId, string> = {
  name: "Name",
  type: "Type",
  traceId: "Trace ID",
  startTime: "Start time",
  latency: "Latency",
  model: "Model",
  tokens: "Tokens",
  cost: "Cost",
  level: "Level",
  userId: "User ID",
  sessionId: "Session ID",
  scores: "Scores",
};

const none = <span className="muted">–</span>;

/** Local time with milliseconds; `short` leaves out the year (the title keeps the full time). */
export function formatTime(iso: string, short = false): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const pad = (n: number, width = 2) => String(n).padStart(width, "0");
  const day = `${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
  const time = `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
  return short ? `${day} ${time}` : `${date.getFullYear()}-${day} ${time}`;
}

export function formatLatency(seconds: number | null | undefined) {
  if (seconds === null || seconds === undefined) return none;
  return seconds < 1 ? `${Math.round(seconds * 1000)} ms` : `${seconds.toFixed(2)} s`;
}

export function formatCost(cost: number | null | undefined) {
  if (cost === null || cost === undefined || cost === 0) return none;
  return cost < 0.01 ? `$${cost.toPrecision(2)}` : `$${cost.toFixed(2)}`;
}

function tokens(row: ObservationRow) {
  const usage = row.usageDetails ?? {};
  const total = usage.total ?? Object.entries(usage).reduce((sum, [, v]) => sum + (typeof v === "number" ? v : 0), 0);
  if (!total) return none;
  const detail = usage.input !== undefined || usage.output !== undefined ? `${usage.input ?? 0} → ${usage.output ?? 0}` : null;
  return <span title={detail ? `input → output: ${detail}` : undefined}>{total.toLocaleString()}</span>;
}

function scoreText(score: Score): string {
  const value = score.stringValue ?? (typeof score.value === "number" ? String(Math.round(score.value * 100) / 100) : "");
  return `${score.name}: ${value}`;
}

function scores(row: ObservationRow) {
  if (!row.scores?.length) return none;
  const text = row.scores.map(scoreText).join(", ");
  return <span title={text}>{text}</span>;
}

function mono(value: string | null | undefined) {
  return value ? (
    <span className="mono" title={value}>
      {value}
    </span>
  ) : (
    none
  );
}

function level(row: ObservationRow) {
  const value = row.level ?? "DEFAULT";
  return <span className={`level level--${value.toLowerCase()}`}>{value}</span>;
}

const RENDER: Record<ColumnId, Omit<Column<ObservationRow>, "id" | "header">> = {
  name: { width: "minmax(9rem, 2fr)", render: (r) => <span title={r.name}>{r.name || none}</span> },
  type: { width: "8.75rem", render: (r) => <span className="badge">{r.type}</span> },
  traceId: { width: "minmax(6rem, 1fr)", render: (r) => mono(r.traceId) },
  startTime: { width: "11rem", render: (r) => <time dateTime={r.startTime} title={formatTime(r.startTime)}>{formatTime(r.startTime, true)}</time> },
  latency: { width: "5.5rem", align: "end", render: (r) => formatLatency(r.latency) },
  model: { width: "minmax(5rem, 1fr)", render: (r) => r.providedModelName || none },
  tokens: { width: "5.5rem", align: "end", render: tokens },
  cost: { width: "6rem", align: "end", render: (r) => formatCost(r.totalCost) },
  level: { width: "5.5rem", render: level },
  userId: { width: "minmax(5rem, 1fr)", render: (r) => mono(r.userId) },
  sessionId: { width: "minmax(5rem, 1fr)", render: (r) => mono(r.sessionId) },
  scores: { width: "minmax(5rem, 1fr)", render: scores },
};

export function tableColumns(ids: readonly ColumnId[]): Column<ObservationRow>[] {
  return ids.map((id) => ({ id, header: COLUMN_LABELS[id], ...RENDER[id] }));
}
