// Annotation queues: a queue with a categorical score config, two observations added (one from the
// trace panel's "Add to queue", one by id on the list page), worked through by keyboard in the
// work view, progress 2/2 on the list, and the scores on the observations.

import { request as http } from "@playwright/test";

import { basicAuth, hex, sendSpans as send, waitStored as stored } from "./otlp";
import { newViewer, PASSWORD } from "./people";
import { expect, loupe, shot, signIn, test } from "./support";

test.beforeEach(async ({ page }) => {
  await page.goto("/sign-in");
  await signIn(page, loupe.email, loupe.password);
  await expect(page).toHaveURL(`/project/${loupe.projectId}/observations`);
});

test("a queue is worked through by keyboard and its scores land on the observations", async ({ page }, testInfo) => {
  const traceId = hex(32);
  const [root, answer, lookup] = [hex(16), hex(16), hex(16)];
  await send(page.request, traceId, [
    { id: root, name: "support-agent", startMs: 0, endMs: 2000, type: "agent", input: "Where is my parcel?" },
    { id: answer, parent: root, name: "draft-answer", startMs: 100, endMs: 900, type: "generation", input: "Draft a reply about parcel 42" },
    { id: lookup, parent: root, name: "parcel-lookup", startMs: 1000, endMs: 1800, type: "tool", input: "parcel 42" },
  ]);
  const configName = `helpful-${hex(6).replace(/\d/g, "x")}`;
  const config = await page.request.post("/api/public/score-configs", {
    headers: { Authorization: basicAuth() },
    data: { name: configName, dataType: "CATEGORICAL", categories: [{ label: "helpful", value: 1 }, { label: "unhelpful", value: 0 }] },
  });
  expect(config.ok(), await config.text()).toBe(true);
  await stored(page, traceId, 3);

  // Create the queue with the config.
  const queueName = `Support replies ${hex(4)}`;
  await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Annotation" }).click();
  await expect(page).toHaveURL(`/project/${loupe.projectId}/annotation-queues`);
  await page.getByRole("button", { name: "New queue" }).click();
  const form = page.getByRole("form", { name: "New queue" });
  await form.getByLabel("Name").fill(queueName);
  await form.getByLabel("Description").fill("Is the draft reply helpful?");
  await form.getByRole("checkbox", { name: new RegExp(configName) }).check();
  await shot(page, testInfo, "new-queue");
  await form.getByRole("button", { name: "Create queue" }).click();
  const row = page.getByRole("row", { name: queueName });
  await expect(row).toContainText("0 / 0");

  // The first observation from the trace panel.
  await page.goto(`/project/${loupe.projectId}/traces/${traceId}?observation=${answer}`);
  await expect(page.getByRole("article", { name: "Observation draft-answer" })).toBeVisible();
  await page.getByRole("button", { name: "Add to queue" }).click();
  await page.getByRole("menuitem", { name: queueName }).click();
  await expect(page.getByRole("status").filter({ hasText: `Added to ${queueName}` })).toBeVisible();
  await shot(page, testInfo, "added-from-trace");

  // The second by id on the list page.
  await page.goto(`/project/${loupe.projectId}/annotation-queues`);
  await row.getByRole("button", { name: "Add item" }).click();
  const add = page.getByRole("form", { name: `Add an item to ${queueName}` });
  await add.getByLabel("Object id").fill(lookup);
  await add.getByRole("button", { name: "Add" }).click();
  await expect(add).toContainText(`Added ${lookup}`);
  await expect(row).toContainText("0 / 2");
  await shot(page, testInfo, "list-before");

  // Work through both by keyboard: 1 = helpful then Enter; 2 = unhelpful then c.
  await row.getByRole("link", { name: "Annotate" }).click();
  await expect(page).toHaveURL(new RegExp(`/annotation-queues/[^/]+/work$`));
  const queueId = decodeURIComponent(new URL(page.url()).pathname.split("/").at(-2) ?? "");
  await expect(page.getByRole("article", { name: "Observation draft-answer" })).toBeVisible();
  await expect(page.getByText("0 / 2 completed")).toBeVisible();
  await page.keyboard.press("1");
  await expect(page.getByLabel(configName)).toHaveValue("helpful");
  await shot(page, testInfo, "work-first");
  await page.keyboard.press("Enter");
  await expect(page.getByRole("article", { name: "Observation parcel-lookup" })).toBeVisible();
  await expect(page.getByText("1 / 2 completed")).toBeVisible();
  await page.keyboard.press("2");
  await expect(page.getByLabel(configName)).toHaveValue("unhelpful");
  await page.keyboard.press("c");
  await expect(page.getByText("Nothing left for you in this queue")).toBeVisible();
  await expect(page.getByText("2 / 2 completed")).toBeVisible();
  await shot(page, testInfo, "work-done");

  // Progress on the list, with the annotator.
  await page.getByRole("link", { name: "Back to the queues" }).click();
  await expect(row).toContainText("2 / 2");
  await expect(row).toContainText("First User");
  await shot(page, testInfo, "list-after");

  // The scores, written as the person, on the observations.
  for (const [id, name, value] of [
    [answer, "draft-answer", "helpful"],
    [lookup, "parcel-lookup", "unhelpful"],
  ] as const) {
    await page.goto(`/project/${loupe.projectId}/traces/${traceId}?observation=${id}`);
    const scores = page.getByRole("article", { name: `Observation ${name}` }).getByRole("region", { name: "Scores" });
    await expect(async () => {
      await page.reload();
      await expect(scores).toContainText(value, { timeout: 2_000 });
    }).toPass({ timeout: 60_000 });
    await expect(scores).toContainText(configName);
    await expect(scores).toContainText("You");
  }
  await shot(page, testInfo, "score-on-observation");

  // The scores carry the queue's id.
  const scores = await page.request.get(`/api/public/v3/scores?traceId=${traceId}&queueId=${queueId}&fields=subject,annotation`, {
    headers: { Authorization: basicAuth() },
  });
  expect(scores.ok(), await scores.text()).toBe(true);
  const { data } = (await scores.json()) as { data: { queueId: string | null; subject: { id?: string | null } }[] };
  expect(data.map((s) => [s.subject.id, s.queueId]).sort()).toEqual([answer, lookup].sort().map((id) => [id, queueId]));
});

