// A trace on the public page: its tree (or graph) beside the selected observation's detail, read
// through the link's token, read-only (no scores, no comments). The selection is in the URL
// (`?observation=`), as on the signed-in trace page.

import { useCallback, useMemo, useState } from "react";
import { useSearchParams } from "react-router";

import type { PublicApi } from "../../api/publicLinks";
import { EmptyState, ErrorState, Loading } from "../../components/States";
import { TraceGraph, ViewSwitch, type TraceViewMode } from "../trace/graph";
import { ObservationDetailView } from "../trace/ObservationDetailView";
import { formatDuration } from "../trace/preview";
import { buildTree, defaultRow, durationOf, nameOf, visibleRows } from "../trace/tree";
import { TraceTreeView } from "../trace/TraceTreeView";
import { useLoad } from "../trace/useLoad";
import "../trace/trace.css";

const NOBODY = { me: "", names: new Map<string, string>() };
const NEVER = () => new Promise<never>(() => undefined);

export function PublicTrace({ api, traceId }: { api: PublicApi; traceId: string }) {
  const [params, setParams] = useSearchParams();
  const observationId = params.get("observation") ?? undefined;
  const [tree, reloadTree] = useLoad(async () => buildTree(await api.tree(traceId)), [api, traceId]);
  const trace = tree.status === "done" ? tree.data : null;
  const [mode, setMode] = useState<TraceViewMode>("tree");
  const [collapsed, setCollapsed] = useState<ReadonlySet<number>>(() => new Set());
  const rows = useMemo(() => (trace ? visibleRows(trace, collapsed) : new Int32Array()), [trace, collapsed]);
  const named = trace && observationId !== undefined ? trace.rowOf.get(observationId) : undefined;
  const selectedRow = trace ? (named ?? defaultRow(trace)) : -1;
  const selectedId = trace ? trace.ids[selectedRow] : undefined;
  const [detail, reloadDetail] = useLoad(
    () => (selectedId === undefined ? NEVER() : api.detail(traceId, selectedId)),
    [api, traceId, selectedId],
  );

  const select = useCallback(
    (row: number) => {
      const id = trace?.ids[row];
      if (id === undefined) return;
      setParams(
        (current) => {
          const next = new URLSearchParams(current);
          next.set("observation", id);
          return next;
        },
        { replace: true },
      );
    },
    [trace, setParams],
  );
  const toggle = useCallback((row: number) => {
    setCollapsed((current) => {
      const next = new Set(current);
      if (next.has(row)) next.delete(row);
      else next.add(row);
      return next;
    });
  }, []);

  const root = trace ? defaultRow(trace) : -1;
  const durationMicros =
    trace && selectedRow >= 0 ? (durationOf(trace, selectedRow) ?? (trace.reach[selectedRow] as number) - (trace.starts[selectedRow] as number)) : null;

  return (
    <section className="trace-view" aria-label="Trace">
      <header className="trace-view__header">
        <div className="trace-view__heading">
          <p className="page__eyebrow">Trace</p>
          <h2 className="trace-view__title">{(trace && root >= 0 && nameOf(trace, root)) || traceId}</h2>
          <p className="muted trace-view__facts">
            <span className="mono">{traceId}</span>
            {trace && ` · ${trace.count.toLocaleString()} ${trace.count === 1 ? "observation" : "observations"} · ${formatDuration(trace.span)}`}
          </p>
        </div>
        <div className="trace-view__actions">
          <ViewSwitch mode={mode} onChange={setMode} />
        </div>
      </header>
      <div className="trace-view__body">
        <div className="trace-view__tree">
          {tree.status === "loading" && <Loading label="Loading the trace…" />}
          {tree.status === "error" && <ErrorState error={tree.error} title="The trace could not be loaded" onRetry={() => void reloadTree()} />}
          {trace &&
            (trace.count === 0 ? (
              <EmptyState title="No observations" />
            ) : mode === "graph" ? (
              <TraceGraph tree={trace} selectedRow={selectedRow} onSelect={select} />
            ) : (
              <TraceTreeView model={trace} rows={rows} selected={selectedRow} collapsed={collapsed} onSelect={select} onToggle={toggle} />
            ))}
        </div>
        <div className="trace-view__detail">
          {detail.status === "error" && <ErrorState error={detail.error} title="The observation could not be loaded" onRetry={() => void reloadDetail()} />}
          {detail.status === "loading" && detail.data === undefined && <Loading label="Loading the observation…" />}
          {detail.data && (
            <ObservationDetailView
              key={detail.data.id}
              api={api}
              detail={detail.data}
              // Not sent: the public routes read the write mode's own model.
              model="v4"
              configs={null}
              people={NOBODY}
              canWrite={false}
              pending={[]}
              onPending={() => undefined}
              durationMicros={durationMicros}
            />
          )}
        </div>
      </div>
    </section>
  );
}
