// The write modes in the UI (spec part 3). Each test needs a web in its mode: tests/blackbox/ui.rs
// starts one per mode and runs this file with LOUPE_WRITE_MODE set; in the default run (an
// `events_only` web) these are skipped.

import type { APIRequestContext } from "@playwright/test";

import { expect, loupe, shot, signIn, test } from "./support";

const mode = process.env.LOUPE_WRITE_MODE;
const run = `w${Date.now().toString(36)}`;

async function seedTrace(request: APIRequestContext): Promise<void> {
  const now = new Date().toISOString();
  const auth = `Basic ${Buffer.from(`${loupe.publicKey}:${loupe.secretKey}`).toString("base64")}`;
  const batch = [
    { id: `${run}-e1`, type: "trace-create", timestamp: now, body: { id: `${run}-trace`, name: `${run} legacy trace`, userId: "ada", timestamp: now } },
    { id: `${run}-e2`, type: "span-create", timestamp: now, body: { id: `${run}-span`, traceId: `${run}-trace`, name: `${run} legacy span`, startTime: now, endTime: now } },
  ];
  const response = await request.post("/api/public/ingestion", { headers: { Authorization: auth }, data: { batch } });
  expect(response.status()).toBe(207);
}

test("legacy: the Traces and Observations tabs read the v3 tables; no v4 preview toggle", async ({ page, request }, testInfo) => {
  test.skip(mode !== "legacy", "needs a web in write mode legacy (tests/blackbox/ui.rs)");
  await seedTrace(request);
  await page.goto("/sign-in");
  await signIn(page, loupe.email, loupe.password);
  await expect(page).toHaveURL(`/project/${loupe.projectId}/observations`);
  const tabs = page.getByRole("tablist", { name: "Views" });
  await expect(tabs.getByRole("tab", { name: "Observations" })).toHaveAttribute("aria-selected", "true");
  await expect(page.getByRole("switch", { name: "v4 preview" })).toHaveCount(0);
  await expect(page.getByRole("searchbox", { name: "Search" })).toHaveCount(0);

  await tabs.getByRole("tab", { name: "Traces" }).click();
  await expect(page).toHaveURL(`/project/${loupe.projectId}/traces`);
  const traces = page.getByRole("table", { name: "Traces" });
  await expect(async () => {
    await page.reload();
    await expect(traces.getByRole("row").filter({ hasText: `${run} legacy trace` })).toHaveCount(1, { timeout: 2000 });
  }).toPass({ timeout: 30_000 });
  await page.getByLabel("User ID").fill("nobody");
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page.getByRole("heading", { name: "No traces" })).toBeVisible();
  await page.getByLabel("User ID").fill("ada");
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(traces.getByRole("row").filter({ hasText: `${run} legacy trace` })).toHaveCount(1);
  await shot(page, testInfo, "legacy-traces");

  await tabs.getByRole("tab", { name: "Observations" }).click();
  await expect(page.getByRole("table", { name: "Observations" }).getByRole("row").filter({ hasText: `${run} legacy span` })).toHaveCount(1);
  await shot(page, testInfo, "legacy-observations");
});

test("dual with the opt-in: the v4 preview toggle switches between the v3 tabs and the Observations view", async ({ page }, testInfo) => {
  test.skip(mode !== "dual", "needs a web in write mode dual with the preview opt-in (tests/blackbox/ui.rs)");
  await page.goto("/sign-in");
  await signIn(page, loupe.email, loupe.password);
  await expect(page).toHaveURL(`/project/${loupe.projectId}/observations`);
  const toggle = page.getByRole("switch", { name: "v4 preview" });
  await expect(toggle).not.toBeChecked();
  await expect(page.getByRole("tablist", { name: "Views" })).toBeVisible();
  await shot(page, testInfo, "dual-v3");

  await toggle.click();
  await expect(toggle).toBeChecked();
  await expect(page.getByRole("tablist", { name: "Views" })).toHaveCount(0);
  await expect(page.getByRole("searchbox", { name: "Search" })).toBeVisible();
  await shot(page, testInfo, "dual-v4");
  // Kept for the person: a reload (or another sign-in) shows the same.
  await page.reload();
  await expect(page.getByRole("switch", { name: "v4 preview" })).toBeChecked();
  await expect(page.getByRole("searchbox", { name: "Search" })).toBeVisible();
  // v4 has no separate traces list: /traces leads to the Observations view.
  await page.goto(`/project/${loupe.projectId}/traces`);
  await expect(page).toHaveURL(`/project/${loupe.projectId}/observations`);

  await page.getByRole("switch", { name: "v4 preview" }).click();
  await expect(page.getByRole("tablist", { name: "Views" })).toBeVisible();
  await expect(page.getByRole("switch", { name: "v4 preview" })).not.toBeChecked();
});
