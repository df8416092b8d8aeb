// The columns of the v3 Traces and Observations tabs (rows of the public v1 routes).

import type { Column } from "../../components/DataTable";
import { formatCost, formatLatency, formatTime } from "../observations/columns";

export type LegacyTab = "traces" | "observations";

/** The fields of a v1 trace or observation the tabs show. */
export interface LegacyRow {
  id: string;
  name: string | null;
  traceId?: string;
  timestamp?: string;
  startTime?: string;
  endTime?: string | null;
  type?: string;
  level?: string;
  model?: string | null;
  userId?: string | null;
  sessionId?: string | null;
  tags?: string[];
  latency?: number | null;
  totalCost?: number | null;
  calculatedTotalCost?: number | null;
}

const none = <span className="muted">–</span>;
const mono = (v: string | null | undefined) => (v ? <span className="mono" title={v}>{v}</span> : none);
const time = (v: string | undefined) => (v ? <time dateTime={v}>{formatTime(v)}</time> : none);
const seconds = (start?: string, end?: string | null) =>
  start && end ? formatLatency((Date.parse(end) - Date.parse(start)) / 1000) : none;

export const TAB_COLUMNS: Record<LegacyTab, Column<LegacyRow>[]> = {
  traces: [
    { id: "timestamp", header: "Timestamp", width: "12.5rem", render: (r) => time(r.timestamp) },
    { id: "name", header: "Name", width: "minmax(10rem, 2fr)", render: (r) => r.name || none },
    { id: "id", header: "Trace ID", render: (r) => mono(r.id) },
    { id: "userId", header: "User ID", render: (r) => mono(r.userId) },
    { id: "sessionId", header: "Session ID", render: (r) => mono(r.sessionId) },
    { id: "tags", header: "Tags", render: (r) => (r.tags?.length ? r.tags.join(", ") : none) },
    {
      id: "latency",
      header: "Latency",
      width: "6rem",
      align: "end",
      render: (r) => (typeof r.latency === "number" && r.latency >= 0 ? formatLatency(r.latency) : none),
    },
    {
      id: "cost",
      header: "Cost",
      width: "6rem",
      align: "end",
      render: (r) => (typeof r.totalCost === "number" && r.totalCost >= 0 ? formatCost(r.totalCost) : none),
    },
  ],
  observations: [
    { id: "startTime", header: "Start time", width: "12.5rem", render: (r) => time(r.startTime) },
    { id: "name", header: "Name", width: "minmax(10rem, 2fr)", render: (r) => r.name || none },
    { id: "type", header: "Type", width: "7.5rem", render: (r) => <span className="badge">{r.type}</span> },
    { id: "traceId", header: "Trace ID", render: (r) => mono(r.traceId) },
    { id: "level", header: "Level", width: "6.5rem", render: (r) => r.level ?? none },
    { id: "model", header: "Model", render: (r) => r.model || none },
    { id: "latency", header: "Latency", width: "6rem", align: "end", render: (r) => seconds(r.startTime, r.endTime) },
    { id: "cost", header: "Cost", width: "6rem", align: "end", render: (r) => formatCost(r.calculatedTotalCost) },
  ],
};
