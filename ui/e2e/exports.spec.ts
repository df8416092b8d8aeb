// Exports and retention in the browser: a batch export of a filtered Observations view runs to
// completion and its download link serves the rows; an owner sets up the scheduled export to a bucket
// (the stack's S3-compatible store) and sees it saved, its status followed live until the first run
// is done; sets and clears the project's retention. A VIEWER sees none of the buttons that change
// them, and the server refuses anyway.

import { gunzipSync } from "node:zlib";

import { hex, sendSpans, waitStored } from "./otlp";
import { newViewer, PASSWORD } from "./people";
import { env, expect, loupe, shot, signIn, test } from "./support";

test.describe.configure({ mode: "serial" });

test("a filtered view is exported to a file that downloads", async ({ page }, testInfo) => {
  test.setTimeout(120_000);
  const run = Math.random().toString(36).slice(2, 8);
  const spanName = `exported-${run}`;
  await page.goto("/sign-in");
  await signIn(page, loupe.email, loupe.password);
  await expect(page).toHaveURL(`/project/${loupe.projectId}/observations`);
  const traceId = hex(32);
  const rootId = hex(16);
  await sendSpans(page.request, traceId, [
    { id: rootId, name: "root of an export", startMs: 0, endMs: 900 },
    ...[1, 2, 3].map((i) => ({ id: hex(16), name: `${spanName}-${i}`, startMs: i * 100, endMs: i * 100 + 50 })),
  ]);
  await waitStored(page, traceId, 4);

  // The view searched for this run's spans lists three; the export holds those three.
  await page.goto(`/project/${loupe.projectId}/observations?q=${spanName}`);
  await expect(page.getByText("3 observations")).toBeVisible({ timeout: 30_000 });
  await page.getByRole("toolbar", { name: "Observations view" }).getByRole("button", { name: "Export" }).click();
  const dialog = page.getByRole("dialog", { name: "Export observations" });
  await dialog.getByLabel("File type").selectOption("CSV");
  await dialog.getByRole("button", { name: "Start export" }).click();
  await expect(dialog.getByText("Done: 3 observations.")).toBeVisible({ timeout: 60_000 });
  const link = dialog.getByRole("link", { name: "Download CSV" });
  await shot(page, testInfo, "batch-done");
  const href = await link.getAttribute("href");
  expect(href).toBeTruthy();
  const file = await page.request.get(href!);
  expect(file.status()).toBe(200);
  const bytes = await file.body();
  const text = (bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes).toString("utf8");
  const lines = text.trim().split(/\r?\n/);
  expect(lines).toHaveLength(4); // the header and three rows
  for (const i of [1, 2, 3]) expect(text).toContain(`${spanName}-${i}`);
  // The span the search leaves out is not exported (its name may still appear as the trace's name).
  expect(text).not.toContain(rootId);
});

