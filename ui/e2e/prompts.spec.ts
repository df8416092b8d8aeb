// The prompts pages: a prompt created through the UI (its config checked before it is sent), a
// second version, the diff of the two, the production label moved; a chat prompt in a folder that
// references another prompt, resolved and raw; and a VIEWER who sees none of the write buttons.

import type { APIRequestContext, Page } from "@playwright/test";

import { newViewer, PASSWORD } from "./people";
import { expect, loupe, shot, signIn, test } from "./support";

const basic = () => `Basic ${Buffer.from(`${loupe.publicKey}:${loupe.secretKey}`).toString("base64")}`;

/** Prompts made with the bootstrap key: a base text and, in a folder, a chat prompt referencing it. */
async function seed(request: APIRequestContext, run: string) {
  const create = async (data: unknown) => {
    const answer = await request.post("/api/public/v2/prompts", { headers: { Authorization: basic() }, data });
    expect(answer.status(), await answer.text()).toBe(201);
  };
  await create({ name: `base-${run}`, prompt: "You are a kind support agent.", labels: ["production"] });
  await create({
    name: `team-${run}/support/answer`,
    type: "chat",
    prompt: [
      { role: "system", content: `@@@langfusePrompt:name=base-${run}|label=production@@@ Answer briefly.` },
      { type: "placeholder", name: "history" },
      { role: "user", content: "{{question}}" },
    ],
    config: { model: "gpt-4o-mini", temperature: 0 },
    labels: ["production"],
    tags: ["support"],
  });
}

function versionRow(page: Page, version: number) {
  return page.getByRole("table", { name: "Versions" }).getByRole("row").filter({ has: page.getByRole("cell", { name: `v${version}`, exact: true }) });
}

