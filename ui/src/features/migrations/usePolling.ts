// Calls `poll` every `intervalMs` while the page is visible: a hidden tab asks the server nothing,
// and a tab that becomes visible again polls at once, so what it shows is never older than one
// interval of looking at it.

import { useEffect, useRef, useState } from "react";

import { pageVisible as visible } from "../../components/usePollWhile";

/** Returns whether polling is running (false while the tab is hidden). */
export function usePolling(poll: () => void, intervalMs: number): boolean {
  const latest = useRef(poll);
  latest.current = poll;
  const [active, setActive] = useState(visible);

  useEffect(() => {
    let timer: ReturnType<typeof setInterval> | null = null;
    const start = () => {
      if (timer === null) timer = setInterval(() => latest.current(), intervalMs);
    };
    const stop = () => {
      if (timer !== null) clearInterval(timer);
      timer = null;
    };
    const onChange = () => {
      if (visible()) {
        latest.current();
        start();
        setActive(true);
      } else {
        stop();
        setActive(false);
      }
    };
    if (visible()) start();
    document.addEventListener("visibilitychange", onChange);
    return () => {
      stop();
      document.removeEventListener("visibilitychange", onChange);
    };
  }, [intervalMs]);

  return active;
}
