// Monitors through the public API as the signed-in person (`/api/public/monitors`, docs/monitors.md):
// reads need any role on the project, changes MEMBER or above (the server refuses a VIEWER with 403).

import type { ProjectApi } from "../../api/public";
import type { Paginated } from "../../api/types";
import type { MetricsFilter } from "../dashboards/filters";

export type Comparison = ">" | ">=" | "<" | "<=";
export type MonitorState = "OK" | "ALERTING";

export type MonitorFilter = MetricsFilter;

export interface MonitorQuery {
  view: string;
  measure: string;
  aggregation: string;
  filters: MonitorFilter[];
}

/** A channel as the API shows it: its secret only as `...abcd`. */
export interface ChannelView {
  type: "webhook" | "slack" | "github";
  url?: string;
  owner?: string;
  repo?: string;
  eventType?: string;
  displaySecret: string;
}

/** A channel as a request gives it, secret included. */
export type ChannelInput =
  | { type: "webhook"; url: string; secret: string }
  | { type: "slack"; url: string }
  | { type: "github"; owner: string; repo: string; token: string; eventType: string };

export interface Monitor {
  id: string;
  projectId: string;
  name: string;
  description: string;
  query: MonitorQuery;
  windowSeconds: number;
  comparison: Comparison;
  threshold: number;
  intervalSeconds: number;
  channels: ChannelView[];
  state: MonitorState;
  muted: boolean;
  lastValue: number | null;
  lastEvaluatedAt: string | null;
  nextEvaluationAt: string;
  createdAt: string;
  updatedAt: string;
}

export interface MonitorRequest {
  name: string;
  description: string;
  query: MonitorQuery;
  windowSeconds: number;
  comparison: Comparison;
  threshold: number;
  intervalSeconds: number;
  /** Omitted on an update: the stored channels (and their secrets) stay. */
  channels?: ChannelInput[];
}

export interface Evaluation {
  id: number;
  evaluatedAt: string;
  windowFrom: string;
  windowTo: string;
  value: number | null;
  state: MonitorState;
  transition: boolean;
  muted: boolean;
  error: string | null;
}

export interface Delivery {
  attempt: number;
  attemptedAt: string;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export interface Notification {
  id: string;
  evaluationId: number;
  channelIndex: number;
  channelType: string;
  transition: MonitorState;
  status: "pending" | "delivered" | "failed";
  attempts: number;
  createdAt: string;
  deliveries: Delivery[];
}

export const HISTORY_PAGE_SIZE = 20;
const enc = encodeURIComponent;

export function monitorsApi(api: ProjectApi) {
  const one = (id: string) => `monitors/${enc(id)}`;
  return {
    list: (page: number, signal?: AbortSignal) => api.get<Paginated<Monitor>>("monitors", { page, limit: 50 }, signal),
    get: (id: string, signal?: AbortSignal) => api.get<Monitor>(one(id), undefined, signal),
    create: (request: MonitorRequest) => api.post<Monitor>("monitors", request),
    update: (id: string, request: MonitorRequest) => api.patch<Monitor>(one(id), request),
    remove: (id: string) => api.delete<{ message: string }>(one(id)),
    mute: (id: string, muted: boolean) => api.post<Monitor>(`${one(id)}/${muted ? "mute" : "unmute"}`),
    evaluateNow: (id: string) => api.post<unknown>(`${one(id)}/evaluate`),
    evaluations: (id: string, page: number, signal?: AbortSignal) =>
      api.get<Paginated<Evaluation>>(`${one(id)}/evaluations`, { page, limit: HISTORY_PAGE_SIZE }, signal),
    notifications: (id: string, page: number, signal?: AbortSignal) =>
      api.get<Paginated<Notification>>(`${one(id)}/notifications`, { page, limit: HISTORY_PAGE_SIZE }, signal),
  };
}

export type MonitorsApi = ReturnType<typeof monitorsApi>;
