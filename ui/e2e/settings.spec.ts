// Project and organization settings: an owner creates an API key (the secret shown once works
// against the public API) and deletes it, invites someone by email and changes their project role,
// creates a score config and a custom model, reads it all back in the organization's audit log,
// and switches project from the header. The invited person then signs up and sees the pages
// read-only.

import { request as http } from "@playwright/test";

import { expect, freshEmail, loupe, shot, signIn, test } from "./support";
import { PASSWORD } from "./people";

// The second test signs up as the person the first one invites.
test.describe.configure({ mode: "serial" });
const invited = freshEmail("invited");

test("an owner manages keys, members, score configs and models, and reads the audit log", async ({ page, baseURL }, testInfo) => {
  test.setTimeout(90_000);
  await page.goto("/sign-in");
  await signIn(page, loupe.email, loupe.password);
  await expect(page).toHaveURL(`/project/${loupe.projectId}/observations`);
  await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Settings" }).click();
  await expect(page).toHaveURL(`/project/${loupe.projectId}/settings`);
  await expect(page.getByRole("heading", { name: "Project settings", level: 1 })).toBeVisible();
  await expect(page.getByLabel("Project name")).toHaveValue(loupe.projectName);

  // A new key: the secret is shown once, with the .env lines, and works.
  const keys = page.getByRole("region", { name: "API keys" });
  await keys.getByLabel("Note (optional)").fill("from the browser test");
  await keys.getByRole("button", { name: "Create API key" }).click();
  const dialog = page.getByRole("dialog", { name: "API key created" });
  await expect(dialog).toBeVisible();
  const publicKey = (await dialog.getByLabel("Public key", { exact: true }).textContent())!;
  const secretKey = (await dialog.getByLabel("Secret key", { exact: true }).textContent())!;
  expect(publicKey).toMatch(/^pk-lf-/);
  expect(secretKey).toMatch(/^sk-lf-/);
  await expect(dialog.getByLabel("Environment variables", { exact: true })).toHaveText(
    `LANGFUSE_PUBLIC_KEY=${publicKey}\nLANGFUSE_SECRET_KEY=${secretKey}\nLANGFUSE_BASE_URL=${new URL(baseURL!).origin}`,
  );
  await expect(dialog.getByRole("button", { name: "Copy secret key" })).toBeVisible();
  await shot(page, testInfo, "key-created");
  const client = await http.newContext({ baseURL, httpCredentials: { username: publicKey, password: secretKey, send: "always" } });
  const projects = await client.get("/api/public/projects");
  expect(projects.status()).toBe(200);
  expect((await projects.json()).data[0].id).toBe(loupe.projectId);
  await dialog.getByRole("button", { name: "Done" }).click();
  await expect(dialog).toBeHidden();
  const row = keys.getByRole("row").filter({ hasText: publicKey });
  await expect(row).toContainText("from the browser test");
  expect(await page.content()).not.toContain(secretKey);

  // Deleting asks first; the key is refused afterwards.
  await row.getByRole("button", { name: `Delete key ${publicKey}` }).click();
  const confirm = page.getByRole("dialog", { name: "Delete API key?" });
  await confirm.getByRole("button", { name: "Delete key" }).click();
  await expect(confirm).toBeHidden();
  await expect(keys.getByRole("row").filter({ hasText: publicKey })).toHaveCount(0);
  await expect.poll(async () => (await client.get("/api/public/projects")).status()).toBe(401);
  await client.dispose();

  // Invite an address without an account as a VIEWER, then make them a MEMBER of the project.
  const members = page.getByRole("region", { name: "Members" });
  await members.getByLabel("Invite by email").fill(invited);
  await members.getByRole("combobox", { name: "Role of the invited person" }).selectOption("VIEWER");
  await members.getByRole("button", { name: "Invite" }).click();
  await expect(members.getByRole("status")).toContainText("when they sign up");
  const person = members.getByRole("row").filter({ hasText: invited });
  await expect(person).toContainText("invited");
  await expect(person.getByRole("cell").nth(4)).toHaveText("VIEWER");
  await person.getByRole("combobox", { name: `Project role of ${invited}` }).selectOption("MEMBER");
  await expect(person.getByRole("cell").nth(4)).toHaveText("MEMBER");

  // A numeric score config and a custom model.
  const configs = page.getByRole("region", { name: "Score configs" });
  const configName = `helpfulness ${Date.now() % 100000}`;
  await configs.getByLabel("Name").fill(configName);
  await configs.getByLabel("Minimum").fill("0");
  await configs.getByLabel("Maximum").fill("1");
  await configs.getByRole("button", { name: "Create score config" }).click();
  await expect(configs.getByRole("row").filter({ hasText: configName })).toContainText("0 … 1");

  const models = page.getByRole("region", { name: "Models and prices" });
  const modelName = `my-finetune-${Date.now() % 100000}`;
  await models.getByLabel("Model name").fill(modelName);
  await models.getByLabel("Match pattern").fill(`(?i)^${modelName}$`);
  await models.getByLabel("Price 1").fill("0.000001");
  await models.getByLabel("Price 2").fill("0.000002");
  await models.getByRole("button", { name: "Create model" }).click();
  const model = models.getByRole("row").filter({ hasText: modelName });
  await expect(model).toContainText("custom");
  await expect(model).toContainText("input $0.000001");
  await shot(page, testInfo, "project-settings");

  // The organization's settings show what was done, newest first.
  await page.getByRole("button", { name: /^Account:/ }).click();
  await page.getByRole("menuitem", { name: "Organization settings" }).click();
  await expect(page).toHaveURL(/\/organization\/[^/]+\/settings$/);
  const audit = page.getByRole("table", { name: "Audit log" });
  await expect(audit.locator("tbody tr").first()).toContainText("projectMembership.update");
  const actions = await audit.locator("tbody tr td:nth-child(2)").allTextContents();
  const ours = actions.slice(0, 4);
  expect(ours).toEqual(["projectMembership.update", "projectMembership.invite", "apiKey.delete", "apiKey.create"]);
  await audit.scrollIntoViewIfNeeded();
  await shot(page, testInfo, "organization-settings");

  // A second project, then back to the first from the header switcher, keeping the page.
  await page.getByLabel("New project name").fill(`second ${Date.now() % 100000}`);
  await page.getByRole("button", { name: "Create project" }).click();
  await expect(page).toHaveURL(/\/project\/[^/]+\/settings$/);
  expect(page.url()).not.toContain(loupe.projectId);
  await page.getByRole("combobox", { name: "Project", exact: true }).selectOption(loupe.projectId);
  await expect(page).toHaveURL(`/project/${loupe.projectId}/settings`);
  await expect(page.getByLabel("Project name")).toHaveValue(loupe.projectName);
  // Remembered for the next sign-in, which lands on it (the shell's tests expect this project).
  await expect
    .poll(async () => {
      const me = await (await page.request.get("/api/ui/me")).json();
      return (me as { preferences?: { lastProjectId?: string } }).preferences?.lastProjectId;
    })
    .toBe(loupe.projectId);
});

test("the invited person signs up and sees the settings without buttons", async ({ page }, testInfo) => {
  await page.goto("/sign-up");
  await page.getByLabel("Email").fill(invited);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign up" }).click();
  await expect(page).toHaveURL(new RegExp(`/project/${loupe.projectId}/`));
  await page.goto(`/project/${loupe.projectId}/settings`);
  await expect(page.getByText("Your role on this project: MEMBER")).toBeVisible();
  await expect(page.getByRole("button", { name: "Create API key" })).toHaveCount(0);
  await expect(page.getByText("Only owners and admins see and manage API keys.")).toBeVisible();
  await expect(page.getByRole("button", { name: "Invite", exact: true })).toHaveCount(0);
  await expect(page.getByRole("region", { name: "Danger zone" })).toHaveCount(0);
  await expect(page.getByRole("table", { name: "Project members" })).toContainText(invited);
  // MEMBER writes project data: score configs and models.
  await expect(page.getByRole("button", { name: "Create score config" })).toBeVisible();
  await shot(page, testInfo, "member-view");
});
