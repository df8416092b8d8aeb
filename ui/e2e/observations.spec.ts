// The Observations view against a real stack: data goes in through the public ingestion API with
// the bootstrap key pair, the worker writes it, the page reads it through the UI route. Every spec
// names its observations with a run tag and searches for it, so specs never see each other's rows.

import type { APIRequestContext, Page } from "@playwright/test";

import { expect, loupe, shot, signIn, test } from "./support";

// OTLP ids are hex: 12 digits of this run, then a counter.
const runHex = (Date.now().toString(16) + Math.random().toString(16).slice(2)).slice(0, 12).padStart(12, "0");
const run = `r${runHex}`;
let counter = 0;
const spanId = () => `${runHex}${(++counter).toString(16).padStart(4, "0")}`;
const traceId = () => `${runHex}${(++counter).toString(16).padStart(20, "0")}`;
const basic = () => `Basic ${Buffer.from(`${loupe.publicKey}:${loupe.secretKey}`).toString("base64")}`;

function ago(seconds: number): string {
  return new Date(Date.now() - seconds * 1000).toISOString();
}

interface Span {
  id: string;
  trace: string;
  parent?: string;
  name: string;
  /** Seconds ago. */
  start: number;
  end?: number;
  attributes?: Record<string, string | number>;
}

const nanos = (secondsAgo: number) => `${BigInt(Date.now() - Math.round(secondsAgo * 1000)) * 1_000_000n}`;

/** Sends spans as OTLP/JSON with `x-langfuse-ingestion-version: 4`: written straight to the v4
 * tables (the batch API's events reach them only through the delayed staging propagation). */
async function ingest(request: APIRequestContext, spans: Span[]): Promise<void> {
  const otlp = {
    resourceSpans: [
      {
        resource: { attributes: [{ key: "service.name", value: { stringValue: "loupe-e2e" } }] },
        scopeSpans: [
          {
            scope: { name: "loupe-e2e" },
            spans: spans.map((s) => ({
              traceId: s.trace,
              spanId: s.id,
              ...(s.parent ? { parentSpanId: s.parent } : {}),
              name: s.name,
              kind: 1,
              startTimeUnixNano: nanos(s.start),
              endTimeUnixNano: nanos(s.end ?? s.start),
              attributes: Object.entries(s.attributes ?? {}).map(([key, value]) => ({
                key,
                value: typeof value === "number" ? { intValue: String(value) } : { stringValue: value },
              })),
            })),
          },
        ],
      },
    ],
  };
  const response = await request.post("/api/public/otel/v1/traces", {
    headers: { Authorization: basic(), "x-langfuse-ingestion-version": "4" },
    data: otlp,
  });
  expect(response.status()).toBe(200);
}

const trace = traceId();
const paged = traceId();
const live = traceId();
const ids = { root: spanId(), llm: spanId(), tool: spanId() };

/** Waits until the v2 API lists `count` observations whose name contains `name`. */
async function until(request: APIRequestContext, name: string, count: number): Promise<void> {
  const filter = JSON.stringify([{ type: "string", column: "name", operator: "contains", value: name }]);
  await expect
    .poll(
      async () => {
        const response = await request.get("/api/public/v2/observations", {
          headers: { Authorization: basic() },
          params: { filter, limit: 100, fromStartTime: ago(3600) },
        });
        return ((await response.json()) as { data: unknown[] }).data.length;
      },
      { timeout: 30_000 },
    )
    .toBe(count);
}

const table = (page: Page) => page.getByRole("table", { name: "Observations" });
const rowsNamed = (page: Page, text: string) => table(page).getByRole("row").filter({ hasText: text });

async function open(page: Page, query = ""): Promise<void> {
  await page.goto("/sign-in");
  await signIn(page, loupe.email, loupe.password);
  await expect(page).toHaveURL(`/project/${loupe.projectId}/observations`);
  if (query) await page.goto(`/project/${loupe.projectId}/observations?${query}`);
}

test.describe.configure({ mode: "serial" });

