import { describe, expect, it } from "vitest";

import type { Score } from "../../api/trace";
import { authorName, isStored, scoreText, withPending, type Pending } from "./Scores";

const score = (id: string, value: Score["value"], extra: Partial<Score> = {}): Score => ({
  id,
  name: "quality",
  source: "ANNOTATION",
  timestamp: "2025-05-01T00:00:00.000Z",
  dataType: "NUMERIC",
  value,
  comment: null,
  ...extra,
});

describe("pending score changes", () => {
  it("show at once and go once the stored scores say the same", () => {
    const created: Pending = { kind: "create", score: score("new", 7) };
    const edited: Pending = { kind: "update", id: "a", value: 9, comment: "better" };
    const deleted: Pending = { kind: "delete", id: "b" };
    const stored = [score("a", 3), score("b", 1)];
    const shown = withPending(stored, [created, edited, deleted]);
    expect(shown.map((s) => [s.id, s.value, s.saving ?? false])).toEqual([
      ["new", 7, true],
      ["a", 9, true],
    ]);
    expect(isStored(created, stored)).toBe(false);
    expect(isStored(created, [score("new", 7)])).toBe(true);
    expect(isStored(edited, stored)).toBe(false);
    expect(isStored(edited, [score("a", 9, { comment: "better" })])).toBe(true);
    expect(isStored(deleted, stored)).toBe(false);
    expect(isStored(deleted, [score("a", 3)])).toBe(true);
  });

  it("compare booleans and categories as they are shown", () => {
    const edited: Pending = { kind: "update", id: "a", value: true, comment: null };
    expect(isStored(edited, [score("a", true, { dataType: "BOOLEAN" })])).toBe(true);
    expect(scoreText({ dataType: "BOOLEAN", value: false })).toBe("False");
    expect(scoreText({ dataType: "NUMERIC", value: 0.123456 })).toBe("0.1235");
    expect(scoreText({ dataType: "CATEGORICAL", value: "good" })).toBe("good");
  });
});

describe("authors", () => {
  it("are you, a member by name, a teammate, or the API", () => {
    const people = { me: "u1", names: new Map([["u2", "Ada"]]) };
    expect(authorName(people, "u1")).toBe("You");
    expect(authorName(people, "u2")).toBe("Ada");
    expect(authorName(people, "u3")).toBe("A teammate");
    expect(authorName(people, null)).toBe("API");
  });
});
