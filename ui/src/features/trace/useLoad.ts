// A value loaded from the server for the current inputs: loading, loaded or failed, reloadable;
// answers that arrive after the inputs changed are dropped.

import { useCallback, useEffect, useMemo, useRef, useState } from "react";

export type Loaded<T> =
  | { status: "loading"; data?: T }
  | { status: "done"; data: T }
  | { status: "error"; error: unknown; data?: T };

export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: readonly unknown[]): [Loaded<T>, () => Promise<T | undefined>] {
  const [state, setState] = useState<Loaded<T>>({ status: "loading" });
  const generation = useRef(0);
  const run = useCallback(load, deps);

  const reload = useCallback(async (): Promise<T | undefined> => {
    const mine = ++generation.current;
    const controller = new AbortController();
    try {
      const data = await run(controller.signal);
      if (mine === generation.current) setState({ status: "done", data });
      return data;
    } catch (error) {
      if (mine === generation.current && !(error instanceof DOMException && error.name === "AbortError")) {
        setState((previous) => ({ status: "error", error, ...(previous.data !== undefined ? { data: previous.data } : {}) }));
      }
      return undefined;
    }
  }, [run]);

  useEffect(() => {
    setState({ status: "loading" });
    void reload();
    return () => {
      generation.current++;
    };
  }, [reload]);

  return [state, reload];
}

/**
 * `useLoad`, with the first request sent while the component renders rather than after it commits.
 * A page loaded lazily commits some 300 ms after it rendered (React throttles a Suspense boundary's
 * reveal), and an effect's request would wait for that; this one is under way meanwhile. Reloads
 * send a new request.
 */
export function useEarlyLoad<T>(start: () => Promise<T>, deps: readonly unknown[]): [Loaded<T>, () => Promise<T | undefined>] {
  const early = useMemo(() => {
    const promise = start();
    promise.catch(() => undefined); // handled where it is awaited
    return { promise: promise as Promise<T> | null };
    // `start` is a new function each render; `deps` say when it asks for something else.
  }, deps);
  return useLoad(() => {
    const first = early.promise;
    early.promise = null;
    return first ?? start();
  }, [early]);
}
