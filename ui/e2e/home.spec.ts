// Home and custom dashboards: observations sent over OTLP with the bootstrap key show on Home's
// charts (counts, errors, latency by name, cost by model); a chart opens the Observations view
// filtered to what it shows; a custom dashboard gets a widget, whose number is the same data.

import type { APIRequestContext } from "@playwright/test";

import { expect, loupe, shot, signIn, test } from "./support";

function hex(text: string, width: number): string {
  return [...text].map((c) => c.charCodeAt(0).toString(16).padStart(2, "0")).join("").slice(-width).padStart(width, "0");
}

const basic = () => `Basic ${Buffer.from(`${loupe.publicKey}:${loupe.secretKey}`).toString("base64")}`;

/** One trace of three observations a minute ago: a root, a generation of `model` ($0.50), and a
 * failing tool call (level ERROR). */
async function seed(request: APIRequestContext, run: string, model: string) {
  const base = BigInt(Date.now() - 60_000) * 1_000_000n;
  const at = (ms: number) => String(base + BigInt(ms) * 1_000_000n);
  const span = (id: string, parent: string, name: string, start: number, end: number, attributes: Record<string, string>) => ({
    traceId: hex(`${run}t`, 32),
    spanId: hex(`${run}${id}`, 16),
    parentSpanId: parent ? hex(`${run}${parent}`, 16) : "",
    name,
    kind: 1,
    startTimeUnixNano: at(start),
    endTimeUnixNano: at(end),
    attributes: Object.entries(attributes).map(([key, value]) => ({ key, value: { stringValue: value } })),
  });
  const body = {
    resourceSpans: [
      {
        resource: { attributes: [{ key: "service.name", value: { stringValue: "e2e-home" } }] },
        scopeSpans: [
          {
            scope: { name: "e2e" },
            spans: [
              span("r", "", `home-root-${run}`, 0, 3000, {}),
              span("g", "r", `home-llm-${run}`, 100, 2100, {
                "langfuse.observation.type": "generation",
                "langfuse.observation.model.name": model,
                "langfuse.observation.usage_details": JSON.stringify({ input: 40, output: 2, total: 42 }),
                // The metrics' totalCost is the sum of the input and output costs, as upstream's.
                "langfuse.observation.cost_details": JSON.stringify({ input: 0.3, output: 0.2, total: 0.5 }),
              }),
              span("e", "r", `home-tool-${run}`, 2200, 2900, { "langfuse.observation.level": "ERROR" }),
            ],
          },
        ],
      },
    ],
  };
  const answer = await request.post("/api/public/otel/v1/traces", {
    // Version 4: straight to the events tables Metrics v2 reads.
    headers: { Authorization: basic(), "Content-Type": "application/json", "x-langfuse-ingestion-version": "4" },
    data: body,
  });
  expect(answer.status()).toBe(200);
  await expect
    .poll(
      async () => {
        const page = await request.get(`/api/public/v2/observations?traceId=${hex(`${run}t`, 32)}&fields=core`, { headers: { Authorization: basic() } });
        return ((await page.json()) as { data?: unknown[] }).data?.length ?? 0;
      },
      { timeout: 30_000, message: "the worker stores the trace's three observations" },
    )
    .toBe(3);
}