test.beforeAll(async ({ request }) => {
  await ingest(request, [
    { id: ids.root, trace, name: `${run} checkout`, start: 40, end: 30, attributes: { "user.id": `${run}-ada`, "langfuse.observation.metadata.region": "eu" } },
    {
      id: ids.llm,
      trace,
      parent: ids.root,
      name: `${run} call llm`,
      start: 38,
      end: 31,
      attributes: {
        "langfuse.observation.type": "generation",
        "langfuse.observation.level": "ERROR",
        "langfuse.observation.status_message": "rate limited",
        "langfuse.observation.metadata.region": "eu",
        "gen_ai.request.model": "gpt-4o",
        "gen_ai.usage.input_tokens": 120,
        "gen_ai.usage.output_tokens": 30,
      },
    },
    { id: ids.tool, trace, parent: ids.root, name: `${run} tool`, start: 35, end: 34, attributes: { "langfuse.observation.metadata.region": "us" } },
    ...Array.from({ length: 60 }, (_, i) => ({ id: spanId(), trace: paged, name: `${run}-page ${i}`, start: 100 + i, end: 99 + i })),
  ]);
  await until(request, run, 63);
});

test("filters by level and by metadata, searches by name and chooses columns", async ({ page }, testInfo) => {
  await open(page, `q=${trace}`);
  await expect(rowsNamed(page, run)).toHaveCount(3);
  await expect(page.getByRole("searchbox", { name: "Search" })).toHaveValue(trace);
  await shot(page, testInfo, "searched");

  await page.getByRole("button", { name: /^Filters/ }).click();
  await page.getByLabel("Filter 1 column").selectOption("level");
  await page.getByRole("checkbox", { name: "ERROR" }).check();
  await page.getByRole("button", { name: "Apply filters" }).click();
  await expect(rowsNamed(page, run)).toHaveCount(1);
  await expect(rowsNamed(page, `${run} call llm`)).toHaveCount(1);
  await expect(page.getByRole("list", { name: "Applied filters" })).toContainText("Level any of ERROR");
  expect(new URL(page.url()).searchParams.get("filter")).toContain("ERROR");
  await shot(page, testInfo, "level-error");

  await page.getByRole("button", { name: "Remove filter Level any of ERROR" }).click();
  await expect(rowsNamed(page, run)).toHaveCount(3);
  await page.getByRole("button", { name: /^Filters/ }).click();
  await page.getByLabel("Filter 1 column").selectOption("metadata");
  await page.getByLabel("Filter 1 metadata key").fill("region");
  await page.getByLabel("Filter 1 value").fill("us");
  await page.getByLabel("Filter 1 value").press("Enter");
  await expect(rowsNamed(page, run)).toHaveCount(1);
  await expect(rowsNamed(page, `${run} tool`)).toHaveCount(1);

  // The search box alone, typed: names contain the text whatever its case.
  await page.getByRole("button", { name: /^Remove filter/ }).click();
  await page.getByRole("searchbox", { name: "Search" }).fill(`${run} CALL`);
  await expect(rowsNamed(page, run)).toHaveCount(1);
  await page.getByRole("searchbox", { name: "Search" }).fill(trace);
  await expect(rowsNamed(page, run)).toHaveCount(3);

  const header = table(page).getByRole("columnheader");
  await expect(header.filter({ hasText: "Model" })).toHaveCount(1);
  await page.getByText("Columns", { exact: true }).click();
  // Back to back: the second change builds on the first even before it reaches the URL
  // (ColumnChooser.test.tsx holds the race itself).
  await page.getByRole("checkbox", { name: "Model" }).uncheck();
  await page.getByRole("checkbox", { name: "Session ID" }).uncheck();
  await expect(header.filter({ hasText: "Model" })).toHaveCount(0);
  await expect(header.filter({ hasText: "Session ID" })).toHaveCount(0);
  await shot(page, testInfo, "columns");
  // The address is the view: reloading it shows the same.
  await page.reload();
  await expect(rowsNamed(page, run)).toHaveCount(3);
  await expect(header.filter({ hasText: "Model" })).toHaveCount(0);
  await expect(header.filter({ hasText: "Name" })).toHaveCount(1);
});

