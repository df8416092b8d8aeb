// The work view's keyboard, as a pure function of the key and what is on screen, so it is tested
// without a browser. Number keys and arrows score the focused config, ↑/↓ move between configs,
// Enter or c completes the item, s skips it.
//
// - CATEGORICAL: 1…9 pick the n-th category; ←/→ the previous/next one.
// - BOOLEAN: 1 is True, 0 False; ←/→ toggle.
// - NUMERIC: 0…9 set that number (when the range allows it); ←/→ step by 1 (0.1 on a range of 1
//   or less), kept within the range.

import type { ScoreConfig } from "../../api/trace";

export type WorkAction =
  | { kind: "set"; configId: string; raw: string }
  | { kind: "focus"; index: number }
  | { kind: "complete" }
  | { kind: "skip" };

export interface KeyContext {
  configs: readonly ScoreConfig[];
  /** The raw value of each config's input (a number as text, a category label, "1"/"0"). */
  values: Readonly<Record<string, string>>;
  focus: number;
  /** The key was typed into a field: only Enter acts then. */
  inField: boolean;
}

export interface KeyPress {
  key: string;
  ctrlKey?: boolean;
  metaKey?: boolean;
  altKey?: boolean;
  shiftKey?: boolean;
}

function inRange(config: ScoreConfig, value: number): boolean {
  const { minValue: min, maxValue: max } = config;
  return (min === null || min === undefined || value >= min) && (max === null || max === undefined || value <= max);
}

function clamp(config: ScoreConfig, value: number): number {
  const { minValue: min, maxValue: max } = config;
  let out = value;
  if (min !== null && min !== undefined) out = Math.max(min, out);
  if (max !== null && max !== undefined) out = Math.min(max, out);
  return out;
}

function numericStep(config: ScoreConfig): number {
  const { minValue: min, maxValue: max } = config;
  return min !== null && min !== undefined && max !== null && max !== undefined && max - min <= 1 ? 0.1 : 1;
}

/** The raw value after a digit, or null when the digit means nothing for this config. */
function digit(config: ScoreConfig, n: number): string | null {
  switch (config.dataType) {
    case "CATEGORICAL": {
      const category = n >= 1 ? config.categories?.[n - 1] : undefined;
      return category ? category.label : null;
    }
    case "BOOLEAN":
      return n === 1 ? "1" : n === 0 ? "0" : null;
    case "NUMERIC":
      return inRange(config, n) ? String(n) : null;
    default:
      return null;
  }
}

/** The raw value after ← (-1) or → (+1), or null when there is nothing to move to. */
function step(config: ScoreConfig, raw: string | undefined, direction: 1 | -1): string | null {
  switch (config.dataType) {
    case "CATEGORICAL": {
      const categories = config.categories ?? [];
      if (categories.length === 0) return null;
      const at = categories.findIndex((c) => c.label === raw);
      const next = at < 0 ? (direction > 0 ? 0 : categories.length - 1) : Math.min(Math.max(at + direction, 0), categories.length - 1);
      return (categories[next] as { label: string }).label;
    }
    case "BOOLEAN":
      return raw === "1" ? "0" : "1";
    case "NUMERIC": {
      const current = raw === undefined || raw.trim() === "" ? Number.NaN : Number(raw);
      const size = numericStep(config);
      const start = Number.isFinite(current) ? current + direction * size : (config.minValue ?? 0);
      // Rounded to the step's decimals: 0.1 + 0.2 is shown as 0.3.
      const value = clamp(config, Math.round(start * 10) / 10);
      return String(value);
    }
    default:
      return null;
  }
}

export function keyAction(press: KeyPress, context: KeyContext): WorkAction | null {
  if (press.ctrlKey || press.metaKey || press.altKey) return null;
  if (press.key === "Enter" && !press.shiftKey) return { kind: "complete" };
  if (context.inField) return null;
  const { configs, focus } = context;
  switch (press.key) {
    case "c":
      return { kind: "complete" };
    case "s":
      return { kind: "skip" };
    case "ArrowDown":
    case "ArrowUp": {
      if (configs.length === 0) return null;
      const index = Math.min(Math.max(focus + (press.key === "ArrowDown" ? 1 : -1), 0), configs.length - 1);
      return index === focus ? null : { kind: "focus", index };
    }
  }
  const config = configs[focus];
  if (!config) return null;
  if (/^[0-9]$/.test(press.key)) {
    const raw = digit(config, Number(press.key));
    return raw === null ? null : { kind: "set", configId: config.id, raw };
  }
  if (press.key === "ArrowLeft" || press.key === "ArrowRight") {
    const raw = step(config, context.values[config.id], press.key === "ArrowRight" ? 1 : -1);
    return raw === null ? null : { kind: "set", configId: config.id, raw };
  }
  return null;
}
