// The URL state of a page-numbered list with a search box: `update` changes some parameters (any
// change but the page's own goes back to page 1), and the search box answers every keystroke while
// the URL — and so the server — hears of it only once typing pauses.

import { useCallback, useEffect, useState } from "react";
import { useSearchParams } from "react-router";

/** How long typing must pause before a search is sent. */
export const SEARCH_DELAY_MS = 300;

export function useListParams() {
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number.parseInt(params.get("page") ?? "1", 10) || 1);
  const update = useCallback(
    (changes: Record<string, string | null>, replace = true) => {
      setParams(
        (current) => {
          const next = new URLSearchParams(current);
          for (const [key, value] of Object.entries(changes)) {
            if (value === null || value === "") next.delete(key);
            else next.set(key, value);
          }
          if (!("page" in changes)) next.delete("page");
          return next;
        },
        { replace },
      );
    },
    [setParams],
  );
  return { params, page, update };
}

/** The search box's text, and its setter; `commit` is called with the trimmed text once typing pauses. */
export function useTypedSearch(search: string, commit: (text: string) => void): [string, (text: string) => void] {
  const [typed, setTyped] = useState(search);
  useEffect(() => setTyped(search), [search]);
  useEffect(() => {
    if (typed.trim() === search) return;
    const timer = setTimeout(() => commit(typed.trim()), SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [typed, search, commit]);
  return [typed, setTyped];
}