test("filters by a score: an observation's own, and its trace's on the root", async ({ page, request }, testInfo) => {
  const quality = `${run}-quality`;
  const verdict = `${run}-verdict`;
  for (const data of [
    { traceId: trace, observationId: ids.llm, name: quality, value: 0.9 },
    { traceId: trace, observationId: ids.tool, name: quality, value: 0.1 },
    { traceId: trace, name: verdict, value: "good", dataType: "CATEGORICAL" },
  ]) {
    const response = await request.post("/api/public/scores", { headers: { Authorization: basic() }, data });
    expect(response.ok(), await response.text()).toBe(true);
  }
  // The worker writes scores: wait until the API's filter sees both kinds.
  const kept = async (filter: unknown[]) => {
    const response = await request.get("/api/public/v2/observations", {
      headers: { Authorization: basic() },
      params: { filter: JSON.stringify(filter), fromStartTime: ago(3600) },
    });
    return ((await response.json()) as { data: { id: string }[] }).data.map((o) => o.id);
  };
  const good = { type: "stringObject", column: "scores", key: verdict, operator: "=", value: "good" };
  await expect.poll(() => kept([good]), { timeout: 30_000 }).toEqual([ids.root]);
  await expect.poll(() => kept([{ type: "numberObject", column: "scores", key: quality, operator: "<", value: 1 }]), { timeout: 30_000 }).toHaveLength(2);

  await open(page, `q=${trace}`);
  await expect(rowsNamed(page, run)).toHaveCount(3);
  await page.getByRole("button", { name: /^Filters/ }).click();
  await page.getByLabel("Filter 1 column").selectOption("scores");
  await page.getByLabel("Filter 1 score name").fill(quality);
  await page.getByLabel("Filter 1 operator").selectOption(">=");
  await page.getByLabel("Filter 1 value").fill("0.5");
  await shot(page, testInfo, "score-filter");
  await page.getByRole("button", { name: "Apply filters" }).click();
  await expect(page.getByRole("list", { name: "Applied filters" })).toContainText(`score ${quality} >= 0.5`);
  await expect(rowsNamed(page, run)).toHaveCount(1);
  await expect(rowsNamed(page, `${run} call llm`)).toHaveCount(1);
  expect(new URL(page.url()).searchParams.get("filter")).toContain(quality);

  // A categorical value of the trace's own score keeps the root; the URL alone brings it back.
  const filter = JSON.stringify([{ column: "scores", operator: "=", key: verdict, value: "good" }]);
  await page.goto(`/project/${loupe.projectId}/observations?q=${trace}&filter=${encodeURIComponent(filter)}`);
  await expect(rowsNamed(page, run)).toHaveCount(1);
  await expect(rowsNamed(page, `${run} checkout`)).toHaveCount(1);
  await shot(page, testInfo, "score-filtered");
});

test("pages with the cursor as the table scrolls", async ({ page }, testInfo) => {
  await open(page, `q=${encodeURIComponent(`${run}-page`)}`);
  await expect(table(page)).toHaveAttribute("aria-rowcount", "51");
  await expect(page.getByText("Scroll for more")).toBeVisible();
  await shot(page, testInfo, "first-page");
  await table(page).locator(".table__body").evaluate((el) => el.scrollTo(0, el.scrollHeight));
  await expect(table(page)).toHaveAttribute("aria-rowcount", "61");
  await expect(page.getByText("All observations loaded")).toBeVisible();
});

