// Public links (docs/identity.md, "Public links"): members turn a trace's or a session's link on
// and off; anyone with the token reads what it opens under /api/ui/public/{token}/… without a
// session (the client sends no project header, and a 401 never happens there).

import { api, type ApiClient } from "./client";
import type { SessionDetail } from "./sessions";
import type { ObservationDetail, TraceTreeBody, ValueField } from "./trace";

export type LinkKind = "trace" | "session";

/** `GET|PUT|DELETE /api/ui/projects/{projectId}/public-links/{kind}/{targetId}`. */
export interface LinkState {
  public: boolean;
  /** The page is `/public/{token}`; absent when off. */
  token?: string;
  createdAt?: string;
}

/** `GET /api/ui/public/{token}`. */
export interface PublicLink {
  kind: LinkKind;
  /** The trace id or the session id. */
  id: string;
}

export function publicPagePath(token: string): string {
  return `/public/${encodeURIComponent(token)}`;
}

export function linkApi(projectId: string, client: ApiClient = api) {
  const path = (kind: LinkKind, targetId: string) =>
    `/api/ui/projects/${encodeURIComponent(projectId)}/public-links/${kind}/${encodeURIComponent(targetId)}`;
  return {
    state: (kind: LinkKind, targetId: string): Promise<LinkState> => client.get(path(kind, targetId)),
    enable: (kind: LinkKind, targetId: string): Promise<LinkState> => client.put(path(kind, targetId)),
    revoke: (kind: LinkKind, targetId: string): Promise<LinkState> => client.delete(path(kind, targetId)),
  };
}

export function publicApi(token: string, client: ApiClient = api) {
  const base = `/api/ui/public/${encodeURIComponent(token)}`;
  const observation = (traceId: string, id: string) => `${base}/traces/${encodeURIComponent(traceId)}/observations/${encodeURIComponent(id)}`;
  return {
    link: (): Promise<PublicLink> => client.get(base),
    tree: (traceId: string): Promise<TraceTreeBody> => client.get(`${base}/traces/${encodeURIComponent(traceId)}/tree`),
    detail: (traceId: string, id: string): Promise<ObservationDetail> => client.get(observation(traceId, id)),
    session: (page: number, limit: number): Promise<SessionDetail> => client.get(`${base}/session`, { query: { page, limit } }),
    /** The URL of one large value in full (the JSON worker fetches it itself). */
    valueUrl: (traceId: string, id: string, _model: unknown, field: ValueField): string => `${observation(traceId, id)}/value?field=${field}`,
  };
}

export type PublicApi = ReturnType<typeof publicApi>;
