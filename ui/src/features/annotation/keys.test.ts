import { describe, expect, it } from "vitest";

import type { ScoreConfig } from "../../api/trace";
import { keyAction, type KeyContext } from "./keys";

const quality: ScoreConfig = {
  id: "quality",
  name: "quality",
  dataType: "CATEGORICAL",
  isArchived: false,
  categories: [
    { label: "bad", value: 0 },
    { label: "ok", value: 1 },
    { label: "good", value: 2 },
  ],
};
const correct: ScoreConfig = { id: "correct", name: "correct", dataType: "BOOLEAN", isArchived: false };
const stars: ScoreConfig = { id: "stars", name: "stars", dataType: "NUMERIC", isArchived: false, minValue: 1, maxValue: 5 };
const ratio: ScoreConfig = { id: "ratio", name: "ratio", dataType: "NUMERIC", isArchived: false, minValue: 0, maxValue: 1 };

function context(focus: number, values: Record<string, string> = {}, inField = false): KeyContext {
  return { configs: [quality, correct, stars, ratio], values, focus, inField };
}

describe("the work view's keys", () => {
  it("complete with Enter or c, skip with s", () => {
    expect(keyAction({ key: "Enter" }, context(0))).toEqual({ kind: "complete" });
    expect(keyAction({ key: "c" }, context(0))).toEqual({ kind: "complete" });
    expect(keyAction({ key: "s" }, context(0))).toEqual({ kind: "skip" });
    expect(keyAction({ key: "Enter", shiftKey: true }, context(0))).toBeNull();
    expect(keyAction({ key: "c", ctrlKey: true }, context(0))).toBeNull();
  });

  it("leave keys typed into a field alone, except Enter", () => {
    expect(keyAction({ key: "s" }, context(0, {}, true))).toBeNull();
    expect(keyAction({ key: "3" }, context(2, {}, true))).toBeNull();
    expect(keyAction({ key: "Enter" }, context(2, {}, true))).toEqual({ kind: "complete" });
  });

  it("move between configs with the up and down arrows, stopping at the ends", () => {
    expect(keyAction({ key: "ArrowDown" }, context(0))).toEqual({ kind: "focus", index: 1 });
    expect(keyAction({ key: "ArrowUp" }, context(1))).toEqual({ kind: "focus", index: 0 });
    expect(keyAction({ key: "ArrowUp" }, context(0))).toBeNull();
    expect(keyAction({ key: "ArrowDown" }, context(3))).toBeNull();
  });

  it("pick a category by its number or step through them", () => {
    expect(keyAction({ key: "3" }, context(0))).toEqual({ kind: "set", configId: "quality", raw: "good" });
    expect(keyAction({ key: "4" }, context(0))).toBeNull();
    expect(keyAction({ key: "0" }, context(0))).toBeNull();
    expect(keyAction({ key: "ArrowRight" }, context(0, { quality: "bad" }))).toEqual({ kind: "set", configId: "quality", raw: "ok" });
    expect(keyAction({ key: "ArrowRight" }, context(0, { quality: "good" }))).toEqual({ kind: "set", configId: "quality", raw: "good" });
    expect(keyAction({ key: "ArrowLeft" }, context(0, {}))).toEqual({ kind: "set", configId: "quality", raw: "good" });
  });

  it("answer a boolean with 1 or 0, or toggle it", () => {
    expect(keyAction({ key: "1" }, context(1))).toEqual({ kind: "set", configId: "correct", raw: "1" });
    expect(keyAction({ key: "0" }, context(1))).toEqual({ kind: "set", configId: "correct", raw: "0" });
    expect(keyAction({ key: "2" }, context(1))).toBeNull();
    expect(keyAction({ key: "ArrowLeft" }, context(1, { correct: "1" }))).toEqual({ kind: "set", configId: "correct", raw: "0" });
  });

  it("set a number within the range, and step it without leaving the range", () => {
    expect(keyAction({ key: "4" }, context(2))).toEqual({ kind: "set", configId: "stars", raw: "4" });
    expect(keyAction({ key: "0" }, context(2))).toBeNull();
    expect(keyAction({ key: "9" }, context(2))).toBeNull();
    expect(keyAction({ key: "ArrowRight" }, context(2, {}))).toEqual({ kind: "set", configId: "stars", raw: "1" });
    expect(keyAction({ key: "ArrowRight" }, context(2, { stars: "5" }))).toEqual({ kind: "set", configId: "stars", raw: "5" });
    expect(keyAction({ key: "ArrowLeft" }, context(2, { stars: "3" }))).toEqual({ kind: "set", configId: "stars", raw: "2" });
    expect(keyAction({ key: "ArrowRight" }, context(3, { ratio: "0.2" }))).toEqual({ kind: "set", configId: "ratio", raw: "0.3" });
    expect(keyAction({ key: "ArrowRight" }, context(3, { ratio: "1" }))).toEqual({ kind: "set", configId: "ratio", raw: "1" });
  });
});
