// Traces sent the way an application sends them — OTLP/JSON with the bootstrap project's key — and
// the wait until the worker has stored them, for the specs that open what they sent.

import type { APIRequestContext, Page } from "@playwright/test";

import { expect, loupe } from "./support";

export interface SpanSpec {
  id: string;
  parent?: string;
  name: string;
  /** Milliseconds after the trace's base time. */
  startMs: number;
  endMs: number;
  /** `langfuse.observation.type` (agent, generation, tool, …). */
  type?: string;
  /** `langfuse.observation.input`. */
  input?: string;
  /** `session.id`. */
  session?: string;
  attributes?: Record<string, string | number>;
}

type Attribute = { key: string; value: { stringValue: string } | { intValue: number } };

/** `length` random hexadecimal characters: 32 for a trace id, 16 for a span id. */
export const hex = (length: number) => Array.from({ length }, () => Math.floor(Math.random() * 16).toString(16)).join("");

/** The bootstrap project's key as a Basic authorization header. */
export const basicAuth = () => `Basic ${Buffer.from(`${loupe.publicKey}:${loupe.secretKey}`).toString("base64")}`;

function attributes(span: SpanSpec): Attribute[] {
  const values: Record<string, string | number> = { ...span.attributes };
  if (span.type) values["langfuse.observation.type"] = span.type;
  if (span.input) values["langfuse.observation.input"] = span.input;
  if (span.session) values["session.id"] = span.session;
  return Object.entries(values).map(([key, value]) => ({ key, value: typeof value === "number" ? { intValue: value } : { stringValue: value } }));
}

/** The OTLP/JSON export request of one trace's spans. */
export function otlpBody(traceId: string, spans: SpanSpec[], baseMs: number, service = "loupe-e2e") {
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: "service.name", value: { stringValue: service } }] },
        scopeSpans: [
          {
            scope: { name: "langfuse-sdk", version: "3.0.0" },
            spans: spans.map((span) => ({
              traceId,
              spanId: span.id,
              ...(span.parent ? { parentSpanId: span.parent } : {}),
              name: span.name,
              kind: 1,
              startTimeUnixNano: `${(baseMs + span.startMs) * 1_000_000}`,
              endTimeUnixNano: `${(baseMs + span.endMs) * 1_000_000}`,
              attributes: attributes(span),
            })),
          },
        ],
      },
    ],
  };
}

/** Sends the spans over OTLP/HTTP and checks they were accepted. */
export async function sendSpans(request: APIRequestContext, traceId: string, spans: SpanSpec[], baseMs = Date.now() - 60_000) {
  const response = await request.post("/api/public/otel/v1/traces", {
    headers: { Authorization: basicAuth(), "Content-Type": "application/json" },
    data: otlpBody(traceId, spans, baseMs),
  });
  expect(response.status(), await response.text()).toBe(200);
}

/** Waits until the worker has stored all `count` observations of the trace (v4 tree). */
export async function waitStored(page: Page, traceId: string, count: number, timeout = 60_000) {
  await expect
    .poll(
      async () => {
        const response = await page.request.get(`/api/ui/projects/${loupe.projectId}/traces/${traceId}/tree?model=v4`);
        return response.ok() ? ((await response.json()) as { count: number }).count : 0;
      },
      { timeout, intervals: [250, 500, 1000] },
    )
    .toBe(count);
}
