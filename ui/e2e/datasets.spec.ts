// The datasets pages: a dataset created with an input schema through the UI, an item that does not
// match it refused with the server's mismatch shown at the Input box, then a valid one; two runs
// seeded through the public API (run items linked to traces sent over OTLP) compared side by side,
// and a run item followed to its trace in the Observations view; a VIEWER sees no create buttons
// and the server refuses their writes. Runs are the v3 experiment model: that part runs against
// the `dual` web of tests/blackbox/ui.rs (LOUPE_WRITE_MODE=dual) and is skipped in the default run.

import { request as http, type APIRequestContext, type Page } from "@playwright/test";

import { PASSWORD, someoneNew } from "./people";
import { expect, loupe, shot, signIn, test } from "./support";

const mode = process.env.LOUPE_WRITE_MODE;
const hex = (length: number) => Array.from({ length }, () => Math.floor(Math.random() * 16).toString(16)).join("");
const basic = () => `Basic ${Buffer.from(`${loupe.publicKey}:${loupe.secretKey}`).toString("base64")}`;
const SCHEMA = JSON.stringify({ type: "object", properties: { question: { type: "string" } }, required: ["question"] });

/** One trace of one span whose output is `output`, sent over OTLP; waits until the v3 read has it. */
async function trace(request: APIRequestContext, output: string, seconds: number): Promise<string> {
  const traceId = hex(32);
  const start = Date.now() - 60_000;
  const attributes = [
    ["langfuse.observation.output", JSON.stringify(output)],
    ["langfuse.trace.output", JSON.stringify(output)],
  ].map(([key, value]) => ({ key, value: { stringValue: value } }));
  const body = {
    resourceSpans: [
      {
        resource: { attributes: [{ key: "service.name", value: { stringValue: "datasets-e2e" } }] },
        scopeSpans: [
          {
            scope: { name: "langfuse-sdk", version: "3.0.0" },
            spans: [
              {
                traceId,
                spanId: hex(16),
                name: "answer",
                kind: 1,
                startTimeUnixNano: `${start * 1_000_000}`,
                endTimeUnixNano: `${(start + seconds * 1000) * 1_000_000}`,
                attributes,
              },
            ],
          },
        ],
      },
    ],
  };
  const sent = await request.post("/api/public/otel/v1/traces", { headers: { Authorization: basic() }, data: body });
  expect(sent.status(), await sent.text()).toBe(200);
  await expect
    .poll(async () => (await request.get(`/api/public/traces/${traceId}`, { headers: { Authorization: basic() } })).status(), {
      timeout: 60_000,
      intervals: [250, 500, 1000],
      message: "the worker stores the trace in the v3 tables",
    })
    .toBe(200);
  return traceId;
}

async function publicPost(request: APIRequestContext, path: string, data: unknown) {
  const answer = await request.post(`/api/public/${path}`, { headers: { Authorization: basic() }, data });
  expect(answer.ok(), `${path}: ${await answer.text()}`).toBe(true);
  return (await answer.json()) as Record<string, unknown>;
}

async function openDatasets(page: Page) {
  await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Datasets" }).click();
  await expect(page.getByRole("heading", { name: "Datasets", level: 1 })).toBeVisible();
}

test.beforeEach(async ({ page }) => {
  await page.goto("/sign-in");
  await signIn(page, loupe.email, loupe.password);
  await expect(page).toHaveURL(`/project/${loupe.projectId}/observations`);
});

