import { describe, expect, it } from "vitest";

import { EMPTY_EVALUATOR, EMPTY_RULE, evaluatorForm, evaluatorRequest, promptParts, promptVariables, ruleRequest, runRange } from "./forms";
import type { Evaluator } from "./api";

describe("prompt variables", () => {
  it("finds {{names}} as the server does: trimmed, once each, in order of first use", () => {
    const messages = [
      { role: "system" as const, content: "Judge {{ input }} against {{expected_output}}." },
      { role: "user" as const, content: "{{input}} then {{output}} and {{not a var}} and {{}} and {{unclosed" },
    ];
    expect(promptVariables(messages)).toEqual(["input", "expected_output", "output"]);
  });

  it("cuts a text into plain parts and placeholders that join back into the text", () => {
    const text = "Q: {{input}}\nA: {{ output }} {{bad name}}!";
    const parts = promptParts(text);
    expect(parts.map((p) => p.text).join("")).toBe(text);
    expect(parts.filter((p) => p.variable).map((p) => p.variable)).toEqual(["input", "output"]);
    expect(parts.find((p) => p.text.includes("bad name"))?.variable).toBeUndefined();
    expect(promptParts("")).toEqual([]);
  });
});

describe("the evaluator form", () => {
  it("sends an LLM-as-a-judge body with the range, the model and only the mapped variables", () => {
    const checked = evaluatorRequest({
      ...EMPTY_EVALUATOR,
      name: " correctness ",
      model: "stub|judge-1",
      mapping: { output: { source: "output", jsonPath: "$.text" } },
    });
    expect(checked.ok).toBe(true);
    if (!checked.ok) return;
    expect(checked.value).toMatchObject({
      type: "llm_as_judge",
      name: "correctness",
      modelConfig: { provider: "stub", model: "judge-1" },
      outputDefinition: { dataType: "NUMERIC", minValue: 0, maxValue: 1 },
      // `input` has no row: its default source (its own name) is sent.
      variableMapping: [
        { variable: "input", source: "input" },
        { variable: "output", source: "output", jsonPath: "$.text" },
      ],
    });
  });

  it("lists every problem at its field", () => {
    const checked = evaluatorRequest({
      ...EMPTY_EVALUATOR,
      name: "",
      minValue: "2",
      maxValue: "1",
      dataType: "NUMERIC",
      mapping: { output: { source: "output", jsonPath: "$..deep" } },
    });
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(Object.keys(checked.problems).sort()).toEqual(["mapping", "name", "range"]);
    expect(checked.mappingProblems?.output).toMatch(/not supported/);
  });

  it("needs two categories for a categorical score and a prompt", () => {
    const categorical = evaluatorRequest({ ...EMPTY_EVALUATOR, name: "tone", dataType: "CATEGORICAL", categories: "polite\n\npolite" });
    expect(categorical.ok || categorical.problems.categories).toMatch(/two categories/);
    const empty = evaluatorRequest({ ...EMPTY_EVALUATOR, name: "x", messages: [{ role: "user", content: "  " }] });
    expect(empty.ok || empty.problems.messages).toBeTruthy();
    const ok = evaluatorRequest({ ...EMPTY_EVALUATOR, name: "tone", dataType: "CATEGORICAL", categories: "polite\nrude", allowMultiple: true });
    expect(ok.ok && ok.value.outputDefinition).toEqual({ dataType: "CATEGORICAL", categories: ["polite", "rude"], shouldAllowMultipleMatches: true });
  });

  it("sends a code evaluator as such (the server answers 501)", () => {
    const checked = evaluatorRequest({ ...EMPTY_EVALUATOR, kind: "code", name: "len", code: "def score(x): return 1" });
    expect(checked.ok && checked.value).toEqual({ type: "code", name: "len", sourceCodeLanguage: "PYTHON", sourceCode: "def score(x): return 1" });
  });

  it("reads an evaluator back into the form unchanged", () => {
    const evaluator = {
      name: "c",
      description: null,
      prompt: [{ role: "user", content: "{{input}}" }],
      modelConfig: { provider: "p", model: "m" },
      variableMapping: [{ variable: "input", source: "metadata", jsonPath: "$.q" }],
      outputDefinition: { dataType: "BOOLEAN" },
    } as unknown as Evaluator;
    const checked = evaluatorRequest(evaluatorForm(evaluator));
    expect(checked.ok && checked.value).toMatchObject({
      prompt: evaluator.prompt,
      modelConfig: evaluator.modelConfig,
      variableMapping: evaluator.variableMapping,
      outputDefinition: { dataType: "BOOLEAN" },
    });
  });
});

describe("the rule form", () => {
  it("checks sampling, delay and the evaluator, and sends overrides only for mapped variables", () => {
    const bad = ruleRequest({ ...EMPTY_RULE, name: "r", sampling: "1.5", delaySeconds: "90000" }, []);
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(Object.keys(bad.problems).sort()).toEqual(["delaySeconds", "evaluatorId", "sampling"]);
    const ok = ruleRequest(
      { ...EMPTY_RULE, name: "r", evaluatorId: "ev1", sampling: "0.5", delaySeconds: "30", mapping: { output: { source: "output", jsonPath: "$.text" }, input: { source: "", jsonPath: "" } } },
      ["input", "output"],
    );
    expect(ok.ok && ok.value).toEqual({
      name: "r",
      target: "observation",
      enabled: true,
      sampling: 0.5,
      delaySeconds: 30,
      filter: [{ type: "stringOptions", column: "type", operator: "any of", value: ["GENERATION"] }],
      evaluatorAssignments: [{ evaluatorId: "ev1", variableMapping: [{ variable: "output", source: "output", jsonPath: "$.text" }] }],
    });
  });

  it("takes a run's range only when it ends after it starts", () => {
    expect(runRange("", "2026-01-01T00:00")).toMatch(/starts/);
    expect(runRange("2026-01-02T00:00", "2026-01-01T00:00")).toMatch(/end after/);
    const range = runRange("2026-01-01T00:00", "2026-01-02T00:00");
    expect(typeof range === "object" && new Date(range.to).getTime() - new Date(range.from).getTime()).toBe(86_400_000);
  });
});
