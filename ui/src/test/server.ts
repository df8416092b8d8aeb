// A stand-in for the server in component tests: answers by method and path, records what was sent.

import { vi } from "vitest";

export type Handler = (request: { body: unknown; headers: Headers }) => Response;

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });
}

export function fakeServer(routes: Record<string, Handler>) {
  const seen: { route: string; body: unknown; headers: Headers }[] = [];
  const fetch = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input), "http://loupe.test");
    const route = `${init?.method ?? "GET"} ${url.pathname}`;
    const body = typeof init?.body === "string" ? (JSON.parse(init.body) as unknown) : undefined;
    const headers = new Headers(init?.headers);
    seen.push({ route, body, headers });
    const handler = routes[route];
    return handler ? handler({ body, headers }) : json(404, { message: `No such endpoint: ${url.pathname}` });
  });
  vi.stubGlobal("fetch", fetch);
  return { seen };
}
