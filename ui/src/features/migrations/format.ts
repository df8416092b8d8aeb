// The figures of a background migration step: progress as a percentage and rows, its rate, and the
// time it still needs.

import { formatCompact, formatCount, formatDuration } from "../../components/format";

/** "42.5 %", "100 %", "0.3 %"; null when nothing estimated the total. */
export function formatPercent(percent: number | null): string | null {
  if (percent === null || !Number.isFinite(percent)) return null;
  const clamped = Math.min(100, Math.max(0, percent));
  if (clamped === 100 || clamped === 0) return `${clamped} %`;
  // Never "100 %" before the end, never "0 %" once something is done.
  const shown = clamped >= 99.95 ? 99.9 : clamped < 0.05 ? 0.1 : Math.round(clamped * 10) / 10;
  return `${shown.toFixed(1)} %`;
}

/** "12,400 of 50,000 observations", "12,400 observations" while the total is unknown, or "no
 * observations to copy" when the step found none. */
export function formatRows(done: number, estimated: number | null, unit: string): string {
  if (estimated === null) return `${formatCount(done)} ${unit}`;
  if (estimated === 0 && done === 0) return `no ${unit} to copy`;
  return `${formatCount(done)} of ${formatCount(estimated)} ${unit}`;
}

/** "1.2k observations/s"; null when there is no rate yet. */
export function formatRate(rowsPerSecond: number | null, unit: string): string | null {
  if (rowsPerSecond === null || !Number.isFinite(rowsPerSecond) || rowsPerSecond <= 0) return null;
  const rate = rowsPerSecond < 10 ? rowsPerSecond.toFixed(1) : formatCompact(rowsPerSecond);
  return `${rate} ${unit}/s`;
}

/** "about 3 min left", "less than a minute left"; null when unknown. */
export function formatEta(seconds: number | null): string | null {
  if (seconds === null || !Number.isFinite(seconds) || seconds < 0) return null;
  if (seconds < 60) return "less than a minute left";
  return `about ${formatDuration(roundForEta(seconds))} left`;
}

/** An estimate is no more precise than its rate: whole minutes past a minute, whole hours past a day. */
function roundForEta(seconds: number): number {
  if (seconds < 3_600) return Math.round(seconds / 60) * 60;
  if (seconds < 86_400) return Math.round(seconds / 300) * 300;
  return Math.round(seconds / 3_600) * 3_600;
}
