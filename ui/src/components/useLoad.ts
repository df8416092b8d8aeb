// Loads what a page shows and keeps it while it loads again: a new page of a list, a poll, or a
// retry never blanks what is on screen. A newer load wins over an older one still on its way (the
// older one is aborted), so fast typing or paging never shows stale answers.

import { useCallback, useEffect, useRef, useState, type DependencyList } from "react";

export interface Loaded<T> {
  /** The last answer, kept while the next one loads. */
  data: T | undefined;
  /** The last failure, cleared by the next success. */
  error: unknown;
  loading: boolean;
  /** Loads again with the same inputs. */
  reload(): void;
  /** Replaces the data (with what a change answered). */
  set(data: T): void;
}

function aborted(error: unknown): boolean {
  return error instanceof DOMException && error.name === "AbortError";
}

export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: DependencyList): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [loading, setLoading] = useState(true);
  const [round, setRound] = useState(0);
  const latest = useRef(load);
  latest.current = load;

  useEffect(() => {
    const controller = new AbortController();
    setLoading(true);
    latest
      .current(controller.signal)
      .then((answer) => {
        if (controller.signal.aborted) return;
        setData(answer);
        setError(undefined);
      })
      .catch((failure: unknown) => {
        if (controller.signal.aborted || aborted(failure)) return;
        setError(failure);
      })
      .finally(() => {
        if (!controller.signal.aborted) setLoading(false);
      });
    return () => controller.abort();
    // The caller names what the load depends on, as for useEffect; `load` itself is read fresh.
  }, [...deps, round]);

  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { data, error, loading, reload, set: setData };
}