test("an owner sets up the scheduled export and the retention; a VIEWER only reads them", async ({ page, browser, baseURL }, testInfo) => {
  test.setTimeout(120_000);
  const run = Math.random().toString(36).slice(2, 8);
  await page.goto("/sign-in");
  await signIn(page, loupe.email, loupe.password);
  await expect(page).toHaveURL(`/project/${loupe.projectId}/observations`);
  await page.goto(`/project/${loupe.projectId}/settings#exports`);

  // The scheduled export, to the stack's own S3-compatible store (saving checks the credentials).
  const exportsSection = page.getByRole("region", { name: "Exports" });
  const form = exportsSection.getByRole("form", { name: "Scheduled export" });
  await form.getByLabel("Storage").selectOption("S3_COMPATIBLE");
  await form.getByLabel("Bucket").fill(env("LOUPE_S3_BUCKET"));
  await form.getByLabel("Endpoint").fill(env("LOUPE_S3_ENDPOINT"));
  await form.getByLabel("Access key id").fill(env("LOUPE_S3_ACCESS_KEY_ID"));
  await form.getByLabel("Secret access key").fill(env("LOUPE_S3_SECRET_ACCESS_KEY"));
  await form.getByLabel("Prefix").fill(`ui-e2e-${run}/`);
  await form.getByLabel("Path-style URLs").check();
  await form.getByLabel("File type").selectOption("CSV");
  await form.getByLabel("Frequency").selectOption("hourly");
  // Full history, so the first window has closed whatever the time: "From today" set up in the
  // first 20 minutes of a UTC day (the lag) rightly waits for its first hour to close.
  await form.getByLabel("Mode", { exact: true }).selectOption("FULL_HISTORY");
  await form.getByRole("button", { name: "Set up export" }).click();
  await expect(exportsSection.getByRole("status").filter({ hasText: "Saved" })).toBeVisible({ timeout: 30_000 });
  await expect(exportsSection.getByLabel("Export status")).toBeVisible();
  await shot(page, testInfo, "export-saved");
  // A new export is due at once; its status follows the worker's run live, with no reload, to its end.
  await expect(exportsSection.getByLabel("Export status")).toContainText("Up to date", { timeout: 90_000 });
  await shot(page, testInfo, "export-up-to-date");

  // Read back after a reload: the settings, not the secret.
  await page.reload();
  await expect(form.getByLabel("Prefix")).toHaveValue(`ui-e2e-${run}/`);
  await expect(form.getByLabel("Frequency")).toHaveValue("hourly");
  await expect(form.getByLabel("Mode", { exact: true })).toHaveValue("FULL_HISTORY");
  await expect(form.getByLabel("Secret access key")).toHaveValue("");
  await expect(form.getByLabel("Secret access key")).toHaveAttribute("placeholder", "kept as saved");
  await expect(exportsSection.getByLabel("Export status")).toBeVisible();

  // Retention: set 30 days, then keep data forever again.
  const retention = page.getByRole("region", { name: "Data retention" });
  await retention.getByLabel("Data retention (days)").fill("2");
  await retention.getByRole("button", { name: "Save retention" }).click();
  await expect(retention.getByText("At least 3 days, or 0 to keep data forever")).toBeVisible();
  await retention.getByLabel("Data retention (days)").fill("30");
  await retention.getByRole("button", { name: "Save retention" }).click();
  await expect(retention.getByText("This project keeps 30 days of trace data.", { exact: false })).toBeVisible();
  await shot(page, testInfo, "retention");
  await retention.getByRole("button", { name: "Keep data forever" }).click();
  await expect(retention.getByText("This project keeps its data forever.", { exact: false })).toBeVisible();
  await expect(retention.getByLabel("Data retention (days)")).toHaveValue("0");

  // A VIEWER: no Export on the view, the export's settings withheld, the retention read-only.
  const email = await newViewer(page, "exports-viewer", baseURL!, loupe.projectId);
  const context = await browser.newContext();
  const viewer = await context.newPage();
  await viewer.goto("/sign-in");
  await signIn(viewer, email, PASSWORD);
  await expect(viewer).toHaveURL(`/project/${loupe.projectId}/observations`);
  await expect(viewer.getByRole("toolbar", { name: "Observations view" }).getByRole("button", { name: "Export" })).toHaveCount(0);
  await viewer.goto(`/project/${loupe.projectId}/settings#exports`);
  await expect(viewer.getByText("Only owners and admins see and manage this project's scheduled export.")).toBeVisible();
  const viewerRetention = viewer.getByRole("region", { name: "Data retention" });
  await expect(viewerRetention.getByLabel("Data retention (days)")).toHaveAttribute("readonly", "");
  await expect(viewerRetention.getByRole("button", { name: "Save retention" })).toHaveCount(0);
  await viewerRetention.scrollIntoViewIfNeeded();
  await shot(viewer, testInfo, "viewer-settings");
  const me = await (await viewer.request.get("/api/ui/me")).json();
  const headers = { "X-CSRF-Token": me.csrfToken, "X-Loupe-Project": loupe.projectId };
  expect((await viewer.request.post("/api/public/batch-exports", { headers, data: { fileType: "CSV" } })).status()).toBe(403);
  expect((await viewer.request.get("/api/public/integrations/blob-storage", { headers })).status()).toBe(403);
  await context.close();

  // Remove the export so later runs of the suite start without one.
  await exportsSection.getByRole("button", { name: "Remove export" }).click();
  await expect(form.getByRole("button", { name: "Set up export" })).toBeVisible();
});