test("a prompt: created in the UI, a second version, their diff, the production label moved, a folder", async ({ page, request }, testInfo) => {
  const run = Math.random().toString(36).slice(2, 7);
  const name = `greeting-${run}`;
  await seed(request, run);

  await page.goto("/sign-in");
  await signIn(page, loupe.email, loupe.password);
  await expect(page).toHaveURL(`/project/${loupe.projectId}/observations`);
  await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Prompts" }).click();
  await expect(page.getByRole("heading", { name: "Prompts", level: 1 })).toBeVisible();
  const list = page.getByRole("table", { name: "Prompts" });
  await expect(list.getByRole("row").filter({ hasText: `team-${run}/` })).toBeVisible();

  // A new prompt: the config is checked before anything is sent.
  await page.getByRole("button", { name: "New prompt" }).click();
  await expect(page.getByRole("heading", { name: "New prompt", level: 1 })).toBeVisible();
  await page.getByLabel("Name").fill(name);
  await page.getByLabel("Prompt", { exact: true }).fill("Hello {{name}}.\nHow can I help?");
  await page.getByLabel("Config (JSON)").fill('{"temperature": 0.2,');
  await page.getByRole("button", { name: "Create prompt" }).click();
  await expect(page.getByText(/^Not valid JSON/)).toBeVisible();
  await shot(page, testInfo, "new-invalid-config");
  await page.getByLabel("Config (JSON)").fill('{"temperature": 0.2}');
  await page.getByLabel("Commit message").fill("first draft");
  await page.getByRole("button", { name: "Create prompt" }).click();
  await expect(page).toHaveURL(`/project/${loupe.projectId}/prompts/${name}`);
  await expect(page.getByRole("heading", { name, level: 1 })).toBeVisible();
  await expect(versionRow(page, 1)).toContainText("production");
  await expect(page.getByLabel("Prompt text")).toHaveText("Hello {{name}}.\nHow can I help?");

  // A second version, from the first.
  await page.getByRole("button", { name: "New version" }).click();
  const text = page.getByLabel("Prompt", { exact: true });
  await expect(text).toHaveValue("Hello {{name}}.\nHow can I help?");
  await text.fill("Hello {{name}}!\nHow can I help?\nI am listening.");
  await page.getByLabel("Config (JSON)").fill('{"temperature": 0.7}');
  await page.getByLabel("Commit message").fill("warmer");
  await page.getByRole("button", { name: "Save version" }).click();
  await expect(page).toHaveURL(/[?&]version=2/);
  await expect(versionRow(page, 2)).toContainText("latest");
  await expect(versionRow(page, 2)).toContainText("warmer");
  await expect(versionRow(page, 1)).toContainText("production");

  // The diff of the two: each changed line, the config too.
  await page.getByRole("tab", { name: "Diff" }).click();
  const diff = page.getByRole("region", { name: "Diff" });
  await expect(diff).toContainText("from version 1 to version 2 · 2 parts changed");
  await expect(diff.locator(".prompts__diff-line--removed")).toHaveText(["1−Hello {{name}}.", '2−  "temperature": 0.2']);
  await expect(diff.locator(".prompts__diff-line--added")).toHaveText(["1+Hello {{name}}!", "3+I am listening.", '2+  "temperature": 0.7']);
  await shot(page, testInfo, "diff");

  // The production label moves to version 2.
  await page.getByRole("tab", { name: "Resolved" }).click();
  await page.getByLabel("Move labels to version 2").fill("production");
  await page.getByRole("button", { name: "Move here" }).click();
  await expect(versionRow(page, 2)).toContainText("production");
  await expect(versionRow(page, 1)).not.toContainText("production");
  const served = await request.get(`/api/public/v2/prompts/${name}`, { headers: { Authorization: basic() } });
  expect((await served.json()).version).toBe(2);
  await shot(page, testInfo, "labels-moved");

  // A prompt in a folder: through the folders, its chat messages resolved, then raw.
  await page.getByRole("navigation", { name: "Folder" }).getByRole("link", { name: "Prompts" }).click();
  await page.getByRole("link", { name: `team-${run}/` }).click();
  await expect(page).toHaveURL(new RegExp(`folder=team-${run}$`));
  await page.getByRole("link", { name: "support/" }).click();
  await expect(page.getByRole("navigation", { name: "Folder" })).toContainText(`Prompts / team-${run} / support`);
  await shot(page, testInfo, "folder");
  await page.getByRole("link", { name: "answer" }).click();
  await expect(page).toHaveURL(`/project/${loupe.projectId}/prompts/team-${run}/support/answer`);
  const messages = page.getByRole("list", { name: "Chat messages" });
  await expect(messages.getByRole("listitem").first()).toContainText("You are a kind support agent. Answer briefly.");
  await expect(messages.getByRole("listitem").nth(1)).toContainText("{{history}}");
  await expect(page.getByText(`Resolved: references replaced by base-${run} v1.`)).toBeVisible();
  await shot(page, testInfo, "resolved");
  await page.getByRole("tab", { name: "Raw" }).click();
  await expect(messages.getByRole("listitem").first()).toContainText(`@@@langfusePrompt:name=base-${run}|label=production@@@ Answer briefly.`);
  await shot(page, testInfo, "raw");
  await page.emulateMedia({ colorScheme: "dark" });
  await shot(page, testInfo, "raw-dark");
  await page.emulateMedia({ colorScheme: "light" });
  // The reference links to the prompt it names.
  await page.getByRole("link", { name: `@@@langfusePrompt:name=base-${run}|label=production@@@` }).click();
  await expect(page.getByRole("heading", { name: `base-${run}`, level: 1 })).toBeVisible();
});

test("a VIEWER reads prompts but sees no button that changes them", async ({ page, browser, baseURL }, testInfo) => {
  const run = Math.random().toString(36).slice(2, 7);
  await seed(page.request, run);
  await page.goto("/sign-in");
  await signIn(page, loupe.email, loupe.password);
  await expect(page).toHaveURL(`/project/${loupe.projectId}/observations`);
  // Someone new signs up; the owner makes them a VIEWER of the project's organization.
  const email = await newViewer(page, "prompt-viewer", baseURL!, loupe.projectId);

  const context = await browser.newContext();
  const viewer = await context.newPage();
  await viewer.goto("/sign-in");
  await signIn(viewer, email, PASSWORD);
  await expect(viewer.getByRole("button", { name: /^Account/ })).toBeVisible();
  await viewer.goto(`/project/${loupe.projectId}/prompts?folder=team-${run}/support`);
  await expect(viewer.getByRole("table", { name: "Prompts" }).getByRole("row").filter({ hasText: "answer" })).toBeVisible();
  await expect(viewer.getByRole("button", { name: "New prompt" })).toHaveCount(0);
  await viewer.getByRole("link", { name: "answer" }).click();
  await expect(viewer.getByRole("list", { name: "Chat messages" })).toBeVisible();
  await expect(viewer.getByRole("button", { name: "New version" })).toHaveCount(0);
  await expect(viewer.getByRole("button", { name: "Move here" })).toHaveCount(0);
  await shot(viewer, testInfo, "viewer");
  await context.close();
});
