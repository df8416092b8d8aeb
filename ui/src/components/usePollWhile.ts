// Follows something the server is working on (an export, a sync) until it ends: while `running`
// holds for the value shown, it is read again, first after `firstMs`, then each wait `factor` times
// the one before up to `maxMs`, so a short job shows its end at once and a long one costs few
// requests. Nothing is asked while the value is not running, nor while the tab is hidden (a tab
// shown again reads at once). A failed read is kept to show and tried again on the same schedule.

import { useEffect, useRef, useState } from "react";

export interface Backoff {
  firstMs: number;
  factor: number;
  maxMs: number;
}

/** Waits of 1 s, 1.5 s, 2.25 s … up to 10 s. */
export const BACKOFF: Backoff = { firstMs: 1000, factor: 1.5, maxMs: 10_000 };

/** Whether the page is seen (always, outside a browser). */
export function pageVisible(): boolean {
  return typeof document === "undefined" || document.visibilityState !== "hidden";
}

/** The waits before each read of a run: `firstMs`, then `factor` times longer, at most `maxMs`. */
export function waits(backoff: Backoff, count: number): number[] {
  const out: number[] = [];
  for (let wait = backoff.firstMs; out.length < count; wait = Math.min(wait * backoff.factor, backoff.maxMs)) out.push(wait);
  return out;
}

/**
 * Reads `read` again while `running(value)`; each answer goes to `onRead` (which shows it). Returns
 * the last read's failure (undefined once a read succeeds).
 */
export function usePollWhile<T>(
  value: T | null | undefined,
  running: (value: T) => boolean,
  read: (signal: AbortSignal) => Promise<T>,
  onRead: (value: T) => void,
  backoff: Backoff = BACKOFF,
): unknown {
  const active = value !== null && value !== undefined && running(value);
  const latest = useRef({ running, read, onRead });
  latest.current = { running, read, onRead };
  const [failure, setFailure] = useState<unknown>(undefined);
  const { firstMs, factor, maxMs } = backoff;

  useEffect(() => {
    if (!active) return;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | null = null;
    let unlisten: (() => void) | null = null;
    let wait = firstMs;
    const next = () => {
      timer = setTimeout(() => whenVisible(readOnce), wait);
      wait = Math.min(wait * factor, maxMs);
    };
    const whenVisible = (go: () => void) => {
      if (pageVisible()) return go();
      const onChange = () => {
        if (!pageVisible()) return;
        document.removeEventListener("visibilitychange", onChange);
        unlisten = null;
        go();
      };
      document.addEventListener("visibilitychange", onChange);
      unlisten = () => document.removeEventListener("visibilitychange", onChange);
    };
    const readOnce = () => {
      latest.current.read(controller.signal).then(
        (answer) => {
          if (controller.signal.aborted) return;
          setFailure(undefined);
          latest.current.onRead(answer);
          if (latest.current.running(answer)) next();
        },
        (error: unknown) => {
          if (controller.signal.aborted) return;
          // A blip must not stop the progress: shown, and tried again later.
          setFailure(error);
          next();
        },
      );
    };
    next();
    return () => {
      if (timer !== null) clearTimeout(timer);
      unlisten?.();
      controller.abort();
    };
  }, [active, firstMs, factor, maxMs]);

  return active ? failure : undefined;
}
