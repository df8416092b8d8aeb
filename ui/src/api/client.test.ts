import { describe, expect, it, vi } from "vitest";

import { ApiClient, ApiError, CSRF_HEADER, PROJECT_HEADER, describeError } from "./client";
import { projectApi } from "./public";
import { uiApi } from "./ui";

/** A fetch that records each call and answers with `answer`. */
function fakeFetch(answer: () => Response) {
  const calls: { url: string; init: RequestInit }[] = [];
  const fetch = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    calls.push({ url: String(input), init: init ?? {} });
    return answer();
  });
  return { fetch: fetch as unknown as typeof globalThis.fetch, calls };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });

const header = (init: RequestInit, name: string) => new Headers(init.headers).get(name);

describe("ApiClient", () => {
  it("sends the cookie and JSON, and reads JSON back", async () => {
    const { fetch, calls } = fakeFetch(() => json(200, { ok: true }));
    const client = new ApiClient({ fetch });
    expect(await client.post("/api/ui/organizations", { name: "Acme" })).toEqual({ ok: true });
    const [call] = calls;
    expect(call?.url).toBe("/api/ui/organizations");
    expect(call?.init.credentials).toBe("same-origin");
    expect(call?.init.body).toBe('{"name":"Acme"}');
    expect(header(call!.init, "Content-Type")).toBe("application/json");
  });

  it("puts the CSRF token on state changes only", async () => {
    const { fetch, calls } = fakeFetch(() => json(200, {}));
    const client = new ApiClient({ fetch });
    await client.post("/x");
    client.setCsrfToken("token-1");
    await client.get("/x");
    await client.post("/x");
    await client.put("/x", {});
    await client.delete("/x");
    expect(calls.map((c) => header(c.init, CSRF_HEADER))).toEqual([null, null, "token-1", "token-1", "token-1"]);
    client.setCsrfToken(null);
    await client.post("/x");
    expect(header(calls.at(-1)!.init, CSRF_HEADER)).toBeNull();
  });

  it("names the project of a public-API call and builds its query", async () => {
    const { fetch, calls } = fakeFetch(() => json(200, { data: [] }));
    const project = projectApi("p-1", new ApiClient({ fetch }));
    await project.get("v2/observations", { limit: 50, type: ["SPAN", "GENERATION"], cursor: undefined, fromStartTime: null });
    expect(calls[0]?.url).toBe("/api/public/v2/observations?limit=50&type=SPAN&type=GENERATION");
    expect(header(calls[0]!.init, PROJECT_HEADER)).toBe("p-1");
    expect(header(calls[0]!.init, CSRF_HEADER)).toBeNull();
  });

  it("keeps a 400's per-field mismatches, and none elsewhere", async () => {
    const fields = [{ field: "input", path: "/question", message: '5 is not of type "string"' }];
    const { fetch } = fakeFetch(() => json(400, { message: "`input` does not match", error: "InvalidRequestError", fields }));
    const error = (await new ApiClient({ fetch }).post("/api/public/dataset-items", {}).catch((e: unknown) => e)) as ApiError;
    expect(error.kind).toBe("invalid");
    expect(error.fields).toEqual(fields);
    const plain = fakeFetch(() => json(400, { message: "bad", fields: "not a list" }));
    const other = (await new ApiClient({ fetch: plain.fetch }).get("/x").catch((e: unknown) => e)) as ApiError;
    expect(other.fields).toEqual([]);
  });

  it("reads the v2 evaluation routes' details.issues as per-field mismatches", async () => {
    const details = { issues: [{ code: "custom", message: "minValue must not exceed maxValue", path: ["outputDefinition", "minValue"] }, { code: "x", message: "bad body", path: [] }] };
    const { fetch } = fakeFetch(() => json(400, { message: "Invalid request body", code: "invalid_body", error: "InvalidRequestError", details }));
    const error = (await new ApiClient({ fetch }).post("/api/public/v2/evaluators", {}).catch((e: unknown) => e)) as ApiError;
    expect(error.fields).toEqual([
      { field: "outputDefinition", path: "/minValue", message: "minValue must not exceed maxValue" },
      { field: "", path: "", message: "bad body" },
    ]);
  });

  it("turns {message, error} bodies into typed errors", async () => {
    const { fetch } = fakeFetch(() => json(404, { message: "Project not found", error: "LangfuseNotFoundError" }));
    const error = await new ApiClient({ fetch }).get("/api/public/projects/x").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 404, kind: "not-found", message: "Project not found", code: "LangfuseNotFoundError" });
  });

  it("keeps the wait of a rate limit and says it", async () => {
    const { fetch } = fakeFetch(() =>
      json(429, { message: "Too many failed sign-ins; try again later", error: "TooManyRequestsError" }, { "Retry-After": "840" }),
    );
    const error = await new ApiClient({ fetch }).post("/api/ui/auth/sign-in", {}).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: "rate-limited", retryAfterSeconds: 840 });
    expect(describeError(error)).toBe("Too many failed sign-ins; try again later (try again in 14 minutes)");
  });

  it("reports a 401 to the session and an unreachable server as such", async () => {
    const onUnauthorized = vi.fn();
    const unauthorized = new ApiClient({ fetch: fakeFetch(() => json(401, { message: "Sign in first" })).fetch, onUnauthorized });
    await expect(unauthorized.get("/api/ui/me")).rejects.toMatchObject({ kind: "unauthorized", code: null });
    expect(onUnauthorized).toHaveBeenCalledOnce();

    const down = new ApiClient({
      fetch: (async () => {
        throw new TypeError("Failed to fetch");
      }) as typeof fetch,
    });
    const error = await down.get("/api/ui/me").catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: "network", status: 0 });
    expect(describeError(error)).toMatch(/Cannot reach the Loupe server/);
  });

  it("survives an error page that is not JSON", async () => {
    const { fetch } = fakeFetch(() => new Response("<html>Bad gateway</html>", { status: 502, statusText: "Bad Gateway" }));
    await expect(new ApiClient({ fetch }).get("/x")).rejects.toMatchObject({ kind: "unavailable", message: "502 Bad Gateway" });
  });
});

describe("the UI API", () => {
  it("keeps the CSRF token of a sign-in for the next state change", async () => {
    let answer = json(200, { user: { id: "u", email: "a@b.c", name: null }, csrfToken: "from-sign-in" });
    const { fetch, calls } = fakeFetch(() => answer);
    const client = new ApiClient({ fetch });
    const ui = uiApi(client);
    await ui.signIn({ email: "a@b.c", password: "pw" });
    answer = json(201, { id: "o1", name: "Acme", createdAt: "", metadata: {} });
    await ui.createOrganization({ name: "Acme" });
    expect(header(calls[1]!.init, CSRF_HEADER)).toBe("from-sign-in");
  });

  it("reads sign-up as on when the server has no auth config route yet", async () => {
    const ui = uiApi(new ApiClient({ fetch: fakeFetch(() => json(404, { message: "No such endpoint" })).fetch }));
    expect(await ui.authConfig()).toEqual({ signUpEnabled: true });
    const off = uiApi(new ApiClient({ fetch: fakeFetch(() => json(200, { signUpEnabled: false })).fetch }));
    expect(await off.authConfig()).toEqual({ signUpEnabled: false });
  });
});
