// The one way the UI talks to the server: same-origin `fetch` with the session cookie, the CSRF
// token on every state change, the project a public-API call acts on, JSON in and out, and every
// failure turned into an `ApiError` a page can show.

import type { ErrorBody, FieldError } from "./types";

/** Header naming the project a session-authenticated `/api/public/*` call acts on. */
export const PROJECT_HEADER = "X-Loupe-Project";
/** Header echoing the session's CSRF token on every state change. */
export const CSRF_HEADER = "X-CSRF-Token";

export type ErrorKind =
  | "network" // no answer at all: the server is down or unreachable
  | "unauthorized" // 401: not signed in, or the session ended
  | "forbidden" // 403: signed in, but the role does not allow it
  | "not-found"
  | "conflict"
  | "invalid" // 400, 413, 415, 422
  | "rate-limited" // 429, with `retryAfterSeconds`
  | "unavailable" // 502, 503, 504
  | "server"; // any other 5xx (or an answer that is not what was promised)

function kindOf(status: number): ErrorKind {
  if (status === 401) return "unauthorized";
  if (status === 403) return "forbidden";
  if (status === 404) return "not-found";
  if (status === 409) return "conflict";
  if (status === 429) return "rate-limited";
  if (status === 502 || status === 503 || status === 504) return "unavailable";
  if (status >= 400 && status < 500) return "invalid";
  return "server";
}

/** A request that did not succeed: the server's `{message, error}` when it sent one. */
export class ApiError extends Error {
  readonly kind: ErrorKind;
  /** 0 when there was no answer. */
  readonly status: number;
  /** The server's error class (`LangfuseNotFoundError`, …) or detail, when it sent one. */
  readonly code: string | null;
  /** From `Retry-After`, on 429 and 503. */
  readonly retryAfterSeconds: number | null;
  /** Where the body is wrong, per field, when the server says (a 400's `fields`). */
  fields: FieldError[] = [];

  constructor(status: number, message: string, code: string | null = null, retryAfterSeconds: number | null = null) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.kind = status === 0 ? "network" : kindOf(status);
    this.code = code;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export function isApiError(error: unknown, kind?: ErrorKind): error is ApiError {
  return error instanceof ApiError && (kind === undefined || error.kind === kind);
}

/** A sentence a person can act on, for any error a page caught. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    switch (error.kind) {
      case "network":
        return "Cannot reach the Loupe server. Check that it is running, then try again.";
      case "rate-limited":
        return error.retryAfterSeconds === null
          ? error.message
          : `${error.message} (try again in ${formatWait(error.retryAfterSeconds)})`;
      default:
        return error.message;
    }
  }
  return error instanceof Error ? error.message : String(error);
}

export function formatWait(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.ceil(seconds / 60);
  return minutes === 1 ? "1 minute" : `${minutes} minutes`;
}

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
export type Query = Record<string, string | number | boolean | null | undefined | readonly string[]>;

export interface RequestOptions {
  method?: Method;
  /** Sent as JSON. */
  body?: unknown;
  query?: Query;
  /** For `/api/public/*`: the project the call acts on (the session stands in for Basic auth). */
  projectId?: string;
  signal?: AbortSignal;
}

export interface ClientOptions {
  /** Injected by tests; the browser's `fetch` otherwise. */
  fetch?: typeof fetch;
  /** Called on any 401, so the app can send the person to sign in. */
  onUnauthorized?: () => void;
}

