// LLM-as-a-judge from the browser: an owner adds an LLM connection pointing at the loopback judge
// stub (LOUPE_LLM_STUB_URL, from tests/blackbox/ui.rs; it answers score 0.8 with a reasoning),
// creates an evaluator (its {{variables}} highlighted) and a rule, sends a generation over OTLP,
// sees the execution complete and the EVAL score on the trace, runs the rule over a time range to
// completion, and sees a code evaluator refused with the server's 501 message. A VIEWER then sees
// the pages without a button that changes them, and the server refuses their writes.

import { hex, sendSpans, waitStored } from "./otlp";
import { newViewer, PASSWORD } from "./people";
import { env, expect, loupe, shot, signIn, test } from "./support";

test.describe.configure({ mode: "serial" });
const run = hex(6);
const connection = `judge-${run}`;
const evaluatorName = `helpfulness-${run}`;
const ruleName = `generations-${run}`;
const generation = `answer-${run}`;
let ruleUrl = "";

test("an owner connects a judge, creates an evaluator and a rule, and a new generation gets its EVAL score", async ({ page, request }, testInfo) => {
  test.setTimeout(180_000);
  await page.goto("/sign-in");
  await signIn(page, loupe.email, loupe.password);
  await expect(page).toHaveURL(`/project/${loupe.projectId}/observations`);

  // Settings → LLM connections: a refused key shows the server's message, then the stub is added.
  await page.goto(`/project/${loupe.projectId}/settings#llm-connections`);
  const section = page.getByRole("region", { name: "LLM connections" });
  const form = section.getByRole("form", { name: "New LLM connection" });
  await form.getByLabel("Name (provider)").fill(connection);
  await form.getByLabel("Adapter").selectOption("google-vertex-ai");
  await form.getByLabel("Service account key (JSON)").fill("not a key file");
  await form.getByRole("button", { name: "Add connection" }).click();
  await expect(form.getByRole("alert")).toContainText("must be a service-account key file");
  await form.getByLabel("Adapter").selectOption("openai");
  await form.getByLabel("API key").fill("sk-test-judge");
  await form.getByLabel("Base URL").fill(env("LOUPE_LLM_STUB_URL"));
  await form.getByLabel("Custom models").fill("judge-1");
  await form.getByRole("button", { name: "Add connection" }).click();
  const row = section.getByRole("table", { name: "LLM connections" }).getByRole("row", { name: new RegExp(connection) });
  await expect(row).toContainText("openai");
  await expect(row).toContainText("judge");
  await expect(row).not.toContainText("sk-test-judge");
  await shot(page, testInfo, "connections");

  // A new evaluator: the prompt's variables are marked as typed; the output's text is mapped by path.
  await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Evaluators" }).click();
  await expect(page.getByRole("heading", { name: "Evaluators", level: 1 })).toBeVisible();
  await page.getByRole("link", { name: "New evaluator" }).click();
  const editor = page.getByRole("form", { name: "Evaluator" });
  await editor.getByLabel("Name", { exact: true }).fill(evaluatorName);
  await editor.getByLabel("Message 2", { exact: true }).fill("Question: {{input}}\nAnswer: {{ answer }}\nHow helpful is the answer, from 0 to 1?");
  await expect(editor.locator('[aria-label="Preview of message 2"] mark[data-variable]')).toHaveText(["{{input}}", "{{ answer }}"]);
  await editor.getByLabel("Model").selectOption(`${connection}|judge-1`);
  await editor.getByLabel("Source of answer").selectOption("output");
  await editor.getByLabel("JSONPath of answer").fill("$.text");
  await shot(page, testInfo, "evaluator-form");
  await editor.getByRole("button", { name: "Create evaluator" }).click();
  await expect(page.getByRole("heading", { name: evaluatorName, level: 1 })).toBeVisible();
  await expect(page.getByRole("list", { name: "Versions" })).toContainText("v1");

  // A rule over this spec's generations only.
  await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Evaluators" }).click();
  await page.getByRole("link", { name: "New rule" }).click();
  const rule = page.getByRole("form", { name: "Rule" });
  await rule.getByLabel("Rule name").fill(ruleName);
  await rule.getByLabel("Evaluator", { exact: true }).selectOption({ label: evaluatorName });
  // The filter builder starts on GENERATION; a second row names this spec's generation.
  const filter = rule.getByRole("group", { name: "Filter (all conditions must match)" });
  await expect(filter.getByRole("group", { name: "Filter 1" }).getByRole("checkbox", { name: "GENERATION" })).toBeChecked();
  await filter.getByRole("button", { name: "+ Add filter" }).click();
  await filter.getByLabel("Filter 2 column").selectOption("name");
  await filter.getByLabel("Filter 2 value").fill(generation);
  await shot(page, testInfo, "rule-filter");
  await expect(rule.getByRole("table", { name: "Variable mapping" })).toContainText("{{answer}}");
  await rule.getByRole("button", { name: "Create rule" }).click();
  await expect(page.getByRole("heading", { name: ruleName, level: 1 })).toBeVisible();
  await expect(page.getByRole("region", { name: "Rule" })).toContainText("active");
  ruleUrl = page.url();

  // A generation arrives; its execution completes and links to the observation and the judge's trace.
  const traceId = hex(32);
  const spanId = hex(16);
  await sendSpans(request, traceId, [
    {
      id: spanId,
      name: generation,
      type: "generation",
      startMs: 0,
      endMs: 800,
      input: "How do I reset my password?",
      attributes: { "langfuse.observation.output": JSON.stringify({ text: "Use the reset link on the sign-in page." }) },
    },
  ], Date.now() - 5_000);
  const executions = page.getByRole("table", { name: "Executions" });
  await expect(executions.getByRole("row").filter({ hasText: "completed" })).toHaveCount(1, { timeout: 120_000 });
  await expect(executions).toContainText(evaluatorName);
  await expect(executions.getByRole("link", { name: "judge trace" })).toBeVisible();
  await shot(page, testInfo, "executions");

  // A run over the last hour: this rule judged the generation already, so the run completes
  // without judging it again.
  await page.getByRole("button", { name: "Run over this range" }).click();
  await expect(page.getByRole("status", { name: "Run progress" })).toContainText("completed", { timeout: 60_000 });
  await expect(page.getByRole("status", { name: "Run progress" })).toContainText("100 %");
  await shot(page, testInfo, "run");

  // The score is on the observation, in the trace view.
  await executions.getByRole("link", { name: /^observation / }).click();
  await expect(page).toHaveURL(new RegExp(`/traces/${traceId}\\?observation=${spanId}`));
  await waitStored(page, traceId, 1);
  // The score goes through ingestion after the execution is recorded: reload until it shows.
  const score = page.getByRole("region", { name: "Scores" }).getByRole("listitem").filter({ hasText: evaluatorName });
  await expect(async () => {
    await page.reload();
    await expect(score).toBeVisible({ timeout: 3_000 });
  }).toPass({ timeout: 60_000 });
  await expect(score).toContainText("0.8");
  await expect(score).toContainText("eval");
  await expect(score).toContainText("The answer is mostly right.");
  await shot(page, testInfo, "score-on-trace");

  // A code evaluator: the server's 501 says why.
  await page.goto(`/project/${loupe.projectId}/evaluators/new`);
  await page.getByLabel("Kind").selectOption("code");
  await page.getByLabel("Name", { exact: true }).fill(`code-${run}`);
  await page.getByLabel("Code", { exact: true }).fill("def evaluate(output):\n    return 1");
  await page.getByRole("button", { name: "Create evaluator" }).click();
  await expect(page.getByRole("alert")).toContainText("Not available on this server");
  await expect(page.getByRole("alert")).toContainText("sandbox");
  await shot(page, testInfo, "code-501");
});

