// The agent graph and public links: an agent trace sent over OTLP shown as a graph (spans folded
// into their callers, repeated tool calls merged), a node clicked to select its observation; the
// layout and first-render times of a 2 000-node graph; a trace made public, opened in a fresh
// browser context with no cookie, then revoked (the page says the link is gone, the API 404s).

import type { Page } from "@playwright/test";

import { hex, sendSpans as send, waitStored as stored, type SpanSpec } from "./otlp";
import { expect, loupe, shot, signIn, test } from "./support";

/** An agent that plans with an LLM, calls a search tool three times (each through a span), answers. */
async function agentTrace(page: Page) {
  const traceId = hex(32);
  const ids = { root: hex(16), plan: hex(16), tools: [hex(16), hex(16), hex(16)], spans: [hex(16), hex(16), hex(16)], answer: hex(16) };
  const spans: SpanSpec[] = [
    { id: ids.root, name: "support-agent", type: "agent", startMs: 0, endMs: 3000 },
    { id: ids.plan, parent: ids.root, name: "plan", type: "generation", startMs: 10, endMs: 400 },
  ];
  ids.tools.forEach((tool, i) => {
    const wrapper = ids.spans[i] as string;
    spans.push({ id: wrapper, parent: ids.root, name: "retry-wrapper", startMs: 500 + i * 600, endMs: 1000 + i * 600 });
    spans.push({ id: tool, parent: wrapper, name: "search-docs", type: "tool", startMs: 510 + i * 600, endMs: 990 + i * 600 });
  });
  spans.push({ id: ids.answer, parent: ids.root, name: "write-answer", type: "generation", startMs: 2500, endMs: 2900 });
  await send(page.request, traceId, spans);
  await stored(page, traceId, spans.length);
  return { traceId, ids };
}

test.beforeEach(async ({ page }) => {
  await page.goto("/sign-in");
  await signIn(page, loupe.email, loupe.password);
  await expect(page).toHaveURL(`/project/${loupe.projectId}/observations`);
});

test("an agent trace's graph: calls merged, a click selects the observation", async ({ page }, testInfo) => {
  const { traceId, ids } = await agentTrace(page);
  await page.goto(`/project/${loupe.projectId}/traces/${traceId}`);
  await expect(page.getByRole("tree", { name: "Trace tree" }).getByRole("treeitem")).toHaveCount(9);
  await page.getByRole("group", { name: "Trace view" }).getByRole("button", { name: "Graph" }).click();

  const graph = page.getByRole("figure", { name: "Agent graph" });
  await expect(graph).toHaveAttribute("data-render-ms", /\d/);
  // The agent, its two generations and one merged tool node; the wrapper spans are folded.
  await expect(graph.getByRole("button")).toHaveCount(4 + 3); // + zoom in, zoom out, fit
  await expect(graph).toContainText("4 nodes");
  const tool = graph.getByRole("button", { name: /search-docs, 3 calls/ });
  await expect(tool).toBeVisible();
  await shot(page, testInfo, "graph");

  await tool.click();
  await expect(page).toHaveURL(new RegExp(`observation=${ids.tools[0]}`));
  await expect(page.getByRole("article", { name: "Observation search-docs" })).toBeVisible();
  await expect(tool).toHaveAttribute("aria-pressed", "true");
  // Back in the tree, the same observation is selected.
  await page.getByRole("group", { name: "Trace view" }).getByRole("button", { name: "Tree" }).click();
  await expect(page.getByRole("tree", { name: "Trace tree" }).locator('[aria-selected="true"]')).toHaveAttribute("data-observation-id", ids.tools[0] as string);
  await page.getByRole("group", { name: "Trace view" }).getByRole("button", { name: "Graph" }).click();
  await graph.getByRole("button", { name: /write-answer/ }).click();
  await expect(page).toHaveURL(new RegExp(`observation=${ids.answer}`));
  await expect(page.getByRole("article", { name: "Observation write-answer" })).toBeVisible();
  await shot(page, testInfo, "graph-selected");
});