function url(path: string, query: Query | undefined): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) value.forEach((v) => params.append(key, v));
    else params.append(key, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

function changesState(method: Method): boolean {
  return method !== "GET";
}

async function errorOf(response: Response): Promise<ApiError> {
  const retry = response.headers.get("Retry-After");
  const retryAfter = retry !== null && /^\d+$/.test(retry) ? Number(retry) : null;
  let message = `${response.status} ${response.statusText || "error"}`.trim();
  let code: string | null = null;
  let fields: FieldError[] = [];
  try {
    const body = (await response.json()) as Partial<ErrorBody>;
    if (typeof body.message === "string" && body.message) message = body.message;
    if (typeof body.error === "string") code = body.error;
    if (Array.isArray(body.fields)) fields = body.fields.filter((f) => typeof f?.field === "string");
    // The v2 evaluation routes answer the SDK's `PublicApiError`: `details.issues`, each at a path.
    const issues = (body as { details?: { issues?: unknown } }).details?.issues;
    if (fields.length === 0 && Array.isArray(issues)) fields = issues.flatMap(issueField);
  } catch {
    // Not JSON (a proxy's error page): the status line is all there is.
  }
  const error = new ApiError(response.status, message, code, retryAfter);
  error.fields = fields;
  return error;
}

/** One `{code, message, path}` issue of a `PublicApiError` as a field error. */
function issueField(issue: unknown): FieldError[] {
  if (typeof issue !== "object" || issue === null) return [];
  const { message, path } = issue as { message?: unknown; path?: unknown };
  if (typeof message !== "string") return [];
  const steps = Array.isArray(path) ? path.map(String) : [];
  return [{ field: steps[0] ?? "", path: steps.length > 1 ? `/${steps.slice(1).join("/")}` : "", message }];
}

export class ApiClient {
  private csrfToken: string | null = null;
  private readonly fetchImpl: typeof fetch;
  private onUnauthorized: (() => void) | undefined;

  constructor(options: ClientOptions = {}) {
    // Bound, or the browser's fetch refuses to be called as a method of another object.
    this.fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.onUnauthorized = options.onUnauthorized;
  }

  /** Called on every 401 from now on (the session provider signs the app out). */
  setUnauthorizedHandler(handler: (() => void) | undefined): void {
    this.onUnauthorized = handler;
  }

  /** The session's CSRF token, from sign-in or `GET /api/ui/me`; `null` after sign-out. */
  setCsrfToken(token: string | null): void {
    this.csrfToken = token;
  }

  /** Sends one request; resolves with the JSON body (`undefined` when there is none). */
  async request<T>(path: string, options: RequestOptions = {}): Promise<T> {
    const method = options.method ?? "GET";
    const headers = new Headers({ Accept: "application/json" });
    if (options.body !== undefined) headers.set("Content-Type", "application/json");
    if (changesState(method) && this.csrfToken) headers.set(CSRF_HEADER, this.csrfToken);
    if (options.projectId) headers.set(PROJECT_HEADER, options.projectId);
    const init: RequestInit = { method, headers, credentials: "same-origin" };
    if (options.body !== undefined) init.body = JSON.stringify(options.body);
    if (options.signal) init.signal = options.signal;
    let response: Response;
    try {
      response = await this.fetchImpl(url(path, options.query), init);
    } catch (cause) {
      if (cause instanceof DOMException && cause.name === "AbortError") throw cause;
      throw new ApiError(0, "Cannot reach the Loupe server");
    }
    if (!response.ok) {
      const error = await errorOf(response);
      if (error.kind === "unauthorized") this.onUnauthorized?.();
      throw error;
    }
    if (response.status === 204) return undefined as T;
    const text = await response.text();
    if (!text) return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new ApiError(response.status, "The server answered with something that is not JSON", null);
    }
  }

  get<T>(path: string, options: Omit<RequestOptions, "method" | "body"> = {}): Promise<T> {
    return this.request<T>(path, { ...options, method: "GET" });
  }

  post<T>(path: string, body?: unknown, options: Omit<RequestOptions, "method" | "body"> = {}): Promise<T> {
    return this.request<T>(path, { ...options, method: "POST", body });
  }

  put<T>(path: string, body?: unknown, options: Omit<RequestOptions, "method" | "body"> = {}): Promise<T> {
    return this.request<T>(path, { ...options, method: "PUT", body });
  }

  patch<T>(path: string, body?: unknown, options: Omit<RequestOptions, "method" | "body"> = {}): Promise<T> {
    return this.request<T>(path, { ...options, method: "PATCH", body });
  }

  delete<T>(path: string, options: Omit<RequestOptions, "method"> = {}): Promise<T> {
    return this.request<T>(path, { ...options, method: "DELETE" });
  }
}

/** The app's client; `app/session.tsx` keeps its CSRF token current. */
export const api = new ApiClient();