test("a viewer sees the queues and their progress but cannot change or work them", async ({ page, baseURL }, testInfo) => {
  // The owner makes a queue and adds a new person to the organization as a VIEWER.
  const owner = await http.newContext({ baseURL: baseURL as string });
  const signedIn = await owner.post("/api/ui/auth/sign-in", { data: { email: loupe.email, password: loupe.password } });
  const csrf = { "X-CSRF-Token": ((await signedIn.json()) as { csrfToken: string }).csrfToken };
  const config = await owner.post("/api/public/score-configs", {
    headers: { ...csrf, "X-Loupe-Project": loupe.projectId },
    data: { name: `viewer-${hex(6).replace(/\d/g, "x")}`, dataType: "BOOLEAN" },
  });
  expect(config.ok(), await config.text()).toBe(true);
  const queueName = `Read only ${hex(4)}`;
  const queue = await owner.post("/api/public/annotation-queues", {
    headers: { ...csrf, "X-Loupe-Project": loupe.projectId },
    data: { name: queueName, scoreConfigIds: [((await config.json()) as { id: string }).id] },
  });
  expect(queue.ok(), await queue.text()).toBe(true);
  const queueId = ((await queue.json()) as { id: string }).id;
  const email = await newViewer(owner, "viewer", baseURL as string, loupe.projectId);
  await owner.dispose();

  await page.context().clearCookies();
  await page.goto("/sign-in");
  await signIn(page, email, PASSWORD);
  await expect(page).toHaveURL(/\/project\//);
  await page.goto(`/project/${loupe.projectId}/annotation-queues`);
  const row = page.getByRole("row", { name: queueName });
  await expect(row).toContainText("0 / 0");
  await expect(page.getByRole("button", { name: "New queue" })).toHaveCount(0);
  await expect(row.getByRole("button", { name: "Add item" })).toHaveCount(0);
  await expect(row.getByRole("link", { name: "Annotate" })).toHaveCount(0);
  await shot(page, testInfo, "viewer-list");
  await page.goto(`/project/${loupe.projectId}/annotation-queues/${queueId}/work`);
  await expect(page.getByText("Your role on this project can read the queue but not annotate it.")).toBeVisible();
});
