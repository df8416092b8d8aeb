import { describe, expect, it } from "vitest";

import { canManage, canWrite, checkEmail, checkRetention, envSnippet, modelRequest, scoreConfigRequest, type ModelForm, type ScoreConfigForm } from "./forms";

const config: ScoreConfigForm = { name: "helpfulness", dataType: "NUMERIC", minValue: "", maxValue: "", categories: "", description: "" };
const model: ModelForm = { modelName: "my-model", matchPattern: "(?i)^my-model$", unit: "TOKENS", prices: [{ key: "input", price: "0.000001" }, { key: "output", price: "0.000002" }] };

describe("score config form", () => {
  it("sends an unbounded numeric config without min and max", () => {
    expect(scoreConfigRequest(config)).toEqual({ ok: true, value: { name: "helpfulness", dataType: "NUMERIC" } });
  });

  it("sends the range, and refuses a minimum above the maximum or a non-number", () => {
    expect(scoreConfigRequest({ ...config, minValue: "0", maxValue: "1" })).toEqual({
      ok: true,
      value: { name: "helpfulness", dataType: "NUMERIC", minValue: 0, maxValue: 1 },
    });
    expect(scoreConfigRequest({ ...config, minValue: "2", maxValue: "1" })).toEqual({ ok: false, problems: { maxValue: "Must not be below the minimum" } });
    expect(scoreConfigRequest({ ...config, minValue: "low" })).toMatchObject({ ok: false, problems: { minValue: expect.any(String) } });
  });

  it("reads categories as labels, numbered in order unless given a value", () => {
    const answer = scoreConfigRequest({ ...config, dataType: "CATEGORICAL", categories: "good\n bad \n\nmeh=5", minValue: "9" });
    expect(answer).toEqual({
      ok: true,
      value: { name: "helpfulness", dataType: "CATEGORICAL", categories: [{ label: "good", value: 0 }, { label: "bad", value: 1 }, { label: "meh", value: 5 }] },
    });
  });

  it("refuses no categories, duplicates and bad values", () => {
    const categorical = { ...config, dataType: "CATEGORICAL" as const };
    expect(scoreConfigRequest(categorical)).toMatchObject({ ok: false, problems: { categories: expect.stringContaining("at least one") } });
    expect(scoreConfigRequest({ ...categorical, categories: "a=1\nb=1" })).toMatchObject({ ok: false, problems: { categories: expect.stringContaining("unique") } });
    expect(scoreConfigRequest({ ...categorical, categories: "a=x" })).toMatchObject({ ok: false, problems: { categories: expect.stringContaining("label=number") } });
  });

  it("keeps the upstream name rules", () => {
    expect(scoreConfigRequest({ ...config, name: " " })).toMatchObject({ ok: false, problems: { name: "Enter a name" } });
    expect(scoreConfigRequest({ ...config, name: "x".repeat(36) })).toMatchObject({ ok: false, problems: { name: "At most 35 characters" } });
    expect(scoreConfigRequest({ ...config, name: "no/slashes" })).toMatchObject({ ok: false, problems: { name: expect.any(String) } });
  });

  it("sends a boolean config without range or categories", () => {
    expect(scoreConfigRequest({ ...config, dataType: "BOOLEAN", minValue: "1", categories: "a" })).toEqual({ ok: true, value: { name: "helpfulness", dataType: "BOOLEAN" } });
  });
});

describe("model form", () => {
  it("sends one default pricing tier with a price per usage key", () => {
    expect(modelRequest(model)).toEqual({
      ok: true,
      value: {
        modelName: "my-model",
        matchPattern: "(?i)^my-model$",
        unit: "TOKENS",
        pricingTiers: [{ name: "Standard", isDefault: true, priority: 0, conditions: [], prices: { input: 0.000001, output: 0.000002 } }],
      },
    });
  });

  it("skips empty rows and refuses bad prices, bad keys, duplicates and no price at all", () => {
    expect(modelRequest({ ...model, prices: [{ key: "input", price: "1" }, { key: "", price: "" }] })).toMatchObject({ ok: true });
    expect(modelRequest({ ...model, prices: [{ key: "input", price: "-1" }] })).toMatchObject({ ok: false, problems: { prices: expect.stringContaining("≥ 0") } });
    expect(modelRequest({ ...model, prices: [{ key: "in put", price: "1" }] })).toMatchObject({ ok: false, problems: { prices: expect.stringContaining("usage key") } });
    expect(modelRequest({ ...model, prices: [{ key: "input", price: "1" }, { key: "input", price: "2" }] })).toMatchObject({ ok: false, problems: { prices: expect.stringContaining("twice") } });
    expect(modelRequest({ ...model, prices: [] })).toMatchObject({ ok: false, problems: { prices: expect.stringContaining("at least one") } });
  });

  it("refuses a pattern that is no regular expression, and a missing name", () => {
    expect(modelRequest({ ...model, matchPattern: "(?i)^(broken$" })).toMatchObject({ ok: false, problems: { matchPattern: "Not a valid regular expression" } });
    expect(modelRequest({ ...model, modelName: "" })).toMatchObject({ ok: false, problems: { modelName: expect.any(String) } });
  });
});

describe("small rules", () => {
  it("writes the .env lines of a new key", () => {
    expect(envSnippet("pk-lf-1", "sk-lf-2", "https://loupe.example")).toBe(
      "LANGFUSE_PUBLIC_KEY=pk-lf-1\nLANGFUSE_SECRET_KEY=sk-lf-2\nLANGFUSE_BASE_URL=https://loupe.example",
    );
  });

  it("checks retention as the server does", () => {
    expect(checkRetention("0")).toEqual({ days: 0 });
    expect(checkRetention("30")).toEqual({ days: 30 });
    expect(checkRetention("2")).toHaveProperty("problem");
    expect(checkRetention("1.5")).toHaveProperty("problem");
    expect(checkRetention("")).toHaveProperty("problem");
  });

  it("checks an invitation's address", () => {
    expect(checkEmail(" ada@example.com ")).toBeNull();
    expect(checkEmail("")).toBe("Enter an email address");
    expect(checkEmail("ada")).toBe("Enter a valid email address");
  });

  it("gives buttons by role", () => {
    expect([canManage("OWNER"), canManage("ADMIN"), canManage("MEMBER"), canManage("VIEWER")]).toEqual([true, true, false, false]);
    expect([canWrite("MEMBER"), canWrite("VIEWER"), canWrite("NONE"), canWrite(undefined)]).toEqual([true, false, false, false]);
  });
});
