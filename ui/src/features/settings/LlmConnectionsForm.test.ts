import { describe, expect, it } from "vitest";

import { connectionRequest, EMPTY_CONNECTION } from "./LlmConnectionsForm";

describe("the LLM connection form", () => {
  it("sends the SDK's upsert body: models from lines or commas, headers from Name: value lines", () => {
    const checked = connectionRequest({
      ...EMPTY_CONNECTION,
      provider: " stub ",
      secretKey: "sk-1",
      baseURL: "http://127.0.0.1:9000/v1",
      customModels: "judge-1, judge-2\njudge-1",
      extraHeaders: "X-Team: evals\n\nX-Other:a:b",
      withDefaultModels: false,
    });
    expect(checked.ok && checked.value).toEqual({
      provider: "stub",
      adapter: "openai",
      secretKey: "sk-1",
      baseURL: "http://127.0.0.1:9000/v1",
      customModels: ["judge-1", "judge-2"],
      withDefaultModels: false,
      extraHeaders: { "X-Team": "evals", "X-Other": "a:b" },
    });
  });

  it("names every problem: name, key, URL, Azure's URL, header lines and empty header values, models", () => {
    const checked = connectionRequest({ ...EMPTY_CONNECTION, baseURL: "ftp://x", extraHeaders: "bad header: 1", withDefaultModels: false });
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(Object.keys(checked.problems).sort()).toEqual(["baseURL", "customModels", "extraHeaders", "provider", "secretKey"]);
    const azure = connectionRequest({ ...EMPTY_CONNECTION, provider: "az", adapter: "azure", secretKey: "k" });
    expect(azure.ok || azure.problems.baseURL).toMatch(/Azure/);
    const emptyValue = connectionRequest({ ...EMPTY_CONNECTION, provider: "p", secretKey: "k", extraHeaders: "X-Team:" });
    expect(emptyValue.ok || emptyValue.problems.extraHeaders).toMatch(/value of X-Team/);
  });
});
