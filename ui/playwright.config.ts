import { defineConfig } from "@playwright/test";

// Browser tests against a running Loupe (started by tests/blackbox/ui.rs, which passes the base URL,
// the first user's credentials and the bootstrap project in LOUPE_* variables). Debian's chromium,
// never a downloaded browser.
const chromiumArgs = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

export default defineConfig({
  testDir: "e2e",
  outputDir: "test-results/playwright",
  // The machines running `just test` are small and the server is shared by the specs: one browser.
  workers: 1,
  fullyParallel: false,
  retries: 0,
  timeout: 30_000,
  expect: { timeout: 10_000 },
  reporter: [["list"]],
  forbidOnly: true,
  use: {
    baseURL: process.env.LOUPE_BASE_URL ?? "http://127.0.0.1:3000",
    viewport: { width: 1366, height: 768 },
    launchOptions: {
      executablePath: process.env.LOUPE_CHROMIUM ?? "/usr/bin/chromium",
      args: chromiumArgs,
    },
    trace: "off",
    screenshot: "only-on-failure",
  },
});
