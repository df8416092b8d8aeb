// The sessions pages' routes (docs/identity.md, "The UI's JSON API"): the project's sessions with
// their figures, and one session's traces with the start of their inputs and outputs.

import { api, type ApiClient } from "./client";
import type { Me, Paginated } from "./types";

/** Which data model the person's views read (`GET /api/ui/me` → `views`). */
export type DataModel = "v3" | "v4";

/** The model of `me`'s views: v4 unless the server says v3. */
export function dataModel(me: Me): DataModel {
  return me.views === "v3" ? "v3" : "v4";
}

export interface SessionSummary {
  id: string;
  /** ISO 8601. */
  firstAt: string;
  lastAt: string;
  durationSeconds: number;
  traces: number;
  observations: number;
  /** USD. */
  totalCost: number;
  totalTokens: number;
  /** At most 10, sorted; `userCount` counts them all. */
  userIds: string[];
  userCount: number;
}

export interface SessionTrace {
  id: string;
  name: string | null;
  startTime: string;
  endTime: string;
  durationSeconds: number;
  observations: number;
  totalCost: number;
  totalTokens: number;
  userId: string | null;
  /** v4: the root observation the input and output are from; v3: null (the trace's own). */
  rootObservationId: string | null;
  /** The first 2,000 characters. */
  input: string | null;
  /** The whole input's length. */
  inputChars: number;
  output: string | null;
  outputChars: number;
}

export interface SessionDetail {
  session: SessionSummary;
  traces: Paginated<SessionTrace>;
}

export interface SessionsQuery {
  model: DataModel;
  page?: number;
  limit?: number;
  fromTimestamp?: string;
  toTimestamp?: string;
  search?: string;
}

/** Characters of an input or output the session page receives. */
export const PREVIEW_CHARS = 2000;
/** Sessions per page of the list (the server allows up to 100). */
export const SESSIONS_PAGE_SIZE = 50;

export function sessionsApi(client: ApiClient = api) {
  const base = (projectId: string) => `/api/ui/projects/${encodeURIComponent(projectId)}/sessions`;
  return {
    list(projectId: string, query: SessionsQuery, signal?: AbortSignal): Promise<Paginated<SessionSummary>> {
      return client.get(base(projectId), { query: { ...query }, ...(signal ? { signal } : {}) });
    },

    get(
      projectId: string,
      sessionId: string,
      query: { model: DataModel; page?: number; limit?: number },
      signal?: AbortSignal,
    ): Promise<SessionDetail> {
      return client.get(`${base(projectId)}/${encodeURIComponent(sessionId)}`, {
        query: { ...query },
        ...(signal ? { signal } : {}),
      });
    },
  };
}

export const sessions = sessionsApi();
