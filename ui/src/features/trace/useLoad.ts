// A value loaded from the server for the current inputs: loading, loaded or failed, reloadable;
// answers that arrive after the inputs changed are dropped.

import { useCallback, useEffect, useRef, useState } from "react";

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
