// The sessions pages: a session sent over OTLP with the bootstrap key appears in the list with its
// figures, opens on its own page with its traces in order and their inputs and outputs, and each
// trace links to the trace page.

import type { APIRequestContext } from "@playwright/test";

import { expect, loupe, shot, signIn, test } from "./support";

const SECOND_NS = 1_000_000_000n;

function hex(text: string, width: number): string {
  return [...text].map((c) => c.charCodeAt(0).toString(16).padStart(2, "0")).join("").slice(-width).padStart(width, "0");
}

interface SpanSpec {
  trace: string;
  span: string;
  parent?: string;
  name: string;
  startS: number;
  endS: number;
  attributes: Record<string, string>;
}

function otlp(base: bigint, spans: SpanSpec[]) {
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: "service.name", value: { stringValue: "e2e-chat" } }] },
        scopeSpans: [
          {
            scope: { name: "e2e" },
            spans: spans.map((s) => ({
              traceId: hex(s.trace, 32),
              spanId: hex(s.span, 16),
              parentSpanId: s.parent ? hex(s.parent, 16) : "",
              name: s.name,
              kind: 1,
              startTimeUnixNano: String(base + BigInt(s.startS * 1000) * (SECOND_NS / 1000n)),
              endTimeUnixNano: String(base + BigInt(s.endS * 1000) * (SECOND_NS / 1000n)),
              attributes: Object.entries(s.attributes).map(([key, value]) => ({ key, value: { stringValue: value } })),
            })),
          },
        ],
      },
    ],
  };
}

const basic = () => `Basic ${Buffer.from(`${loupe.publicKey}:${loupe.secretKey}`).toString("base64")}`;

/** Two turns of a chat in session `sessionId`: ada's question with a generation, then grace's. */
async function seed(request: APIRequestContext, run: string, sessionId: string) {
  const base = BigInt(Date.now() - 120_000) * 1_000_000n;
  const attrs = (user: string, extra: Record<string, string> = {}) => ({ "session.id": sessionId, "user.id": user, ...extra });
  const generation = (tokens: number, cost: number) => ({
    "langfuse.observation.type": "generation",
    "langfuse.observation.usage_details": JSON.stringify({ input: tokens - 5, output: 5, total: tokens }),
    "langfuse.observation.cost_details": JSON.stringify({ total: cost }),
  });
  const question = JSON.stringify([
    { role: "system", content: "You answer questions about observability." },
    { role: "user", content: "What is a session in Loupe?" },
  ]);
  const body = otlp(base, [
    {
      trace: `${run}a`,
      span: `${run}ar`,
      name: "chat-turn-1",
      startS: 0,
      endS: 4,
      attributes: attrs("ada", {
        "langfuse.observation.input": question,
        "langfuse.observation.output": JSON.stringify({ role: "assistant", content: "The traces that share a session id." }),
      }),
    },
    { trace: `${run}a`, span: `${run}ag`, parent: `${run}ar`, name: "llm", startS: 1, endS: 3, attributes: attrs("ada", generation(120, 0.0042)) },
    {
      trace: `${run}b`,
      span: `${run}br`,
      name: "chat-turn-2",
      startS: 30,
      endS: 33,
      attributes: attrs("grace", {
        "langfuse.observation.input": JSON.stringify("And how long did this one last? ".repeat(80) + "That is all."),
        "langfuse.observation.output": JSON.stringify("About half a minute."),
      }),
    },
    { trace: `${run}b`, span: `${run}bg`, parent: `${run}br`, name: "llm", startS: 31, endS: 32, attributes: attrs("grace", generation(80, 0.0018)) },
  ]);
  const answer = await request.post("/api/public/otel/v1/traces", {
    headers: { Authorization: basic(), "Content-Type": "application/json" },
    data: body,
  });
  expect(answer.status()).toBe(200);
  await expect
    .poll(
      async () => {
        const page = await request.get(`/api/public/v2/observations?sessionId=${sessionId}&fields=core`, {
          headers: { Authorization: basic() },
        });
        return ((await page.json()) as { data?: unknown[] }).data?.length ?? 0;
      },
      { timeout: 30_000, message: "the worker stores the session's four observations" },
    )
    .toBe(4);
  return { firstTrace: hex(`${run}a`, 32) };
}

