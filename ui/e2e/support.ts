// What every spec shares: the Loupe it runs against (LOUPE_* variables from tests/blackbox/ui.rs),
// a full-page screenshot of every page visited, and a page that fails the spec on any script error
// or Content-Security-Policy refusal.

import { test as base, expect, type Page, type TestInfo } from "@playwright/test";
import { mkdirSync } from "node:fs";

export { expect };

/** A setting the Rust test passes; a clear failure when a spec is run without it. */
export function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the browser tests through tests/blackbox/ui.rs (cargo nextest run -p tests -E 'test(ui)')`);
  return value;
}

export const loupe = {
  get email() {
    return env("LOUPE_USER_EMAIL");
  },
  get password() {
    return env("LOUPE_USER_PASSWORD");
  },
  get projectId() {
    return env("LOUPE_PROJECT_ID");
  },
  get projectName() {
    return env("LOUPE_PROJECT_NAME");
  },
  get publicKey() {
    return env("LOUPE_PUBLIC_KEY");
  },
  get secretKey() {
    return env("LOUPE_SECRET_KEY");
  },
};

const SCREENSHOTS = "test-results/screenshots";

/** Saves a full-page screenshot as `<spec>-<name>.png`, the artifact people look at. */
export async function shot(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const spec = testInfo.titlePath[0]?.replace(/\.spec\.ts$/, "").replace(/[^\w-]+/g, "-") ?? "spec";
  await page.screenshot({ path: `${SCREENSHOTS}/${spec}-${name}.png`, fullPage: true });
}

/** A unique address for a person a spec signs up, so specs never share one. */
export function freshEmail(label: string): string {
  return `${label}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
}

export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

export const test = base.extend<{ failOnPageErrors: void }>({
  failOnPageErrors: [
    async ({ page }, use) => {
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(`uncaught: ${error.message}`));
      page.on("console", (message) => {
        // A 401 from /api/ui/me is how a signed-out visit is recognised; failed loads are the
        // server's answers, which the specs check themselves.
        if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) {
          errors.push(`console: ${message.text()}`);
        }
      });
      await use();
      expect(errors, "script errors or CSP refusals on the page").toEqual([]);
    },
    { auto: true },
  ],
});
