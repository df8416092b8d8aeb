import { describe, expect, it } from "vitest";

import { canonicalJson, diffLines, diffVersions, MAX_CELLS } from "./diff";

const render = (text: string, other: string) =>
  diffLines(text, other).map((l) => `${l.kind === "same" ? " " : l.kind === "added" ? "+" : "-"}${l.text}`);

describe("diffLines", () => {
  it("keeps common lines and marks the rest", () => {
    expect(render("a\nb\nc\nd", "a\nc\nd\ne")).toEqual([" a", "-b", " c", " d", "+e"]);
    expect(render("x\ny", "y\nx")).toEqual(["-x", " y", "+x"]);
  });

  it("handles empty sides and identical texts", () => {
    expect(render("", "one\ntwo")).toEqual(["+one", "+two"]);
    expect(render("one", "")).toEqual(["-one"]);
    expect(render("same\ntext", "same\ntext")).toEqual([" same", " text"]);
  });

  it("numbers the lines of each side", () => {
    const lines = diffLines("keep\nold\nend", "keep\nnew\nend");
    expect(lines.map((l) => [l.kind, l.oldNo, l.newNo])).toEqual([
      ["same", 1, 1],
      ["removed", 2, undefined],
      ["added", undefined, 2],
      ["same", 3, 3],
    ]);
  });

  it("finds a longest common subsequence in the middle", () => {
    const out = diffLines("h\n1\n2\n3\n4\nt", "h\n1\nx\n3\n4\ny\nt");
    expect(out.filter((l) => l.kind === "same").map((l) => l.text)).toEqual(["h", "1", "3", "4", "t"]);
  });

  it("falls back to removed-then-added past the table bound", () => {
    const n = Math.ceil(Math.sqrt(MAX_CELLS)) + 1;
    const a = Array.from({ length: n }, (_, i) => `a${i}`).join("\n");
    const b = Array.from({ length: n }, (_, i) => `b${i}`).join("\n");
    const out = diffLines(`top\n${a}`, `top\n${b}`);
    expect(out[0]).toMatchObject({ kind: "same", text: "top" });
    expect(out[1]).toMatchObject({ kind: "removed", text: "a0" });
    expect(out.at(-1)).toMatchObject({ kind: "added", text: `b${n - 1}` });
    expect(out).toHaveLength(1 + 2 * n);
  });
});

describe("diffVersions", () => {
  it("diffs texts and configs with keys in any order", () => {
    const sections = diffVersions(
      { type: "text", prompt: "Hi {{name}}", config: { b: 1, a: 2 } },
      { type: "text", prompt: "Hello {{name}}", config: { a: 2, b: 1 } },
    );
    expect(sections.map((s) => [s.title, s.changed])).toEqual([
      ["Prompt", true],
      ["Config", false],
    ]);
    expect(canonicalJson({ b: 1, a: { d: 1, c: 2 } })).toBe(canonicalJson({ a: { c: 2, d: 1 }, b: 1 }));
  });

  it("diffs chat messages by position, role changes and added messages included", () => {
    const sections = diffVersions(
      { type: "chat", prompt: [{ role: "system", content: "Be brief" }, { role: "user", content: "{{q}}" }], config: {} },
      {
        type: "chat",
        prompt: [
          { role: "system", content: "Be brief" },
          { role: "assistant", content: "{{q}}" },
          { type: "placeholder", name: "history" },
        ],
        config: { temperature: 0 },
      },
    );
    expect(sections.map((s) => [s.title, s.changed])).toEqual([
      ["Message 1 · system", false],
      ["Message 2 · user → assistant", true],
      ["Message 3 · placeholder", true],
      ["Config", true],
    ]);
    expect(sections[2]!.lines).toEqual([{ kind: "added", text: "{{history}}", newNo: 1 }]);
  });

  it("compares a text version with a chat version as text", () => {
    const [prompt] = diffVersions({ type: "text", prompt: "Hi", config: {} }, { type: "chat", prompt: [{ role: "user", content: "Hi" }], config: {} });
    expect(prompt!.title).toBe("Prompt (text → chat)");
    expect(prompt!.lines.map((l) => l.kind)).toEqual(["added", "same"]);
  });
});
