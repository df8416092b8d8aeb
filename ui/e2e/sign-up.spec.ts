import { expect, freshEmail, loupe, shot, test } from "./support";

test("a new person signs up, creates an organization and a project, and lands in it", async ({ page }, testInfo) => {
  await page.goto("/");
  await page.getByRole("link", { name: "Sign up" }).click();
  await expect(page).toHaveURL("/sign-up");
  await expect(page.getByRole("heading", { name: "Create your Loupe account" })).toBeVisible();

  // An address that has an account already is refused at the form.
  await page.getByLabel("Email").fill(loupe.email);
  await page.getByLabel("Password").fill("a long enough password");
  await page.getByRole("button", { name: "Sign up" }).click();
  await expect(page.getByRole("alert")).toBeVisible();
  await shot(page, testInfo, "sign-up-taken");

  const email = freshEmail("sign-up");
  await page.getByLabel("Name").fill("Grace Hopper");
  await page.getByLabel("Email").fill(email);
  await page.getByRole("button", { name: "Sign up" }).click();

  // No project yet: the empty state offers to create one.
  await expect(page).toHaveURL("/setup");
  await expect(page.getByRole("heading", { name: "Create your first project" })).toBeVisible();
  await shot(page, testInfo, "setup");
  await page.getByRole("button", { name: "Create project" }).click();
  await expect(page.getByRole("alert")).toHaveText("Name the organization and the project.");

  await page.getByLabel("Organization name").fill("Hopper Labs");
  await page.getByLabel("Project name").fill("Compiler traces");
  await page.getByRole("button", { name: "Create project" }).click();
  await expect(page).toHaveURL(/\/project\/[^/]+\/observations$/);
  await expect(page.getByRole("heading", { name: "Compiler traces", level: 1 })).toBeVisible();
  await expect(page.getByRole("combobox", { name: "Project" })).toHaveValue(page.url().split("/")[4]!);
  await shot(page, testInfo, "first-project");

  // The new person sees only their own organization, not the bootstrap project.
  const options = await page.getByRole("combobox", { name: "Project" }).locator("option").allTextContents();
  expect(options).toEqual(["Compiler traces"]);
});
