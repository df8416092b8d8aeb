// Times opening traces in Chromium (Debian's, as the browser tests): for each trace id, the time
// from navigation to the first rendered tree rows, and the tree request's own timing. Used by
// tools/drill/trace_bench.py (`just bench trace`); prints one JSON line per trace.
//
// Environment: LOUPE_BASE_URL, LOUPE_USER_EMAIL, LOUPE_USER_PASSWORD, LOUPE_PROJECT_ID; arguments: trace ids.

import { chromium } from "@playwright/test";

const [base, email, password, projectId] = ["LOUPE_BASE_URL", "LOUPE_USER_EMAIL", "LOUPE_USER_PASSWORD", "LOUPE_PROJECT_ID"].map((name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
});
const rounds = Number(process.env.LOUPE_ROUNDS ?? "3");

const browser = await chromium.launch({
  executablePath: process.env.LOUPE_CHROMIUM ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run"],
});
const context = await browser.newContext({ baseURL: base, viewport: { width: 1366, height: 768 } });
const signIn = await context.request.post("/api/ui/auth/sign-in", { data: { email, password } });
if (!signIn.ok()) throw new Error(`sign-in: ${signIn.status()} ${await signIn.text()}`);

for (const traceId of process.argv.slice(2)) {
  const runs = [];
  for (let round = 0; round < rounds; round++) {
    const page = await context.newPage();
    const started = Date.now();
    await page.goto(`/project/${projectId}/traces/${traceId}`);
    await page.locator('[role="tree"][aria-label="Trace tree"] [role="treeitem"]').first().waitFor({ timeout: 120_000 });
    const firstRows = Date.now() - started;
    const timing = await page.evaluate(() => {
      const entry = performance.getEntriesByType("resource").find((e) => e.name.includes("/tree?"));
      const rows = performance.getEntriesByName("loupe:trace-rows").at(-1);
      return entry
        ? {
            // Milliseconds since navigation: the tree request sent and answered, the first rows rendered.
            treeSent: Math.round(entry.startTime),
            treeAnswered: Math.round(entry.responseEnd),
            rowsRendered: rows ? Math.round(rows.startTime) : null,
            treeRequest: Math.round(entry.responseEnd - entry.requestStart),
            bytes: entry.encodedBodySize,
          }
        : null;
    });
    runs.push({ firstRows, ...timing });
    await page.close();
  }
  console.log(JSON.stringify({ traceId, runs }));
}
await browser.close();
