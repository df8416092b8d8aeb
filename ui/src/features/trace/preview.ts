// What the detail shows of a large value before anyone asks for more: nothing, the value (the
// preview was all of it), or the beginning of its text with its whole size.

import type { ValuePreview } from "../../api/trace";
import { parseStored } from "../../components/value/jsonModel";

export type Shown =
  | { kind: "empty" }
  | { kind: "value"; value: unknown }
  | { kind: "truncated"; text: string; bytes: number };

export function readPreview(preview: ValuePreview): Shown {
  if (preview.preview === null || preview.preview === "") return { kind: "empty" };
  if (preview.truncated) return { kind: "truncated", text: preview.preview, bytes: preview.bytes };
  return { kind: "value", value: parseStored(preview.preview) };
}

/** `512 B`, `64.0 KiB`, `20.0 MB` as people read sizes. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** A duration given in microseconds: `850 µs`, `12 ms`, `1.52 s`, `3m 05s`. */
export function formatDuration(micros: number): string {
  if (micros < 1000) return `${Math.round(micros)} µs`;
  const ms = micros / 1000;
  if (ms < 1000) return `${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(2)} s`;
  const minutes = Math.floor(s / 60);
  return `${minutes}m ${String(Math.round(s - minutes * 60)).padStart(2, "0")}s`;
}

/** USD: `$0.0012`, `$1.25`. */
export function formatCost(usd: number): string {
  if (usd === 0) return "$0";
  if (usd < 0.01) return `$${usd.toPrecision(2)}`;
  return `$${usd.toFixed(usd < 1 ? 4 : 2)}`;
}
