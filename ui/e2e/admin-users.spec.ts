// The instance admins page: the first user marks another person an instance admin, reached from
// the account menu; the new admin then sees the background migrations.

import { expect, loupe, shot, signIn, test } from "./support";
import { PASSWORD, someoneNew } from "./people";

test("an instance admin marks another person as one, from the account menu", async ({ page, baseURL }, testInfo) => {
  const email = await someoneNew("made-admin", baseURL!);
  await page.goto("/sign-in");
  await signIn(page, loupe.email, loupe.password);
  await expect(page).toHaveURL(`/project/${loupe.projectId}/observations`);
  await page.getByRole("button", { name: /^Account:/ }).click();
  await page.getByRole("menuitem", { name: "Instance admins" }).click();
  await expect(page).toHaveURL("/admin/users");
  await expect(page.getByRole("heading", { name: "Instance admins", level: 1 })).toBeVisible();

  const mine = page.getByRole("switch", { name: `Instance admin: ${loupe.email}` });
  await expect(mine).toHaveAttribute("aria-checked", "true");
  await expect(mine).toBeDisabled();
  const theirs = page.getByRole("switch", { name: `Instance admin: ${email}` });
  await expect(theirs).toHaveAttribute("aria-checked", "false");
  await theirs.click();
  await expect(theirs).toHaveAttribute("aria-checked", "true");
  await shot(page, testInfo, "admin-users");
  await page.reload();
  await expect(page.getByRole("switch", { name: `Instance admin: ${email}` })).toHaveAttribute("aria-checked", "true");

  // The new admin sees the migrations page.
  await page.getByRole("button", { name: /^Account:/ }).click();
  await page.getByRole("menuitem", { name: "Sign out" }).click();
  await expect(page).toHaveURL("/sign-in");
  await signIn(page, email, PASSWORD);
  await expect(page).toHaveURL("/setup");
  await page.getByRole("link", { name: "Background migrations" }).click();
  await expect(page.getByRole("heading", { name: "Background migrations", level: 1 })).toBeVisible();
  await expect(page.getByRole("list", { name: "Migration steps" }).getByRole("article")).toHaveCount(5);
});