test("a dataset with a schema: a mismatching item is refused at the field, a valid one is added", async ({ page }, testInfo) => {
  const name = `e2e-qa-${hex(6)}`;
  await openDatasets(page);
  await page.getByRole("button", { name: "New dataset" }).click();
  const form = page.getByRole("form", { name: "New dataset" });
  await form.getByLabel("Name").fill(name);
  await form.getByLabel("Description").fill("Questions about cats");
  await form.getByLabel("Input schema").fill(SCHEMA);
  await form.getByLabel("Expected output schema").fill('{"type": "string"}');
  await shot(page, testInfo, "new-dataset");
  await form.getByRole("button", { name: "Create dataset" }).click();
  await expect(page.getByRole("heading", { name, level: 1 })).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`/datasets/${name}$`));

  await page.getByRole("button", { name: "New item" }).click();
  const item = page.getByRole("form", { name: "New item" });
  await item.getByLabel("Input").fill('{"question": 5}');
  await item.getByLabel("Expected output").fill("42");
  await item.getByRole("button", { name: "Add item" }).click();
  const input = item.getByLabel("Input", { exact: true });
  await expect(input).toHaveAttribute("aria-invalid", "true");
  await expect(input).toHaveAccessibleDescription(/at \/question: 5 is not of type "string"/);
  await expect(item.getByLabel("Expected output")).toHaveAccessibleDescription(/42 is not of type "string"/);
  await expect(item.getByRole("alert")).toContainText("does not match the dataset's schemas");
  await shot(page, testInfo, "item-refused");

  await input.fill('{"question": "How many legs does a cat have?"}');
  await item.getByLabel("Expected output").fill('"four"');
  await item.getByRole("button", { name: "Add item" }).click();
  await expect(item).toBeHidden();
  const table = page.getByRole("table", { name: "Items" });
  await expect(table.getByText("How many legs does a cat have?")).toBeVisible();
  await expect(page.getByText("1 active item")).toBeVisible();
  await shot(page, testInfo, "items");

  // The list shows it with its item count.
  await page.getByRole("link", { name: "Datasets", exact: true }).first().click();
  const row = page.getByRole("table", { name: "Datasets" }).getByRole("row").filter({ hasText: name });
  await expect(row).toContainText("Questions about cats");
  await expect(row.getByRole("cell").nth(2)).toHaveText("1");
  await shot(page, testInfo, "list");

  // Archived, the item leaves the list of active items.
  await row.getByRole("link", { name }).click();
  await page.getByRole("table", { name: "Items" }).getByText("How many legs does a cat have?").click();
  const edit = page.getByRole("form", { name: /^Item / });
  await expect(edit.getByLabel("Expected output")).toHaveValue('"four"');
  await edit.getByRole("button", { name: "Archive" }).click();
  await expect(page.getByText("0 active items")).toBeVisible();
});

test("two runs side by side, and a run item followed to its trace", async ({ page, request }, testInfo) => {
  test.skip(mode !== "dual", "runs are the v3 experiment model: needs the dual web of tests/blackbox/ui.rs");
  const name = `e2e-runs-${hex(6)}`;
  await publicPost(request, "v2/datasets", { name, description: "Two runs" });
  const items = [
    { id: `cat-${hex(6)}`, input: { question: "How many legs does a cat have?" }, expectedOutput: "four" },
    { id: `dog-${hex(6)}`, input: { question: "How many legs does a dog have?" }, expectedOutput: "four" },
  ];
  for (const item of items) await publicPost(request, "dataset-items", { datasetName: name, ...item });
  const runs = [
    { run: "baseline", outputs: ["Four legs.", "Four."], seconds: 2 },
    { run: "candidate", outputs: ["4", "4 legs"], seconds: 1 },
  ];
  const traces: Record<string, string[]> = {};
  for (const { run, outputs, seconds } of runs) {
    traces[run] = [];
    for (const [i, item] of items.entries()) {
      const traceId = await trace(request, outputs[i]!, seconds);
      traces[run]!.push(traceId);
      await publicPost(request, "dataset-run-items", { runName: run, datasetItemId: item.id, traceId });
    }
  }
  await publicPost(request, "scores", { traceId: traces.baseline![0], name: "accuracy", value: 1, dataType: "NUMERIC" });

  await page.goto(`/project/${loupe.projectId}/datasets/${name}`);
  await page.getByRole("tab", { name: "Runs" }).click();
  const averages = page.getByRole("table", { name: "Averages per run" });
  await expect(averages.getByRole("row", { name: /baseline/ })).toContainText("2");
  await expect(averages.getByRole("row", { name: /candidate/ })).toBeVisible();
  const side = page.getByRole("table", { name: "Runs side by side" });
  await expect(side.getByRole("columnheader", { name: "baseline" })).toBeVisible();
  await expect(side.getByRole("columnheader", { name: "candidate" })).toBeVisible();
  const cat = side.getByRole("row").filter({ hasText: items[0]!.id });
  await expect(cat).toContainText("Four legs.");
  await expect(cat).toContainText("4");
  await expect
    .poll(async () => (await cat.textContent()) ?? "", { timeout: 30_000, message: "the score reaches the v3 tables" })
    .toContain("accuracy 1");
  await shot(page, testInfo, "runs-side-by-side");

  // Only one run: the table has its column alone.
  // The boxes follow the URL, which router navigations update in a transition: click, then wait for
  // the state (`check()` would read the box back before the transition has rendered).
  const candidate = page.getByRole("checkbox", { name: /candidate/ });
  await candidate.click();
  await expect(candidate).not.toBeChecked();
  await expect(side.getByRole("columnheader", { name: "candidate" })).toBeHidden();
  await candidate.click();
  await expect(candidate).toBeChecked();

  // The v3 views (this person's, by default in dual) open the trace on its page.
  const link = () => cat.getByRole("link", { name: `Trace of ${items[0]!.id} in baseline` });
  await link().click();
  await expect(page).toHaveURL(new RegExp(`/traces/${traces.baseline![0]}$`));
  await expect(page.getByRole("region", { name: "Trace", exact: true })).toBeVisible();
  await expect(page.getByRole("tree", { name: "Trace tree" }).getByRole("treeitem").first()).toBeVisible();
  await shot(page, testInfo, "run-item-trace-page");

  // The v4 views open it in the Observations view's trace panel.
  const toggle = page.getByRole("switch", { name: "v4 preview" });
  await toggle.click();
  await expect(toggle).toBeChecked();
  await page.goto(`/project/${loupe.projectId}/datasets/${name}?tab=runs`);
  await link().click();
  await expect(page).toHaveURL(new RegExp(`/observations\\?trace=${traces.baseline![0]}`));
  await expect(page.getByRole("region", { name: "Trace", exact: true })).toBeVisible();
  await expect(page.getByRole("tree", { name: "Trace tree" }).getByRole("treeitem").first()).toBeVisible();
  await shot(page, testInfo, "run-item-trace");

  // The experiments list has both runs.
  await page.goto(`/project/${loupe.projectId}/experiments`);
  const experiments = page.getByRole("table", { name: "Experiments" });
  await expect(experiments.getByRole("row").filter({ hasText: "baseline" }).first()).toBeVisible();
  await expect(experiments.getByRole("row").filter({ hasText: "candidate" }).first()).toBeVisible();
  await shot(page, testInfo, "experiments");
});

