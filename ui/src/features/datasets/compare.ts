// The runs side by side as rows: one per item of the page, holding each picked run's result
// (or nothing, where a run did not run the item); and the picked runs as the URL keeps them.

import type { Comparison, DatasetItem, RunCell, CellScore } from "./api";
import { MAX_COMPARED_RUNS } from "./api";

export interface CompareRow {
  item: DatasetItem;
  /** By run id. */
  cells: Record<string, RunCell>;
}

export function compareRows(comparison: Comparison): CompareRow[] {
  const byItem = new Map<string, Record<string, RunCell>>();
  for (const cell of comparison.cells) {
    const cells = byItem.get(cell.itemId) ?? {};
    cells[cell.runId] = cell;
    byItem.set(cell.itemId, cells);
  }
  return comparison.items.data.map((item) => ({ item, cells: byItem.get(item.id) ?? {} }));
}

/** The runs the URL picks (`runs=a,b`): known ones only, each once, at most five. */
export function pickedRuns(raw: string | null, known: readonly string[]): string[] {
  if (!raw) return [];
  const out: string[] = [];
  for (const id of raw.split(",")) {
    if (known.includes(id) && !out.includes(id) && out.length < MAX_COMPARED_RUNS) out.push(id);
  }
  return out;
}

/** Picks or unpicks `id`; a sixth pick is ignored. */
export function togglePick(picked: readonly string[], id: string): string[] {
  if (picked.includes(id)) return picked.filter((p) => p !== id);
  return picked.length >= MAX_COMPARED_RUNS ? [...picked] : [...picked, id];
}

/** A score as a cell shows it: `accuracy 0.83`, `tone terse`, `passed true`. */
export function scoreText(score: CellScore): string {
  if (score.stringValue !== null && score.dataType !== "NUMERIC") return `${score.name} ${score.stringValue}`;
  if (score.value === null) return score.name;
  if (score.dataType === "BOOLEAN") return `${score.name} ${score.value === 1 ? "true" : "false"}`;
  return `${score.name} ${formatNumber(score.value)}`;
}

/** Up to three significant decimals, no trailing zeros: 0.8333 → 0.833, 1 → 1. */
export function formatNumber(n: number): string {
  return Number.isInteger(n) ? String(n) : String(Number(n.toFixed(3)));
}
