// The trace panel: a trace sent over OTLP with the bootstrap key, opened on its own page, walked
// with j/k, scored and commented (added, edited, deleted), a large input shown as a preview and
// then in full, and the time a 10 000-observation trace takes to open.

import type { Page } from "@playwright/test";

import { basicAuth, hex, sendSpans as send, waitStored as stored, type SpanSpec } from "./otlp";
import { expect, loupe, shot, signIn, test } from "./support";

function selectedNode(page: Page) {
  return page.getByRole("tree", { name: "Trace tree" }).locator('[role="treeitem"][aria-selected="true"]');
}

test.beforeEach(async ({ page }) => {
  await page.goto("/sign-in");
  await signIn(page, loupe.email, loupe.password);
  await expect(page).toHaveURL(`/project/${loupe.projectId}/observations`);
});

test("a trace is walked with j/k, scored and commented", async ({ page }, testInfo) => {
  const traceId = hex(32);
  const [root, llm, tool, search, answer] = [hex(16), hex(16), hex(16), hex(16), hex(16)];
  const messages = [
    { role: "system", content: "You answer questions about cats." },
    { role: "user", content: "How many legs does a cat have?" },
  ];
  await send(page.request, traceId, [
    { id: root, name: "agent-run", startMs: 0, endMs: 2400, attributes: { "langfuse.observation.type": "agent" } },
    {
      id: llm,
      parent: root,
      name: "plan-with-llm",
      startMs: 100,
      endMs: 1300,
      attributes: {
        "langfuse.observation.type": "generation",
        "langfuse.observation.model.name": "gpt-4o",
        "langfuse.observation.input": JSON.stringify(messages),
        "langfuse.observation.output": JSON.stringify({ role: "assistant", content: "A cat has **four** legs." }),
        "langfuse.observation.usage_details": JSON.stringify({ input: 30, output: 12 }),
        "langfuse.observation.model.parameters": JSON.stringify({ temperature: 0.2 }),
      },
    },
    { id: tool, parent: root, name: "search-tool", startMs: 1400, endMs: 2000, attributes: { "langfuse.observation.type": "tool" } },
    { id: search, parent: tool, name: "index-lookup", startMs: 1500, endMs: 1900, attributes: { "langfuse.observation.metadata.index": "cats" } },
    { id: answer, parent: root, name: "final-answer", startMs: 2100, endMs: 2300, attributes: { "langfuse.observation.type": "event" } },
  ]);
  const configName = `quality-${hex(6).replace(/\d/g, "x")}`;
  const config = await page.request.post("/api/public/score-configs", {
    headers: { Authorization: basicAuth() },
    data: { name: configName, dataType: "NUMERIC", minValue: 0, maxValue: 10 },
  });
  expect(config.ok(), await config.text()).toBe(true);
  await stored(page, traceId, 5);

  await page.goto(`/project/${loupe.projectId}/traces/${traceId}`);
  const tree = page.getByRole("tree", { name: "Trace tree" });
  await expect(tree.getByRole("treeitem")).toHaveCount(5);
  await expect(selectedNode(page)).toHaveAttribute("data-observation-id", root);
  await expect(page.getByRole("article", { name: "Observation agent-run" })).toBeVisible();
  await shot(page, testInfo, "root");

  // j/k walk the tree in display order; the selection is in the URL.
  await page.keyboard.press("j");
  await expect(page).toHaveURL(new RegExp(`observation=${llm}`));
  await expect(page.getByRole("article", { name: "Observation plan-with-llm" })).toBeVisible();
  const conversation = page.getByRole("region", { name: "Input" }).getByRole("list", { name: "Conversation" });
  await expect(conversation).toContainText("How many legs does a cat have?");
  await expect(page.getByRole("region", { name: "Output" }).locator("strong")).toHaveText("four");
  await shot(page, testInfo, "generation");
  await page.emulateMedia({ colorScheme: "dark" });
  await shot(page, testInfo, "generation-dark");
  await page.emulateMedia({ colorScheme: "light" });
  await page.keyboard.press("j");
  await expect(selectedNode(page)).toHaveAttribute("data-observation-id", tool);
  await page.keyboard.press("j");
  await expect(selectedNode(page)).toHaveAttribute("data-observation-id", search);
  await page.keyboard.press("k");
  await page.keyboard.press("k");
  await page.keyboard.press("k");
  await expect(selectedNode(page)).toHaveAttribute("data-observation-id", root);
  await expect(page).toHaveURL(new RegExp(`observation=${root}`));

  // A score on the root is the trace's: added, edited, deleted by its author.
  const scores = page.getByRole("region", { name: "Scores" });
  await scores.getByLabel("Score config").selectOption({ label: configName });
  await scores.getByLabel(/^Value/).fill("7");
  await scores.getByLabel("Score comment").fill("solid plan");
  await scores.getByRole("button", { name: "Add score" }).click();
  const chip = scores.locator(".score-list__item").filter({ hasText: configName });
  await expect(chip.locator(".score-chip__value")).toHaveText("7");
  await expect(chip).not.toContainText("saving", { timeout: 30_000 });
  await expect(chip).toContainText("You");
  await scores.getByRole("button", { name: `Edit score ${configName}` }).click();
  await scores.getByLabel(`Value of ${configName}`).fill("9");
  await scores.getByRole("button", { name: "Save score" }).click();
  await expect(chip.locator(".score-chip__value")).toHaveText("9");
  await expect(chip).not.toContainText("saving", { timeout: 30_000 });

  const comments = page.getByRole("region", { name: "Comments" });
  await comments.getByRole("textbox", { name: "Add a comment" }).fill("The plan **looks** right");
  await comments.getByRole("button", { name: "Add comment" }).click();
  await expect(comments.locator(".comment-list__item strong", { hasText: "looks" })).toBeVisible();
  await scores.scrollIntoViewIfNeeded();
  await shot(page, testInfo, "scored-and-commented");
  await comments.getByRole("button", { name: "Edit comment" }).click();
  await comments.getByRole("textbox", { name: "Edit comment" }).fill("The plan is right");
  await comments.getByRole("button", { name: "Save comment" }).click();
  await expect(comments).toContainText("The plan is right");
  await expect(comments).toContainText("edited");
  await comments.getByRole("button", { name: "Delete comment" }).click();
  await comments.getByRole("button", { name: "Confirm: Delete comment" }).click();
  await expect(comments).toContainText("No comments yet.");

  await scores.getByRole("button", { name: `Delete score ${configName}` }).click();
  await scores.getByRole("button", { name: `Confirm: Delete score ${configName}` }).click();
  await expect(scores).toContainText("No scores yet.", { timeout: 30_000 });

  // Esc closes the panel.
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.keyboard.press("Escape");
  await expect(page).toHaveURL(`/project/${loupe.projectId}/observations`);
});