test("a viewer sees no create buttons, and the server refuses their writes", async ({ page, request, baseURL }, testInfo) => {
  const name = `e2e-viewer-${hex(6)}`;
  await publicPost(request, "v2/datasets", { name });
  await publicPost(request, "dataset-items", { datasetName: name, id: `i-${hex(6)}`, input: { question: "Why?" } });
  const email = await someoneNew("dataset-viewer", baseURL!);
  const context = await http.newContext({ baseURL: baseURL! });
  const signedIn = await context.post("/api/ui/auth/sign-in", { data: { email, password: PASSWORD } });
  expect(signedIn.ok()).toBe(true);
  const viewer = (await signedIn.json()) as { user: { id: string }; csrfToken: string };

  // The owner makes them a VIEWER of the organization.
  const me = (await (await page.request.get("/api/ui/me")).json()) as { csrfToken: string; organizations: { id: string }[] };
  const added = await page.request.put(`/api/ui/organizations/${me.organizations[0]!.id}/members`, {
    headers: { "X-CSRF-Token": me.csrfToken },
    data: { userId: viewer.user.id, role: "VIEWER" },
  });
  expect(added.ok(), await added.text()).toBe(true);

  const asViewer = { "X-Loupe-Project": loupe.projectId, "X-CSRF-Token": viewer.csrfToken };
  const read = await context.get("/api/public/v2/datasets", { headers: asViewer });
  expect(read.status()).toBe(200);
  const refused = await context.post("/api/public/v2/datasets", { headers: asViewer, data: { name: "viewers-dataset" } });
  expect(refused.status()).toBe(403);
  const item = await context.post("/api/public/dataset-items", { headers: asViewer, data: { datasetName: name, input: 1 } });
  expect(item.status()).toBe(403);
  await context.dispose();

  await page.context().clearCookies();
  await page.goto("/sign-in");
  await signIn(page, email, PASSWORD);
  await expect(page).toHaveURL(new RegExp(`/project/${loupe.projectId}/`));
  await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Datasets" }).click();
  await expect(page.getByRole("table", { name: "Datasets" }).getByRole("link", { name })).toBeVisible();
  await expect(page.getByRole("button", { name: "New dataset" })).toHaveCount(0);
  await page.getByRole("table", { name: "Datasets" }).getByRole("link", { name }).click();
  await expect(page.getByRole("heading", { name, level: 1 })).toBeVisible();
  await expect(page.getByText("1 active item")).toBeVisible();
  await expect(page.getByRole("button", { name: "New item" })).toHaveCount(0);
  await shot(page, testInfo, "viewer");
});
