// What the signed-in trace panel and the public trace page share: the tree state (folding, the
// selected row, a selected node's ancestors opened), the heading's facts, and the two panes — the
// tree or graph beside the selected observation's detail. Each host adds its own actions, keys and
// what the detail may do.

import { useCallback, useEffect, useMemo, useState, type ReactNode } from "react";

import { EmptyState, ErrorState, Loading } from "../../components/States";
import type { ObservationDetail } from "../../api/trace";
import { TraceGraph, type TraceViewMode } from "./graph";
import { formatCost, formatDuration } from "./preview";
import { ancestors, defaultRow, durationOf, nameOf, visibleRows, type TraceModel } from "./tree";
import { TraceTreeView } from "./TraceTreeView";
import type { Loaded } from "./useLoad";

export interface TreeState {
  rows: Int32Array;
  collapsed: ReadonlySet<number>;
  /** The row shown selected: the named observation's, else the root's; -1 before the tree loads. */
  selectedRow: number;
  toggle(row: number): void;
  /** The selected observation's duration, for its detail (its own, else the reach of its subtree). */
  durationMicros: number | null;
}

export function useTreeState(trace: TraceModel | null, observationId: string | undefined): TreeState {
  const [collapsed, setCollapsed] = useState<ReadonlySet<number>>(() => new Set());
  const rows = useMemo(() => (trace ? visibleRows(trace, collapsed) : new Int32Array()), [trace, collapsed]);
  const named = trace && observationId !== undefined ? trace.rowOf.get(observationId) : undefined;
  const selectedRow = trace ? (named ?? defaultRow(trace)) : -1;

  // A selected node inside a folded subtree is shown: its ancestors open.
  useEffect(() => {
    if (!trace || selectedRow < 0) return;
    const hidden = ancestors(trace, selectedRow).filter((row) => collapsed.has(row));
    if (hidden.length > 0) {
      setCollapsed((current) => {
        const next = new Set(current);
        hidden.forEach((row) => next.delete(row));
        return next;
      });
    }
  }, [trace, selectedRow, collapsed]);

  const toggle = useCallback((row: number) => {
    setCollapsed((current) => {
      const next = new Set(current);
      if (next.has(row)) next.delete(row);
      else next.add(row);
      return next;
    });
  }, []);
  const durationMicros =
    trace && selectedRow >= 0 ? (durationOf(trace, selectedRow) ?? (trace.reach[selectedRow] as number) - (trace.starts[selectedRow] as number)) : null;
  return { rows, collapsed, selectedRow, toggle, durationMicros };
}

/** The trace's name (its root's) and total cost (null when nothing is priced). */
export function traceSummary(trace: TraceModel): { name: string; cost: number | null } {
  let cost = 0;
  let priced = false;
  for (let i = 0; i < trace.count; i++) {
    const c = trace.costs[i] as number;
    if (!Number.isNaN(c)) {
      cost += c;
      priced = true;
    }
  }
  const root = defaultRow(trace);
  return { name: root >= 0 ? nameOf(trace, root) : "", cost: priced ? cost : null };
}

/** The heading: name, id, and once loaded the count, span and cost; `actions` on the right. */
export function TraceHeading({ trace, traceId, actions }: { trace: TraceModel | null; traceId: string; actions: ReactNode }) {
  const summary = useMemo(() => (trace ? traceSummary(trace) : null), [trace]);
  return (
    <header className="trace-view__header">
      <div className="trace-view__heading">
        <p className="page__eyebrow">Trace</p>
        <h2 className="trace-view__title">{summary?.name || traceId}</h2>
        <p className="muted trace-view__facts">
          <span className="mono">{traceId}</span>
          {trace && (
            <>
              {" · "}
              {trace.count.toLocaleString()} {trace.count === 1 ? "observation" : "observations"}
              {" · "}
              {formatDuration(trace.span)}
              {summary?.cost !== null && summary?.cost !== undefined && ` · ${formatCost(summary.cost)}`}
            </>
          )}
        </p>
      </div>
      <div className="trace-view__actions">{actions}</div>
    </header>
  );
}

interface PanesProps {
  tree: Loaded<TraceModel>;
  reloadTree(): void;
  state: TreeState;
  mode: TraceViewMode;
  onSelect(row: number): void;
  detail: Loaded<ObservationDetail>;
  reloadDetail(): void;
  /** The detail of the loaded observation, with what this host lets a person do there. */
  renderDetail(detail: ObservationDetail): ReactNode;
}

export function TracePanes({ tree, reloadTree, state, mode, onSelect, detail, reloadDetail, renderDetail }: PanesProps) {
  const trace = tree.status === "done" ? tree.data : null;
  return (
    <div className="trace-view__body">
      <div className="trace-view__tree">
        {tree.status === "loading" && <Loading label="Loading the trace…" />}
        {tree.status === "error" && <ErrorState error={tree.error} title="The trace could not be loaded" onRetry={reloadTree} />}
        {trace &&
          (trace.count === 0 ? (
            <EmptyState title="No observations" />
          ) : mode === "graph" ? (
            <TraceGraph tree={trace} selectedRow={state.selectedRow} onSelect={onSelect} />
          ) : (
            <>
              <div className="trace-tree__head" aria-hidden="true">
                <span>Observation</span>
                <span className="trace-tree__scale">
                  <span>0</span>
                  <span>{formatDuration(trace.span)}</span>
                </span>
              </div>
              <TraceTreeView
                model={trace}
                rows={state.rows}
                selected={state.selectedRow}
                collapsed={state.collapsed}
                onSelect={onSelect}
                onToggle={state.toggle}
              />
            </>
          ))}
      </div>
      <div className="trace-view__detail">
        {detail.status === "error" && <ErrorState error={detail.error} title="The observation could not be loaded" onRetry={reloadDetail} />}
        {detail.status === "loading" && detail.data === undefined && <Loading label="Loading the observation…" />}
        {detail.data && renderDetail(detail.data)}
      </div>
    </div>
  );
}
