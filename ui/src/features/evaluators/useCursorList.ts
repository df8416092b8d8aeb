// A cursor-paged list (the v2 routes' `{data, meta: {cursor}}`): the first page, and more pages
// appended on demand.

import { useState, type DependencyList } from "react";

import { useLoad } from "../../components/useLoad";
import type { CursorPage } from "./api";

export function useCursorList<T>(load: (cursor: string | undefined, signal: AbortSignal) => Promise<CursorPage<T>>, deps: DependencyList) {
  const [extra, setExtra] = useState<{ rows: T[]; cursor: string | undefined; busy: boolean }>({ rows: [], cursor: undefined, busy: false });
  const first = useLoad(async (signal) => {
    const page = await load(undefined, signal);
    setExtra({ rows: [], cursor: page.meta.cursor, busy: false });
    return page.data;
  }, deps);
  const loadMore = () => {
    if (!extra.cursor || extra.busy) return;
    setExtra((e) => ({ ...e, busy: true }));
    void load(extra.cursor, new AbortController().signal).then(
      (page) => setExtra((e) => ({ rows: [...e.rows, ...page.data], cursor: page.meta.cursor, busy: false })),
      () => setExtra((e) => ({ ...e, busy: false })),
    );
  };
  const result = { ...first, data: first.data ? [...first.data, ...extra.rows] : undefined };
  return { result, more: Boolean(extra.cursor), loadMore };
}
