// Monitors in the browser: an owner creates a monitor over ERROR observations with a webhook to a
// receiver on loopback (the signing secret shown once), sends errors over OTLP, evaluates it now and
// sees it go ALERTING with the delivery in its log — and the receiver got the signed payload. It
// mutes and edits it. A VIEWER sees the monitor without any button that changes it, and the server
// refuses the change anyway.

import { createHmac } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

import { hex, sendSpans, waitStored } from "./otlp";
import { newViewer, PASSWORD } from "./people";
import { expect, loupe, shot, signIn, test } from "./support";

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on loopback answering 200, keeping what it got. */
async function receiver(): Promise<{ server: Server; url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString("utf8") });
      response.writeHead(200, { "Content-Type": "text/plain" }).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/loupe`, received };
}

test("a monitor over errors sent over OTLP alerts and delivers a signed webhook; a VIEWER only reads", async ({ page, browser, baseURL }, testInfo) => {
  test.setTimeout(150_000);
  const run = Math.random().toString(36).slice(2, 8);
  const spanName = `monitored-call-${run}`;
  const name = `LLM errors ${run}`;
  const hook = await receiver();
  try {
    await page.goto("/sign-in");
    await signIn(page, loupe.email, loupe.password);
    await expect(page).toHaveURL(`/project/${loupe.projectId}/observations`);
    await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Monitors" }).click();
    await expect(page.getByRole("heading", { name: "Monitors", level: 1 })).toBeVisible();

    // Create: errors of this run's span name, at least 2 in 5 minutes, a webhook to the receiver.
    await page.getByRole("button", { name: "New monitor" }).click();
    const form = page.getByRole("form", { name: "New monitor" });
    await form.getByLabel("Name").fill(name);
    // The filters in the Observations view's filter builder: level any of ERROR, name = the span's.
    const filters = form.getByRole("group", { name: "Filters" });
    await filters.getByRole("button", { name: "+ Add filter" }).click();
    await filters.getByLabel("Filter 1 column").selectOption("level");
    await filters.getByRole("group", { name: "Filter 1" }).getByRole("checkbox", { name: "ERROR" }).check();
    await filters.getByRole("button", { name: "+ Add filter" }).click();
    await filters.getByLabel("Filter 2 value").fill(spanName);
    await form.getByLabel("Comparison").selectOption(">=");
    await form.getByLabel("Threshold").fill("2");
    await form.getByLabel("Evaluate every (seconds)").fill("3600");
    await form.getByRole("button", { name: "Add webhook" }).click();
    await form.getByLabel("Webhook URL 1").fill(hook.url);
    await shot(page, testInfo, "new");
    await form.getByRole("button", { name: "Create monitor" }).click();

    // The secret is shown once, then the monitor's page.
    const dialog = page.getByRole("dialog", { name: "Monitor saved" });
    const secret = (await dialog.getByLabel("Signing secret", { exact: true }).textContent())!;
    expect(secret.length).toBeGreaterThanOrEqual(16);
    await shot(page, testInfo, "secret");
    await dialog.getByRole("button", { name: "Done" }).click();
    const heading = page.getByRole("heading", { level: 1 });
    await expect(heading).toContainText(name);
    await expect(page.getByText(`secret ...${secret.slice(-4)}`)).toBeVisible();
    // Its first evaluation (due at once) finds no errors: OK.
    const evaluations = page.getByRole("table", { name: "Evaluations" });
    await expect(evaluations.getByRole("row").filter({ hasText: "OK" }).first()).toBeVisible({ timeout: 30_000 });
    await expect(heading).toContainText("OK");

    // Three errors arrive over OTLP; "Evaluate now" until the worker has seen them.
    const traceId = hex(32);
    await sendSpans(page.request, traceId, [
      { id: hex(16), name: "root", startMs: 0, endMs: 500 },
      ...[1, 2, 3].map((i) => ({ id: hex(16), name: spanName, startMs: i * 10, endMs: i * 10 + 100, attributes: { "langfuse.observation.level": "ERROR" } })),
    ]);
    await waitStored(page, traceId, 4);
    await expect(async () => {
      await page.getByRole("button", { name: "Evaluate now" }).click();
      await expect(heading).toContainText("ALERTING", { timeout: 8_000 });
    }).toPass({ timeout: 60_000 });

    // One notification, delivered on the first attempt, in the delivery log.
    const notifications = page.getByRole("table", { name: "Notifications" });
    await expect(async () => {
      await page.reload();
      await expect(notifications.getByRole("row").filter({ hasText: "delivered" })).toContainText("HTTP 200", { timeout: 3_000 });
    }).toPass({ timeout: 60_000 });
    await shot(page, testInfo, "alerting");

    // The receiver got the payload, signed with the secret shown once.
    expect(hook.received.length).toBe(1);
    const [delivery] = hook.received;
    const payload = JSON.parse(delivery!.body);
    expect(payload).toMatchObject({ type: "monitor.alerting", state: "ALERTING", previousState: "OK", value: 3, threshold: 2, monitor: { name } });
    const signature = String(delivery!.headers["x-loupe-signature"]);
    const t = /t=(\d+)/.exec(signature)?.[1] ?? "";
    const expected = createHmac("sha256", secret).update(`${t}.${delivery!.body}`).digest("hex");
    expect(signature).toBe(`t=${t},v1=${expected}`);

    // Mute and unmute; edit the threshold.
    await page.getByRole("button", { name: "Mute" }).click();
    await expect(heading).toContainText("muted");
    await page.getByRole("button", { name: "Unmute" }).click();
    await expect(heading).not.toContainText("muted");
    await page.getByRole("button", { name: "Edit" }).click();
    const edit = page.getByRole("form", { name: `Edit ${name}` });
    // The stored filters come back into the builder.
    const stored = edit.getByRole("group", { name: "Filters" });
    await expect(stored.getByLabel("Filter 1 column")).toHaveValue("level");
    await expect(stored.getByRole("group", { name: "Filter 1" }).getByRole("checkbox", { name: "ERROR" })).toBeChecked();
    await expect(stored.getByLabel("Filter 2 column")).toHaveValue("name");
    await expect(stored.getByLabel("Filter 2 value")).toHaveValue(spanName);
    await shot(page, testInfo, "edit-filters");
    await edit.getByLabel("Threshold").fill("5");
    await edit.getByRole("button", { name: "Save monitor" }).click();
    await expect(edit).toHaveCount(0);
    await expect(page.getByText(`count(count) of observations, 2 filters >= 5 over 5 min`)).toBeVisible();
    const monitorUrl = page.url();

    // A VIEWER reads it without the buttons, and the server refuses the change.
    const email = await newViewer(page, "monitor-viewer", baseURL!, loupe.projectId);
    const context = await browser.newContext();
    const viewer = await context.newPage();
    await viewer.goto("/sign-in");
    await signIn(viewer, email, PASSWORD);
    await expect(viewer.getByRole("button", { name: /^Account/ })).toBeVisible();
    await viewer.goto(`/project/${loupe.projectId}/monitors`);
    await expect(viewer.getByRole("table", { name: "Monitors" }).getByRole("row").filter({ hasText: name })).toBeVisible();
    await expect(viewer.getByRole("button", { name: "New monitor" })).toHaveCount(0);
    await viewer.goto(monitorUrl);
    await expect(viewer.getByRole("heading", { level: 1 })).toContainText(name);
    await expect(viewer.getByRole("button", { name: "Evaluate now" })).toHaveCount(0);
    await expect(viewer.getByRole("button", { name: "Edit" })).toHaveCount(0);
    await shot(viewer, testInfo, "viewer");
    const me = await (await viewer.request.get("/api/ui/me")).json();
    const id = new URL(monitorUrl).searchParams.get("monitor");
    const refused = await viewer.request.post(`/api/public/monitors/${id}/mute`, {
      headers: { "X-CSRF-Token": me.csrfToken, "X-Loupe-Project": loupe.projectId },
    });
    expect(refused.status()).toBe(403);
    await context.close();
  } finally {
    hook.server.close();
  }
});