test("a 2 000-node graph is laid out off the main thread and drawn quickly", async ({ page }, testInfo) => {
  test.setTimeout(180_000);
  const traceId = hex(32);
  const count = 2000;
  const types = ["agent", "tool", "generation", "chain", "retriever"];
  const ids = Array.from({ length: count }, () => hex(16));
  const spans: SpanSpec[] = ids.map((id, i) => ({
    id,
    ...(i > 0 ? { parent: ids[Math.floor((i - 1) / 4)] as string } : {}),
    // Distinct names: no two calls merge, so the graph has 2 000 nodes.
    name: `step-${i}`,
    type: types[i % types.length] as string,
    startMs: i,
    endMs: i + 5,
  }));
  await send(page.request, traceId, spans, Date.now() - 3_600_000);
  await stored(page, traceId, count, 120_000);

  await page.goto(`/project/${loupe.projectId}/traces/${traceId}`);
  await expect(page.getByRole("tree", { name: "Trace tree" }).getByRole("treeitem").first()).toBeVisible();
  await page.evaluate(() => {
    const w = window as unknown as { longTasks: number[] };
    w.longTasks = [];
    new PerformanceObserver((list) => list.getEntries().forEach((e) => w.longTasks.push(e.duration))).observe({ type: "longtask", buffered: false });
  });
  const started = Date.now();
  await page.getByRole("group", { name: "Trace view" }).getByRole("button", { name: "Graph" }).click();
  const graph = page.getByRole("figure", { name: "Agent graph" });
  await expect(graph).toHaveAttribute("data-render-ms", /\d/, { timeout: 30_000 });
  const shown = Date.now() - started;
  const layoutMs = Number(await graph.getAttribute("data-layout-ms"));
  const renderMs = Number(await graph.getAttribute("data-render-ms"));
  const longest = await page.evaluate(() => Math.max(0, ...(window as unknown as { longTasks: number[] }).longTasks));
  await expect(graph).toContainText("2,000 nodes");
  // Too wide to read whole, it opens legible around the root; a node is clickable.
  await expect(graph.locator(".graph-node__name").first()).toBeVisible();
  await shot(page, testInfo, "two-thousand");
  await graph.getByRole("button", { name: /\bstep-0$/ }).click();
  await expect(page).toHaveURL(new RegExp(`observation=${ids[0]}`));
  // The whole graph: 2 000 boxes drawn at once.
  await page.evaluate(() => ((window as unknown as { longTasks: number[] }).longTasks = []));
  await graph.getByRole("button", { name: "Fit" }).click();
  await expect(graph.locator(".graph-node")).toHaveCount(count);
  const longestFit = await page.evaluate(() => Math.max(0, ...(window as unknown as { longTasks: number[] }).longTasks));
  console.log(
    `2 000-node graph: layout ${layoutMs} ms (worker), first frame ${renderMs} ms after it, ${shown} ms from the click (chunk load included); ` +
      `longest main-thread task ${Math.round(longest)} ms opening, ${Math.round(longestFit)} ms drawing all 2 000`,
  );
  await shot(page, testInfo, "two-thousand-fit");
  expect(renderMs).toBeLessThan(1000);
  expect(layoutMs).toBeLessThan(500);
});