test("a VIEWER reads evaluators, rules and connections without a button that changes them; the server refuses their writes", async ({ page, baseURL }, testInfo) => {
  test.setTimeout(90_000);
  expect(ruleUrl, "the first test made a rule").not.toBe("");
  await page.goto("/sign-in");
  await signIn(page, loupe.email, loupe.password);
  await expect(page).toHaveURL(`/project/${loupe.projectId}/observations`);
  const email = await newViewer(page, "eval-viewer", baseURL!, loupe.projectId);

  await page.context().clearCookies();
  await page.goto("/sign-in");
  await signIn(page, email, PASSWORD);
  await expect(page).toHaveURL(/\/project\//);
  await page.goto(`/project/${loupe.projectId}/evaluators`);
  await expect(page.getByRole("table", { name: "Evaluators" })).toContainText(evaluatorName);
  await expect(page.getByRole("link", { name: "New evaluator" })).toHaveCount(0);
  await expect(page.getByRole("link", { name: "New rule" })).toHaveCount(0);
  await shot(page, testInfo, "viewer-list");
  await page.goto(ruleUrl);
  await expect(page.getByRole("heading", { name: ruleName, level: 1 })).toBeVisible();
  await expect(page.getByRole("table", { name: "Executions" })).toContainText("completed");
  await expect(page.getByRole("button", { name: /^(Edit|Delete|Disable|Run over this range)$/ })).toHaveCount(0);
  await page.goto(`/project/${loupe.projectId}/settings#llm-connections`);
  const section = page.getByRole("region", { name: "LLM connections" });
  await expect(section.getByRole("table", { name: "LLM connections" })).toContainText(connection);
  await expect(section.getByRole("button", { name: /Add connection|Edit connection|Delete connection/ })).toHaveCount(0);
  await shot(page, testInfo, "viewer-connections");

  // What the pages do not offer, the server refuses too.
  const me = await (await page.request.get("/api/ui/me")).json();
  const headers = { "X-CSRF-Token": me.csrfToken, "X-Loupe-Project": loupe.projectId };
  const evaluator = await page.request.post("/api/public/v2/evaluators", {
    headers,
    data: { type: "llm_as_judge", name: `viewer-${run}`, prompt: [{ role: "user", content: "{{input}}" }], outputDefinition: { dataType: "BOOLEAN" } },
  });
  expect(evaluator.status(), await evaluator.text()).toBe(403);
  const upsert = await page.request.put("/api/public/llm-connections", {
    headers,
    data: { provider: connection, adapter: "openai", secretKey: "sk-viewer" },
  });
  expect(upsert.status(), await upsert.text()).toBe(403);
});
