import { describe, expect, it } from "vitest";

import { errorsByField, parseJson, parseSchema, preview, showJson } from "./form";

describe("JSON boxes", () => {
  it("reads an empty box as not set and JSON as its value", () => {
    expect(parseJson("  ")).toEqual({ ok: true, value: undefined });
    expect(parseJson('{"q": 1}')).toEqual({ ok: true, value: { q: 1 } });
    expect(parseJson('"text"')).toEqual({ ok: true, value: "text" });
  });

  it("says what is wrong with text that is not JSON", () => {
    const parsed = parseJson("{q: 1}");
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toMatch(/^Not valid JSON: /);
  });

  it("takes only objects and booleans as schemas", () => {
    expect(parseSchema('{"type": "string"}').ok).toBe(true);
    expect(parseSchema("true").ok).toBe(true);
    expect(parseSchema("").ok).toBe(true);
    expect(parseSchema('"string"')).toEqual({ ok: false, error: expect.stringContaining("JSON Schema is an object") });
    expect(parseSchema("[1]").ok).toBe(false);
  });

  it("shows values back as pretty JSON, nothing for none", () => {
    expect(showJson(null)).toBe("");
    expect(showJson({ a: 1 })).toBe('{\n  "a": 1\n}');
  });
});

describe("the server's per-field refusals", () => {
  it("groups mismatches by field with their path", () => {
    const grouped = errorsByField([
      { field: "input", path: "/question", message: '5 is not of type "string"' },
      { field: "input", path: "", message: '"n" is a required property' },
      { field: "expectedOutput", path: "", message: '42 is not of type "string"' },
    ]);
    expect(grouped).toEqual({
      input: ['at /question: 5 is not of type "string"', '"n" is a required property'],
      expectedOutput: ['42 is not of type "string"'],
    });
    expect(errorsByField([])).toEqual({});
  });
});

describe("cell previews", () => {
  it("cuts long values and shows strings bare", () => {
    expect(preview("plain")).toBe("plain");
    expect(preview({ q: "x".repeat(200) }, 20)).toHaveLength(20);
    expect(preview(null)).toBe("");
  });
});