test("home: charts of the project, a chart opens Observations filtered, a custom dashboard with a widget", async ({ page, request }, testInfo) => {
  test.setTimeout(90_000);
  const run = Math.random().toString(36).slice(2, 6);
  const model = `e2e-model-${run}`;
  await seed(request, run, model);

  await page.goto("/sign-in");
  await signIn(page, loupe.email, loupe.password);
  await expect(page).toHaveURL(`/project/${loupe.projectId}/observations`);
  const nav = page.getByRole("navigation", { name: "Project" });
  await expect(nav.getByRole("link").first()).toHaveText("Home");
  await nav.getByRole("link", { name: "Home" }).click();
  await expect(page).toHaveURL(`/project/${loupe.projectId}`);
  await expect(page.getByRole("heading", { name: "Home", level: 1 })).toBeVisible();

  // The last hour holds this run's trace (and maybe other specs'): at least its figures.
  await page.getByLabel("Time range").selectOption("1h");
  await expect(page).toHaveURL(/range=1h/);
  const figure = (title: string) => page.getByLabel(`${title} total`);
  await expect.poll(async () => Number(await figure("Observations").textContent())).toBeGreaterThanOrEqual(3);
  await expect.poll(async () => Number(await figure("Traces").textContent())).toBeGreaterThanOrEqual(1);
  await expect.poll(async () => Number(await figure("Errors").textContent())).toBeGreaterThanOrEqual(1);
  const latency = page.getByRole("table", { name: "Latency percentiles by name" });
  await expect(latency.getByRole("row").filter({ hasText: `home-llm-${run}` })).toContainText("2 s");
  const cost = page.getByRole("table", { name: "Cost and tokens by model" });
  const modelRow = cost.getByRole("row").filter({ hasText: model });
  await expect(modelRow).toContainText("$0.5");
  await expect(modelRow).toContainText("42");
  await page.getByRole("img", { name: "Observations over time" }).hover();
  await expect(page.getByRole("status").filter({ hasText: "UTC" })).toBeVisible();
  await shot(page, testInfo, "home");
  await page.emulateMedia({ colorScheme: "dark" });
  await shot(page, testInfo, "home-dark");
  await page.emulateMedia({ colorScheme: "light" });

  // The errors chart opens the Observations view of level ERROR over the same hour.
  await page.getByRole("link", { name: "Errors over time: open in Observations" }).click();
  await expect(page).toHaveURL(/\/observations\?/);
  const url = new URL(page.url());
  expect(url.searchParams.get("range")).toBe("1h");
  expect(JSON.parse(url.searchParams.get("filter") ?? "[]")).toEqual([{ column: "level", operator: "any of", value: ["ERROR"] }]);
  await expect(page.getByText(`home-tool-${run}`).first()).toBeVisible();
  await expect(page.getByText(`home-llm-${run}`)).toHaveCount(0);
  await page.goBack();

  // A model's row opens the observations of that model.
  await cost.getByRole("button", { name: model }).click();
  await expect(page.getByText(`home-llm-${run}`).first()).toBeVisible();
  expect(JSON.parse(new URL(page.url()).searchParams.get("filter") ?? "[]")).toEqual([{ column: "model", operator: "=", value: model }]);

  // A custom dashboard with one widget: the cost of the hour, as a number.
  await nav.getByRole("link", { name: "Dashboards" }).click();
  await page.getByLabel("New dashboard name").fill(`Costs ${run}`);
  await page.getByRole("button", { name: "Create dashboard" }).click();
  await expect(page.getByRole("heading", { name: `Costs ${run}`, level: 1 })).toBeVisible();
  await expect(page.getByRole("heading", { name: "No widgets yet" })).toBeVisible();
  await page.getByLabel("Time range").selectOption("1h");
  await page.getByRole("button", { name: "Add widget" }).click();
  const editor = page.getByRole("form", { name: "New widget" });
  await editor.getByLabel("Widget name").fill("Tokens of the model");
  await editor.getByLabel("Chart type").selectOption("NUMBER");
  await editor.getByLabel("Measure 1").selectOption("totalTokens");
  await editor.getByLabel("Aggregation 1").selectOption("sum");
  // A filter the metrics parser refuses (typed as JSON, the builder does not offer it) is named by
  // the server; back in the builder, a row on the model saves.
  await editor.getByRole("button", { name: "Edit as JSON" }).click();
  await editor.getByLabel("Filters (JSON)").fill(JSON.stringify([{ column: "nope", operator: "=", type: "string", value: "x" }]));
  await editor.getByRole("button", { name: "Add to dashboard" }).click();
  await expect(editor.getByRole("alert")).toContainText("nope");
  await editor.getByLabel("Filters (JSON)").fill("[]");
  await editor.getByRole("button", { name: "Use the filter builder" }).click();
  const filters = editor.getByRole("group", { name: "Filters" });
  await filters.getByRole("button", { name: "+ Add filter" }).click();
  await filters.getByLabel("Filter 1 column").selectOption("providedModelName");
  await filters.getByLabel("Filter 1 value").fill(model);
  await shot(page, testInfo, "widget-filters");
  await editor.getByRole("button", { name: "Add to dashboard" }).click();
  await expect(editor).toHaveCount(0);
  const tile = page.getByRole("region", { name: "Tokens of the model" });
  await expect(tile.getByLabel("Tokens of the model value")).toHaveText("42");
  await shot(page, testInfo, "dashboard");

  // It is listed, with its widget.
  await page.getByRole("link", { name: "Dashboards" }).first().click();
  await expect(page.getByRole("listitem").filter({ hasText: `Costs ${run}` })).toContainText("1 widget");
  await shot(page, testInfo, "dashboards");
});
