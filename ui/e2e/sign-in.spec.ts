import { expect, loupe, shot, signIn, test } from "./support";

test("a signed-out visit to a project page signs in and comes back", async ({ page }, testInfo) => {
  const target = `/project/${loupe.projectId}/observations`;
  await page.goto(target);
  await expect(page).toHaveURL(/\/sign-in\?next=/);
  await expect(page.getByRole("heading", { name: "Sign in to Loupe" })).toBeVisible();
  await shot(page, testInfo, "sign-in");

  await signIn(page, loupe.email, "not the password");
  await expect(page.getByRole("alert")).toContainText("Invalid email or password");
  await shot(page, testInfo, "sign-in-wrong-password");

  await page.getByLabel("Password").fill(loupe.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(target);
  await expect(page.getByRole("heading", { name: loupe.projectName, level: 1 })).toBeVisible();
  await expect(page.getByRole("link", { name: "Observations" })).toHaveAttribute("aria-current", "page");
  await shot(page, testInfo, "observations");
});

test("signing in at / opens the first project, and signing out returns to sign-in", async ({ page }, testInfo) => {
  await page.goto("/");
  await signIn(page, loupe.email, loupe.password);
  await expect(page).toHaveURL(`/project/${loupe.projectId}/observations`);

  await page.getByRole("button", { name: /^Account:/ }).click();
  await shot(page, testInfo, "user-menu");
  await page.getByRole("menuitem", { name: "Sign out" }).click();
  await expect(page).toHaveURL("/sign-in");
  await page.goto(`/project/${loupe.projectId}/sessions`);
  await expect(page).toHaveURL(/\/sign-in\?next=/);
});