test("a trace made public opens without an account until the link is turned off", async ({ page, browser }, testInfo) => {
  const { traceId, ids } = await agentTrace(page);
  await page.goto(`/project/${loupe.projectId}/traces/${traceId}`);
  const toggle = page.getByRole("switch", { name: "Public link" });
  await expect(toggle).not.toBeChecked();
  await toggle.click();
  await expect(toggle).toBeChecked();
  const address = page.getByRole("link", { name: "Public address" });
  await expect(address).toBeVisible();
  const href = (await address.getAttribute("href")) as string;
  expect(href).toMatch(/\/public\/[\w-]{43}$/);
  await shot(page, testInfo, "toggled-on");

  // A fresh context: no cookie, no session.
  const stranger = await browser.newContext();
  const outside = await stranger.newPage();
  await outside.goto(href);
  await expect(outside.getByText("A shared, read-only view")).toBeVisible();
  const tree = outside.getByRole("tree", { name: "Trace tree" });
  await expect(tree.getByRole("treeitem")).toHaveCount(9);
  await expect(outside.getByRole("article", { name: "Observation support-agent" })).toBeVisible();
  await tree.locator(`[data-observation-id="${ids.plan}"]`).click();
  await expect(outside.getByRole("article", { name: "Observation plan" })).toBeVisible();
  // Read-only: no scores or comments, no sign-in redirect.
  await expect(outside.getByRole("region", { name: "Scores" })).toHaveCount(0);
  await expect(outside).toHaveURL(new RegExp(`/public/.*observation=${ids.plan}`));
  await outside.getByRole("group", { name: "Trace view" }).getByRole("button", { name: "Graph" }).click();
  await expect(outside.getByRole("figure", { name: "Agent graph" }).getByRole("button", { name: /search-docs, 3 calls/ })).toBeVisible();
  await shot(outside, testInfo, "public-page");

  // Turned off: the address stops working at once.
  await page.getByRole("switch", { name: "Public link" }).click();
  await expect(page.getByRole("switch", { name: "Public link" })).not.toBeChecked();
  await expect(page.getByRole("link", { name: "Public address" })).toHaveCount(0);
  await outside.reload();
  await expect(outside.getByRole("heading", { name: "This link is not available" })).toBeVisible();
  const api = await stranger.request.get(`/api/ui/public/${href.split("/public/")[1]}`);
  expect(api.status()).toBe(404);
  await shot(outside, testInfo, "revoked");
  await stranger.close();
});

test("a session made public lists its traces and opens one, without an account", async ({ page, browser }, testInfo) => {
  const sessionId = `shared-${hex(8)}`;
  const [traceA, traceB] = [hex(32), hex(32)];
  const [rootA, rootB, tool] = [hex(16), hex(16), hex(16)];
  await send(page.request, traceA, [
    { id: rootA, name: "turn-1", type: "agent", session: sessionId, startMs: 0, endMs: 500 },
    { id: tool, parent: rootA, name: "lookup", type: "tool", session: sessionId, startMs: 10, endMs: 200 },
  ]);
  await send(page.request, traceB, [{ id: rootB, name: "turn-2", type: "agent", session: sessionId, startMs: 1000, endMs: 1500 }]);
  await stored(page, traceA, 2);
  await stored(page, traceB, 1);
  await page.goto(`/project/${loupe.projectId}/sessions/${sessionId}`);
  const toggle = page.getByRole("switch", { name: "Public link" });
  await toggle.click();
  await expect(toggle).toBeChecked();
  const href = (await page.getByRole("link", { name: "Public address" }).getAttribute("href")) as string;

  const stranger = await browser.newContext();
  const outside = await stranger.newPage();
  await outside.goto(href);
  await expect(outside.getByRole("heading", { name: sessionId })).toBeVisible();
  await expect(outside.getByRole("article", { name: /^Trace \d: turn-/ })).toHaveCount(2);
  await shot(outside, testInfo, "public-session");
  await outside.getByRole("link", { name: "turn-1" }).click();
  const tree = outside.getByRole("tree", { name: "Trace tree" });
  await expect(tree.getByRole("treeitem")).toHaveCount(2);
  await tree.locator(`[data-observation-id="${tool}"]`).click();
  await expect(outside.getByRole("article", { name: "Observation lookup" })).toBeVisible();
  await shot(outside, testInfo, "public-session-trace");
  await stranger.close();
  await toggle.click();
  await expect(toggle).not.toBeChecked();
});
