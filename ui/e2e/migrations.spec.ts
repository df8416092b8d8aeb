// The background migrations page (instance admins): the Rust test failed one step on purpose
// before the suite started (LOUPE_FAILED_MIGRATION); its error shows and Retry makes it pending.
// Everyone else gets the "not allowed" page.

import { env, expect, loupe, shot, signIn, test } from "./support";
import { PASSWORD, someoneNew } from "./people";

test("the first user sees every migration step, a failed one's error, and retries it", async ({ page }, testInfo) => {
  const failed = env("LOUPE_FAILED_MIGRATION");
  await page.goto("/sign-in");
  await signIn(page, loupe.email, loupe.password);
  await page.getByRole("link", { name: "Background migrations" }).click();
  await expect(page).toHaveURL("/background-migrations");
  await expect(page.getByRole("heading", { name: "Background migrations", level: 1 })).toBeVisible();
  await expect(page.getByText("Refreshes every 3 s")).toBeVisible();

  const steps = page.getByRole("list", { name: "Migration steps" }).getByRole("article");
  await expect(steps).toHaveCount(5);
  const step = page.getByRole("article", { name: failed });
  await expect(step.getByText("Failed", { exact: true })).toBeVisible();
  await expect(step.getByRole("alert")).toContainText("simulated by the browser tests");
  await expect(step.getByRole("progressbar", { name: `Progress of ${failed}` })).toBeVisible();
  await step.scrollIntoViewIfNeeded();
  await shot(page, testInfo, "migrations-failed");

  await step.getByRole("button", { name: `Retry ${failed}` }).click();
  // Pending at once; the worker's next pass (at most a minute later) may already have run it again.
  await expect(step.getByText(/^(Pending|Running|Succeeded)$/)).toBeVisible();
  await expect(step.getByRole("button", { name: `Retry ${failed}` })).toBeHidden();
  await shot(page, testInfo, "migrations-retried");
  await page.emulateMedia({ colorScheme: "dark" });
  await shot(page, testInfo, "migrations-dark");
});

test("a person who is not an instance admin is told the page is not for them", async ({ page, baseURL }, testInfo) => {
  const email = await someoneNew("not-admin", baseURL!);
  await page.goto("/sign-in");
  await signIn(page, email, PASSWORD);
  await expect(page).toHaveURL("/setup");
  await expect(page.getByRole("link", { name: "Background migrations" })).toHaveCount(0);
  await page.goto("/background-migrations");
  await expect(page.getByRole("heading", { name: "Not allowed" })).toBeVisible();
  await shot(page, testInfo, "migrations-not-allowed");
  await page.goto("/admin/users");
  await expect(page.getByRole("heading", { name: "Not allowed" })).toBeVisible();
  await page.getByRole("button", { name: /^Account:/ }).click();
  await expect(page.getByRole("menuitem", { name: "Instance admins" })).toHaveCount(0);
});

