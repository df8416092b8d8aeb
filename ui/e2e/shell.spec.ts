import { expect, loupe, shot, signIn, test } from "./support";

test.beforeEach(async ({ page }) => {
  await page.goto("/sign-in");
  await signIn(page, loupe.email, loupe.password);
  await expect(page).toHaveURL(`/project/${loupe.projectId}/observations`);
  await expect(page.getByRole("heading", { name: loupe.projectName, level: 1 })).toBeVisible();
});

test("the project's pages are one click away and the switcher names the project", async ({ page }, testInfo) => {
  const switcher = page.getByRole("combobox", { name: "Project" });
  await expect(switcher).toHaveValue(loupe.projectId);
  await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Sessions" }).click();
  await expect(page).toHaveURL(`/project/${loupe.projectId}/sessions`);
  await expect(page.getByRole("link", { name: "Sessions" })).toHaveAttribute("aria-current", "page");
  await expect(page.getByRole("heading", { name: "Sessions", level: 1 })).toBeVisible();
  await shot(page, testInfo, "sessions");

  await page.goto("/project/no-such-project/observations");
  await expect(page.getByRole("heading", { name: "Project not found" })).toBeVisible();
  await shot(page, testInfo, "project-not-found");
  await page.goto("/no/such/page");
  await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
  await shot(page, testInfo, "page-not-found");
});

test("the theme follows the OS until the person picks one, which is kept", async ({ page }, testInfo) => {
  await page.emulateMedia({ colorScheme: "dark" });
  await expect(page.getByRole("button", { name: "Switch to light theme" })).toBeVisible();
  await shot(page, testInfo, "dark-from-os");

  await page.getByRole("button", { name: "Switch to light theme" }).click();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
  await page.reload();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
  await expect(page.getByRole("button", { name: "Switch to dark theme" })).toBeVisible();
  await expect(page.getByRole("heading", { name: loupe.projectName, level: 1 })).toBeVisible();
  await shot(page, testInfo, "light-chosen");

  await page.getByRole("button", { name: "Switch to dark theme" }).click();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
  await page.emulateMedia({ colorScheme: "light" });
  await expect(page.getByRole("button", { name: "Switch to light theme" })).toBeVisible();
  await page.getByRole("button", { name: /^Account:/ }).click();
  await page.getByRole("menuitem", { name: "Follow the system theme" }).click();
  await expect(page.locator("html")).not.toHaveAttribute("data-theme", /.*/);
  await expect(page.getByRole("button", { name: "Switch to dark theme" })).toBeVisible();
});

test("the keyboard reaches the content and the account menu", async ({ page }, testInfo) => {
  await page.keyboard.press("Tab");
  const skip = page.getByRole("link", { name: "Skip to content" });
  await expect(skip).toBeFocused();
  await shot(page, testInfo, "skip-link");
  await page.keyboard.press("Enter");
  await expect(page.locator("#main")).toBeFocused();

  const account = page.getByRole("button", { name: /^Account:/ });
  await account.focus();
  await page.keyboard.press("Enter");
  const menu = page.getByRole("menu");
  await expect(menu).toBeVisible();
  await expect(menu.getByRole("menuitem").first()).toBeFocused();
  await page.keyboard.press("ArrowDown");
  await expect(menu.getByRole("menuitem").nth(1)).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(menu).toBeHidden();
  await expect(account).toBeFocused();
});