test("a session: the list with its figures, its page with the traces in order, and a trace's link", async ({ page, request }, testInfo) => {
  const run = Math.random().toString(36).slice(2, 6);
  const sessionId = `e2e-chat-${run}`;
  const { firstTrace } = await seed(request, run, sessionId);

  await page.goto("/sign-in");
  await signIn(page, loupe.email, loupe.password);
  await expect(page).toHaveURL(`/project/${loupe.projectId}/observations`);
  await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Sessions" }).click();
  await expect(page.getByRole("heading", { name: "Sessions", level: 1 })).toBeVisible();

  // The list: newest first, searchable by session or user id, figures per session.
  const table = page.getByRole("table", { name: "Sessions" });
  const row = table.getByRole("row").filter({ hasText: sessionId });
  await expect(row).toBeVisible();
  await expect(row.getByRole("cell").nth(3)).toHaveText("2"); // traces
  await expect(row.getByRole("cell").nth(4)).toHaveText("4"); // observations
  await expect(row.getByRole("cell").nth(5)).toHaveText("200"); // tokens
  await expect(row.getByRole("cell").nth(6)).toHaveText("$0.006"); // cost
  await expect(row.getByRole("cell").nth(7)).toHaveText("ada, grace");
  await expect(row.getByRole("cell").nth(2)).toHaveText("33 s"); // first start to last end
  await shot(page, testInfo, "list");

  await page.getByLabel("Search").fill("GRACE");
  await expect(page).toHaveURL(/[?&]q=GRACE/);
  await expect(row).toBeVisible();
  await page.getByLabel("Search").fill("nobody-has-this-id");
  await expect(page.getByRole("heading", { name: "No session matches" })).toBeVisible();
  await shot(page, testInfo, "no-match");
  await page.getByLabel("Search").fill(sessionId);
  await expect(table.getByRole("row")).toHaveCount(2); // the header and the session
  await page.getByLabel("Time range").selectOption("1h");
  await expect(page).toHaveURL(/range=1h/);
  await expect(row).toBeVisible();

  // The session's page, by keyboard from the list.
  await row.focus();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(`/project/${loupe.projectId}/sessions/${sessionId}`);
  await expect(page.getByRole("heading", { name: sessionId, level: 1 })).toBeVisible();
  const figures = page.getByRole("definition");
  await expect(figures.nth(0)).toHaveText("2");
  await expect(figures.nth(1)).toHaveText("4");
  const first = page.getByRole("article", { name: "Trace 1: chat-turn-1" });
  const second = page.getByRole("article", { name: "Trace 2: chat-turn-2" });
  await expect(first).toBeVisible();
  await expect(second).toBeVisible();
  // Chat messages read as a conversation; a long value folds and unfolds.
  await expect(first.getByRole("region", { name: "Input" })).toContainText("What is a session in Loupe?");
  await expect(first.getByRole("region", { name: "Output" })).toContainText("The traces that share a session id.");
  const more = second.getByRole("button", { name: "Show more of the input" });
  await more.click();
  await expect(second.getByRole("button", { name: "Show less of the input" })).toHaveAttribute("aria-expanded", "true");
  // Past the 2,000-character preview, the whole value on request.
  await expect(second.getByRole("region", { name: "Input" })).not.toContainText("That is all.");
  await second.getByRole("button", { name: "Show the whole input" }).click();
  await second.getByRole("button", { name: /^Show more \(\d+ more characters\)/ }).click();
  await expect(second.getByRole("region", { name: "Input" })).toContainText("That is all.");
  await page.locator("#main").evaluate((main) => main.scrollTo(0, 0));
  await shot(page, testInfo, "session");
  await page.emulateMedia({ colorScheme: "dark" });
  await shot(page, testInfo, "session-dark");
  await page.emulateMedia({ colorScheme: "light" });

  // Each trace links to its trace page.
  await first.getByRole("link", { name: "chat-turn-1" }).click();
  await expect(page).toHaveURL(`/project/${loupe.projectId}/traces/${firstTrace}`);

  // Back in the list, an unknown session says so.
  await page.goto(`/project/${loupe.projectId}/sessions/no-such-session`);
  await expect(page.getByRole("heading", { name: "Session not found" })).toBeVisible();
  await shot(page, testInfo, "not-found");
});
