// Live mode: rows newer than the newest shown are fetched every few seconds and put on top. The API
// answers newest first; a row already shown (the newest millisecond is asked for again, and a row
// may be reported twice while it is written) is kept once, in its newer version.

export interface Timed {
  id: string;
  startTime: string;
}

/** Newest first, as the API orders: start time, then id, descending (ties never reorder rows). */
function newerFirst(a: Timed, b: Timed): number {
  const at = Date.parse(a.startTime);
  const bt = Date.parse(b.startTime);
  if (at !== bt) return bt - at;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/** `shown` with `incoming` merged in: no id twice (an incoming row replaces the shown one), newest
 * first. `shown` is already in order, so only the incoming rows are sorted; the result is a new
 * array only when something changed. */
export function mergeNewer<T extends Timed>(shown: readonly T[], incoming: readonly T[]): readonly T[] {
  if (incoming.length === 0) return shown;
  const fresh = new Map<string, T>();
  for (const row of incoming) fresh.set(row.id, row);
  const replaced = shown.map((row) => {
    const update = fresh.get(row.id);
    if (!update) return row;
    fresh.delete(row.id);
    return update;
  });
  const added = [...fresh.values()].sort(newerFirst);
  if (added.length === 0 && replaced.every((row, i) => row === shown[i])) return shown;
  if (added.length === 0) return replaced;
  // Usually every added row is newer than the shown ones; a late one is placed by its time.
  const merged = [...replaced];
  for (const row of added) {
    let at = 0;
    while (at < merged.length && newerFirst(merged[at] as T, row) <= 0) at += 1;
    merged.splice(at, 0, row);
  }
  return merged;
}

/** Adds the next page under the shown rows, skipping ids already shown (a row that live mode
 * put on top can come again on a later page). */
export function appendPage<T extends Timed>(shown: readonly T[], page: readonly T[]): readonly T[] {
  const ids = new Set(shown.map((row) => row.id));
  const added = page.filter((row) => !ids.has(row.id));
  return added.length ? [...shown, ...added] : shown;
}

/** The start time live mode asks from: the newest shown (the API's `fromStartTime` is inclusive,
 * so rows of the same millisecond are fetched again and merged away). */
export function newestStart(rows: readonly Timed[]): string | null {
  let newest: string | null = null;
  let newestMs = -Infinity;
  for (const row of rows) {
    const ms = Date.parse(row.startTime);
    if (ms > newestMs) {
      newestMs = ms;
      newest = row.startTime;
    }
  }
  return newest;
}
