// The Observations view's server calls: its page of observations (`GET /api/ui/projects/{id}/
// observations`: the v2 observations API plus `search`, `searchIn` and `order`) and the project's
// saved views.

import { api, type ApiClient, type Query } from "../../api/client";
import type { CursorPage } from "../../api/types";
import { rangeParams, toApiFilters } from "./filters";
import type { ViewState } from "./state";

export interface Score {
  id: string;
  name: string;
  value?: number | null;
  stringValue?: string | null;
  dataType?: string;
}

/** The fields of a v2 observation the table shows (groups core, basic, model, usage, metrics, scores). */
export interface ObservationRow {
  id: string;
  traceId: string;
  startTime: string;
  endTime: string | null;
  type: string;
  parentObservationId: string | null;
  name?: string;
  level?: string;
  statusMessage?: string | null;
  userId?: string | null;
  sessionId?: string | null;
  environment?: string;
  providedModelName?: string | null;
  usageDetails?: Record<string, number>;
  costDetails?: Record<string, number>;
  totalCost?: number | null;
  latency?: number | null;
  scores?: Score[];
}

export const PAGE_SIZE = 50;

/** The query of one page: the view's filters, search and time range (as of `now`). */
export function pageQuery(state: ViewState, now: number, options: { cursor?: string; limit?: number; from?: string } = {}): Query {
  const filters = toApiFilters(state.filters);
  const range = rangeParams(state.range, now);
  const fromStartTime =
    options.from && (!range.fromStartTime || options.from > range.fromStartTime) ? options.from : range.fromStartTime;
  const fields = ["basic", "model", "usage", "metrics", ...(state.columns.includes("scores") ? ["scores"] : [])];
  return {
    fields: fields.join(","),
    limit: options.limit ?? PAGE_SIZE,
    ...(filters.length ? { filter: JSON.stringify(filters) } : {}),
    ...(state.search.trim() ? { search: state.search.trim(), ...(state.searchIn === "io" ? { searchIn: "io" } : {}) } : {}),
    ...(state.order === "asc" ? { order: "asc" } : {}),
    ...(fromStartTime ? { fromStartTime } : {}),
    ...(range.toStartTime ? { toStartTime: range.toStartTime } : {}),
    ...(options.cursor ? { cursor: options.cursor } : {}),
    ...(state.columns.includes("scores") ? { scoreLimit: 10 } : {}),
  };
}

export interface SavedView {
  id: string;
  name: string;
  state: unknown;
  createdBy: string | null;
  createdAt: string;
  updatedAt: string;
}

export function observationsApi(projectId: string, client: ApiClient = api) {
  const base = `/api/ui/projects/${encodeURIComponent(projectId)}`;
  return {
    page(query: Query, signal?: AbortSignal): Promise<CursorPage<ObservationRow>> {
      return client.get(`${base}/observations`, { query, ...(signal ? { signal } : {}) });
    },
    async savedViews(): Promise<SavedView[]> {
      return (await client.get<{ data: SavedView[] }>(`${base}/saved-views`)).data;
    },
    createView(name: string, state: ViewState): Promise<SavedView> {
      return client.post(`${base}/saved-views`, { name, state });
    },
    updateView(id: string, change: { name?: string; state?: ViewState }): Promise<SavedView> {
      return client.put(`${base}/saved-views/${encodeURIComponent(id)}`, change);
    },
    deleteView(id: string): Promise<void> {
      return client.delete(`${base}/saved-views/${encodeURIComponent(id)}`);
    },
  };
}

export type ObservationsApi = ReturnType<typeof observationsApi>;