test("a row opens the trace panel, kept in the address; j/k move and Enter opens", async ({ page }, testInfo) => {
  await open(page, `q=${trace}`);
  await expect(rowsNamed(page, run)).toHaveCount(3);
  await rowsNamed(page, `${run} tool`).click();
  await expect(page.getByRole("region", { name: "Trace", exact: true })).toBeVisible();
  const url = new URL(page.url());
  expect(url.searchParams.get("trace")).toBe(trace);
  expect(url.searchParams.get("observation")).toBe(ids.tool);
  await shot(page, testInfo, "panel");
  await page.reload();
  await expect(page.getByRole("region", { name: "Trace", exact: true })).toBeVisible();
  await expect(rowsNamed(page, run)).toHaveCount(3);
  await expect(rowsNamed(page, `${run} tool`)).toHaveAttribute("aria-selected", "true");
  await page.getByRole("region", { name: "Trace", exact: true }).getByRole("button", { name: "Close" }).click();
  await expect(page.getByRole("region", { name: "Trace", exact: true })).toBeHidden();

  await page.locator("#main").focus();
  await page.keyboard.press("j");
  await page.keyboard.press("j");
  const rows = table(page).getByRole("row");
  await expect(rows.nth(2)).toHaveAttribute("aria-selected", "true");
  await page.keyboard.press("k");
  await expect(rows.nth(1)).toHaveAttribute("aria-selected", "true");
  await page.keyboard.press("Enter");
  await expect(page.getByRole("region", { name: "Trace", exact: true })).toBeVisible();
});

test("live mode shows a row ingested after the page opened, once", async ({ page, request }, testInfo) => {
  await open(page, `q=${encodeURIComponent(`${run}-live`)}`);
  await expect(page.getByRole("heading", { name: "No observations" })).toBeVisible();
  await page.getByRole("switch", { name: "Live" }).check();
  await ingest(request, [{ id: spanId(), trace: live, name: `${run}-live first`, start: 0 }]);
  await expect(rowsNamed(page, `${run}-live first`)).toHaveCount(1, { timeout: 20_000 });
  await ingest(request, [{ id: spanId(), trace: live, name: `${run}-live second`, start: 0 }]);
  await expect(rowsNamed(page, `${run}-live second`)).toHaveCount(1, { timeout: 20_000 });
  // Newest first, and polls that fetch the newest millisecond again add nothing twice.
  await expect(table(page).getByRole("row").nth(1)).toContainText(`${run}-live second`);
  await page.waitForResponse((r) => r.url().includes("/observations?") && r.url().includes("fromStartTime"));
  await page.waitForResponse((r) => r.url().includes("/observations?") && r.url().includes("fromStartTime"));
  await expect(rowsNamed(page, `${run}-live`)).toHaveCount(2);
  await shot(page, testInfo, "live");
});

test("saves a view, opens its permalink, renames and deletes it; presets apply", async ({ page }, testInfo) => {
  await open(page, `q=${trace}`);
  await expect(rowsNamed(page, run)).toHaveCount(3);
  await page.getByRole("button", { name: /^Filters/ }).click();
  await page.getByLabel("Filter 1 column").selectOption("level");
  await page.getByRole("checkbox", { name: "ERROR" }).check();
  await page.getByRole("button", { name: "Apply filters" }).click();
  await expect(rowsNamed(page, run)).toHaveCount(1);

  const name = `Errors of ${run}`;
  await page.getByText("Views", { exact: true }).click();
  await page.getByLabel("View name").fill(name);
  await page.getByRole("button", { name: "Save view" }).click();
  await expect(page.getByRole("list", { name: "Saved views" }).getByRole("link", { name })).toBeVisible();
  const viewId = new URL(page.url()).searchParams.get("view");
  expect(viewId).toBeTruthy();
  await shot(page, testInfo, "saved");

  // The permalink alone brings back the filters and the search.
  await page.goto(`/project/${loupe.projectId}/observations?view=${viewId}`);
  await expect(page.getByRole("list", { name: "Applied filters" })).toContainText("Level any of ERROR");
  await expect(page.getByRole("searchbox", { name: "Search" })).toHaveValue(trace);
  await expect(rowsNamed(page, run)).toHaveCount(1);
  await expect(page.getByText(`Views: ${name}`)).toBeVisible();

  await page.getByText(`Views: ${name}`).click();
  await page.getByRole("button", { name: `Rename ${name}` }).click();
  await page.getByLabel(`New name for ${name}`).fill(`${name} renamed`);
  await page.getByRole("button", { name: "Save name" }).click();
  await expect(page.getByRole("link", { name: `${name} renamed` })).toBeVisible();
  await page.getByRole("button", { name: `Delete ${name} renamed` }).click();
  await expect(page.getByRole("link", { name: `${name} renamed` })).toBeHidden();

  await page.goto(`/project/${loupe.projectId}/observations?view=preset:errors`);
  await expect(page.getByRole("list", { name: "Applied filters" })).toContainText("Level any of ERROR");
  await page.goto(`/project/${loupe.projectId}/observations?view=preset:roots`);
  await expect(page.getByRole("list", { name: "Applied filters" })).toContainText("Root observation = true");
  await page.getByRole("searchbox", { name: "Search" }).fill(trace);
  await expect(rowsNamed(page, run)).toHaveCount(1);
  await expect(rowsNamed(page, `${run} checkout`)).toHaveCount(1);
  await shot(page, testInfo, "preset-roots");
});