test("a large input shows a preview at once and the full value on request", async ({ page }, testInfo) => {
  const traceId = hex(32);
  const [root, llm] = [hex(16), hex(16)];
  const long = "The quick brown fox jumps over the lazy dog. ".repeat(45_000); // ~2 MB
  const input = JSON.stringify([
    { role: "user", content: long },
    { role: "assistant", content: "THE-END-MARKER" },
  ]);
  await send(page.request, traceId, [
    { id: root, name: "big-run", startMs: 0, endMs: 1000 },
    { id: llm, parent: root, name: "big-llm", startMs: 10, endMs: 900, attributes: { "langfuse.observation.type": "generation", "langfuse.observation.input": input } },
  ]);
  await stored(page, traceId, 2);
  await page.goto(`/project/${loupe.projectId}/traces/${traceId}?observation=${llm}`);
  const region = page.getByRole("region", { name: "Input" });
  await expect(region).toContainText(/Showing the first 65,536 characters of 1\.9 MiB/);
  await expect(region).not.toContainText("THE-END-MARKER");
  await shot(page, testInfo, "preview");

  // Long tasks on the main thread while the full value loads: the worker parses it.
  await page.evaluate(() => {
    const w = window as unknown as { longTasks: number[] };
    w.longTasks = [];
    new PerformanceObserver((list) => list.getEntries().forEach((e) => w.longTasks.push(e.duration))).observe({ type: "longtask", buffered: false });
  });
  await region.getByRole("button", { name: /^Show full value/ }).click();
  await expect(region.getByRole("list", { name: "Conversation" })).toContainText("THE-END-MARKER", { timeout: 30_000 });
  await expect(region.getByRole("button", { name: /^Show more/ })).toBeVisible();
  const longest = await page.evaluate(() => Math.max(0, ...(window as unknown as { longTasks: number[] }).longTasks));
  console.log(`full 2 MB value: longest main-thread task ${Math.round(longest)} ms`);
  expect(longest).toBeLessThan(1000);
  await shot(page, testInfo, "full-value");
});

test("a 10 000-observation trace opens in a second", async ({ page }, testInfo) => {
  test.setTimeout(180_000);
  const traceId = hex(32);
  const count = 10_000;
  const ids = Array.from({ length: count }, () => hex(16));
  const base = Date.now() - 3_600_000;
  for (let from = 0; from < count; from += 2_500) {
    const spans: SpanSpec[] = [];
    for (let i = from; i < Math.min(count, from + 2_500); i++) {
      const parent = i === 0 ? undefined : ids[Math.floor((i - 1) / 10)];
      spans.push({ id: ids[i] as string, ...(parent ? { parent } : {}), name: `step-${i % 17}`, startMs: i, endMs: i + 5 });
    }
    await send(page.request, traceId, spans, base);
  }
  await stored(page, traceId, count, 150_000);

  const started = Date.now();
  await page.goto(`/project/${loupe.projectId}/traces/${traceId}`);
  await expect(page.getByRole("tree", { name: "Trace tree" }).getByRole("treeitem").first()).toBeVisible();
  const firstRows = Date.now() - started;
  const server = await page.evaluate(() => {
    const entry = performance.getEntriesByType("resource").find((e) => e.name.includes("/tree?")) as PerformanceResourceTiming | undefined;
    return entry ? { wait: entry.responseStart - entry.requestStart, total: entry.responseEnd - entry.startTime, bytes: entry.encodedBodySize } : null;
  });
  console.log(`10 000-observation trace: first rows after ${firstRows} ms (navigation included); tree route ${JSON.stringify(server)}`);
  await expect(page.getByText("10,000 observations")).toBeVisible();
  await shot(page, testInfo, "ten-thousand");
  // The last node in display order (the last child of the last child…) is reachable: End in the tree.
  let last = 0;
  while (last * 10 + 10 < count) last = last * 10 + 10;
  await page.getByRole("tree", { name: "Trace tree" }).focus();
  await page.keyboard.press("End");
  await expect(selectedNode(page)).toHaveAttribute("data-observation-id", ids[last] as string);
  expect(firstRows).toBeLessThan(3000);
});
