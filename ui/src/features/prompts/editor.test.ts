import { describe, expect, it } from "vitest";

import { draftFrom, emptyDraft, MAX_MESSAGES, parseConfig, validateDraft, type Draft } from "./editor";

const draft = (changes: Partial<Draft>): Draft => ({ ...emptyDraft("team/greet"), ...changes });

describe("validateDraft", () => {
  it("sends a text prompt with its config, labels, tags and commit message", () => {
    const result = validateDraft(
      draft({ text: "Hi {{name}}", config: '{"temperature": 0.2}', labels: "production, staging production", tags: "demo, two words", commitMessage: " first " }),
    );
    expect(result.errors).toBeNull();
    expect(result.body).toEqual({
      name: "team/greet",
      type: "text",
      prompt: "Hi {{name}}",
      config: { temperature: 0.2 },
      labels: ["production", "staging"],
      tags: ["demo", "two words"],
      commitMessage: "first",
    });
  });

  it("sends chat messages and placeholders", () => {
    const result = validateDraft(
      draft({
        type: "chat",
        messages: [
          { role: "system", content: "Be brief" },
          { role: "placeholder", content: "history" },
          { role: "user", content: "{{q}}" },
        ],
        config: "",
      }),
    );
    expect(result.body?.prompt).toEqual([
      { role: "system", content: "Be brief" },
      { type: "placeholder", name: "history" },
      { role: "user", content: "{{q}}" },
    ]);
    expect(result.body?.config).toEqual({});
  });

  it("puts each problem at its field", () => {
    const result = validateDraft(
      draft({
        name: "team//x",
        type: "chat",
        messages: [
          { role: "", content: "no role" },
          { role: "placeholder", content: " " },
          { role: "user", content: "fine" },
        ],
        config: "{temperature: 1}",
        labels: "Production latest",
        commitMessage: "x".repeat(1001),
      }),
    );
    expect(result.body).toBeNull();
    expect(result.errors?.name).toMatch(/single '\/'/);
    expect(result.errors?.message).toEqual({ 0: "A role is required", 1: "A placeholder needs a name" });
    expect(result.errors?.config).toMatch(/^Not valid JSON/);
    expect(result.errors?.labels).toMatch(/Production/);
    expect(result.errors?.commitMessage).toMatch(/1000/);
  });

  it("refuses an empty text, no messages, too many messages, reserved names and latest", () => {
    expect(validateDraft(draft({ text: "  " })).errors?.text).toBe("The prompt is empty");
    expect(validateDraft(draft({ type: "chat", messages: [] })).errors?.messages).toMatch(/at least one/);
    const many = Array.from({ length: MAX_MESSAGES + 1 }, () => ({ role: "user", content: "x" }));
    expect(validateDraft(draft({ type: "chat", messages: many })).errors?.messages).toMatch(/At most/);
    expect(validateDraft(draft({ name: "new", text: "x" })).errors?.name).toMatch(/reserved/);
    expect(validateDraft(draft({ name: "a|b", text: "x" })).errors?.name).toMatch(/\|/);
    expect(validateDraft(draft({ text: "x", labels: "latest" })).errors?.labels).toMatch(/newest/);
  });
});

describe("parseConfig", () => {
  it("accepts objects only", () => {
    expect(parseConfig('{"a": [1]}')).toEqual({ value: { a: [1] } });
    expect(parseConfig("[1]")).toEqual({ error: "The config must be a JSON object ({…})" });
    expect(parseConfig("null")).toHaveProperty("error");
    expect(parseConfig("  ")).toEqual({ value: {} });
  });
});

describe("draftFrom", () => {
  it("starts a new version from an existing chat version", () => {
    const d = draftFrom({
      name: "team/greet",
      type: "chat",
      prompt: [{ role: "system", content: "Hi" }, { type: "placeholder", name: "history" }],
      config: { model: "gpt" },
      tags: ["a", "b"],
    });
    expect(d.messages).toEqual([
      { role: "system", content: "Hi" },
      { role: "placeholder", content: "history" },
    ]);
    expect(JSON.parse(d.config)).toEqual({ model: "gpt" });
    expect(d.tags).toBe("a, b");
    expect(validateDraft(d).body?.prompt).toEqual([{ role: "system", content: "Hi" }, { type: "placeholder", name: "history" }]);
  });
});
