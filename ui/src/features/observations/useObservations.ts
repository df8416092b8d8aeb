// The rows of the Observations view: the first page when the view changes, the next page (cursor)
// when the table's end comes into view, and in live mode the rows newer than the newest shown,
// every LIVE_INTERVAL_MS while the tab is visible.

import { useCallback, useEffect, useRef, useState } from "react";

import { pageQuery, type ObservationRow, type ObservationsApi } from "./api";
import { appendPage, mergeNewer, newestStart } from "./live";
import { writeViewState, type ViewState } from "./state";

export const LIVE_INTERVAL_MS = 2000;
/** Live mode asks for at most this many new rows per poll; more arrive with the next one. */
const LIVE_LIMIT = 100;

export type LoadStatus = "loading" | "ready" | "error";

export interface Observations {
  rows: readonly ObservationRow[];
  status: LoadStatus;
  error: unknown;
  hasMore: boolean;
  loadingMore: boolean;
  loadMore(): void;
  retry(): void;
}

function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === "AbortError";
}

/** Whether the page is visible now, and again whenever that changes. */
function useVisible(): boolean {
  const [visible, setVisible] = useState(() => typeof document === "undefined" || !document.hidden);
  useEffect(() => {
    const update = () => setVisible(!document.hidden);
    document.addEventListener("visibilitychange", update);
    return () => document.removeEventListener("visibilitychange", update);
  }, []);
  return visible;
}

export function useObservations(client: ObservationsApi, state: ViewState, live: boolean): Observations {
  // What the rows depend on: not the columns, except whether scores are fetched.
  const key = writeViewState({ ...state, columns: state.columns.includes("scores") ? ["scores"] : ["name"] }).toString();
  const [rows, setRows] = useState<readonly ObservationRow[]>([]);
  const [status, setStatus] = useState<LoadStatus>("loading");
  const [error, setError] = useState<unknown>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const [attempt, setAttempt] = useState(0);
  // The view's state and the instant its relative time range was resolved at, for later pages.
  const current = useRef({ state, now: Date.now() });
  const rowsRef = useRef(rows);
  rowsRef.current = rows;
  const visible = useVisible();

  useEffect(() => {
    const controller = new AbortController();
    const now = Date.now();
    current.current = { state, now };
    setStatus("loading");
    setError(null);
    setRows([]);
    setCursor(null);
    client
      .page(pageQuery(state, now), controller.signal)
      .then((page) => {
        setRows(page.data);
        setCursor(page.meta.cursor ?? null);
        setStatus("ready");
      })
      .catch((e: unknown) => {
        if (isAbort(e)) return;
        setError(e);
        setStatus("error");
      });
    return () => controller.abort();
    // `key` stands for `state`: a new object with the same content loads nothing.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, key, attempt]);

  const loadMore = useCallback(() => {
    if (!cursor || loadingMore || status !== "ready") return;
    const { state: s, now } = current.current;
    setLoadingMore(true);
    client
      .page(pageQuery(s, now, { cursor }))
      .then((page) => {
        // A page for a view that has since changed is dropped.
        if (current.current.state !== s) return;
        setRows((shown) => appendPage(shown, page.data));
        setCursor(page.meta.cursor ?? null);
      })
      .catch((e: unknown) => {
        if (!isAbort(e)) setError(e);
      })
      .finally(() => setLoadingMore(false));
  }, [client, cursor, loadingMore, status]);

  // Live rows are the newest: they go on top of a newest-first view only.
  const canLive = live && visible && status === "ready" && state.order === "desc" && !("to" in state.range && state.range.to);
  useEffect(() => {
    if (!canLive) return;
    let stopped = false;
    let controller: AbortController | null = null;
    const poll = async () => {
      const { state: s, now } = current.current;
      const from = newestStart(rowsRef.current) ?? undefined;
      controller = new AbortController();
      try {
        const page = await client.page(
          pageQuery(s, from ? now : Date.now(), { limit: LIVE_LIMIT, ...(from ? { from } : {}) }),
          controller.signal,
        );
        if (!stopped && current.current.state === s) setRows((shown) => mergeNewer(shown, page.data));
      } catch {
        // A failed poll is retried by the next one; the rows shown stay.
      }
      if (!stopped) timer = setTimeout(() => void poll(), LIVE_INTERVAL_MS);
    };
    let timer = setTimeout(() => void poll(), LIVE_INTERVAL_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
      controller?.abort();
    };
  }, [canLive, client, key]);

  return {
    rows,
    status,
    error,
    hasMore: cursor !== null,
    loadingMore,
    loadMore,
    retry: () => setAttempt((a) => a + 1),
  };
}
