// The public API (/api/public/*) as the signed-in person: the session cookie and the project header
// stand in for a project's Basic-auth key pair; reads need any role on the project, writes MEMBER or
// above (and the CSRF token, which the client adds). Pages add their typed calls on top of these.

import { api, type ApiClient, type Query } from "./client";

export interface ProjectApi {
  readonly projectId: string;
  get<T>(path: string, query?: Query, signal?: AbortSignal): Promise<T>;
  post<T>(path: string, body?: unknown): Promise<T>;
  put<T>(path: string, body?: unknown): Promise<T>;
  patch<T>(path: string, body?: unknown): Promise<T>;
  delete<T>(path: string, body?: unknown): Promise<T>;
}

/** Calls of `/api/public/<path>` acting on one project. `path` is relative: `"traces/abc"`. */
export function projectApi(projectId: string, client: ApiClient = api): ProjectApi {
  const full = (path: string) => `/api/public/${path.replace(/^\/+/, "")}`;
  return {
    projectId,
    get: (path, query, signal) =>
      client.get(full(path), { projectId, ...(query ? { query } : {}), ...(signal ? { signal } : {}) }),
    post: (path, body) => client.post(full(path), body, { projectId }),
    put: (path, body) => client.put(full(path), body, { projectId }),
    patch: (path, body) => client.patch(full(path), body, { projectId }),
    delete: (path, body) => client.request(full(path), { method: "DELETE", body, projectId }),
  };
}