test("time to first rows", async ({ page }) => {
  await open(page);
  await page.goto(`/project/${loupe.projectId}/observations?range=all`);
  await expect(table(page).getByRole("row").nth(1)).toBeVisible();
  const ms = await page.evaluate(() => performance.getEntriesByName("loupe:observations:first-rows")[0]?.startTime ?? -1);
  expect(ms).toBeGreaterThan(0);
  console.log(`observations: first rows ${Math.round(ms)} ms after navigation start`);
});

test("reads well in the dark theme, filters and panel open", async ({ page }, testInfo) => {
  await page.emulateMedia({ colorScheme: "dark" });
  await open(page, `q=${trace}&filter=${encodeURIComponent(JSON.stringify([{ column: "level", operator: "none of", value: ["DEBUG"] }]))}`);
  await expect(rowsNamed(page, run)).toHaveCount(3);
  await page.getByRole("button", { name: /^Filters/ }).click();
  await rowsNamed(page, `${run} call llm`).click();
  await expect(page.getByRole("region", { name: "Trace", exact: true })).toBeVisible();
  await shot(page, testInfo, "dark");
});

test("orders oldest first, and searches the words of input and output", async ({ page, request }, testInfo) => {
  const io = traceId();
  const [asked, answered] = [spanId(), spanId()];
  await ingest(request, [
    { id: asked, trace: io, name: `${run} io asked`, start: 20, end: 19, attributes: { "langfuse.observation.input": `Where is my parcel ${run}?` } },
    {
      id: answered,
      trace: io,
      parent: asked,
      name: `${run} io answered`,
      start: 18,
      end: 17,
      attributes: { "langfuse.observation.output": `{"answer":"The parcel ships on Monday ${run}"}` },
    },
  ]);
  await until(request, `${run} io`, 2);
  await open(page, `q=${encodeURIComponent(`${run} io`)}`);
  const rows = rowsNamed(page, `${run} io`);
  await expect(rows).toHaveCount(2);
  await expect(rows.first()).toContainText("io answered");
  await page.getByLabel("Order", { exact: true }).selectOption("asc");
  await expect(page).toHaveURL(/order=asc/);
  await expect(rows.first()).toContainText("io asked");
  await expect(page.getByRole("switch", { name: "Live" })).toBeDisabled();

  await page.getByLabel("Search in", { exact: true }).selectOption("io");
  const box = page.getByRole("searchbox", { name: "Search" });
  await box.fill(`PARCEL ${run}`);
  await expect(rowsNamed(page, run)).toHaveCount(2);
  await box.fill(`monday ${run}`);
  await expect(rowsNamed(page, run)).toHaveCount(1);
  await expect(rowsNamed(page, `${run} io answered`)).toHaveCount(1);
  await expect(page).toHaveURL(/in=io/);
  await shot(page, testInfo, "search-input-output");
});
