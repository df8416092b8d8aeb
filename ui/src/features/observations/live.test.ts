import { describe, expect, it } from "vitest";

import { appendPage, mergeNewer, newestStart } from "./live";

const row = (id: string, second: number, version = 1) => ({
  id,
  startTime: `2026-01-01T00:00:${String(second).padStart(2, "0")}.000Z`,
  version,
});

describe("live mode", () => {
  const shown = [row("c", 30), row("b", 20), row("a", 10)];

  it("puts newer rows on top, newest first", () => {
    const merged = mergeNewer(shown, [row("d", 40), row("e", 50)]);
    expect(merged.map((r) => r.id)).toEqual(["e", "d", "c", "b", "a"]);
  });

  it("never shows a row twice: a row fetched again replaces the shown one in place", () => {
    const merged = mergeNewer(shown, [row("c", 30, 2), row("d", 40), row("d", 40, 3)]);
    expect(merged.map((r) => r.id)).toEqual(["d", "c", "b", "a"]);
    expect(merged.find((r) => r.id === "c")?.version).toBe(2);
    expect(merged.find((r) => r.id === "d")?.version).toBe(3);
  });

  it("keeps the same array when nothing is new, so nothing re-renders", () => {
    expect(mergeNewer(shown, [])).toBe(shown);
    expect(mergeNewer(shown, [shown[0]!])).toBe(shown);
  });

  it("places a late row by its time, and rows of the same millisecond in a stable order", () => {
    const merged = mergeNewer(shown, [row("late", 15), row("z", 30)]);
    expect(merged.map((r) => r.id)).toEqual(["z", "c", "b", "late", "a"]);
  });

  it("asks from the newest shown start time", () => {
    expect(newestStart(shown)).toBe(shown[0]!.startTime);
    expect(newestStart([])).toBeNull();
  });

  it("appends a next page without the rows live mode already showed", () => {
    const appended = appendPage(shown, [row("a", 10), row("0", 5)]);
    expect(appended.map((r) => r.id)).toEqual(["c", "b", "a", "0"]);
    expect(appendPage(shown, [row("a", 10)])).toBe(shown);
  });
});
