// The trace panel (see index.ts for the contract with its hosts): the trace's tree beside the
// selected observation's detail. The tree is read once, whole; the detail of each observation as it
// is selected; score configs and member names once per panel.

import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { Link, useLocation } from "react-router";

import type { DataModel } from "../../api/trace";
import { traceApi } from "../../api/trace";
import { findProject, useMe } from "../../app/session";
import { Button } from "../../components/Button";
import { AddToQueue } from "../annotation/AddToQueue";
import { EmptyState, ErrorState, Loading } from "../../components/States";
import { ObservationDetailView } from "./ObservationDetailView";
import { tracePath } from "./paths";
import { formatCost, formatDuration } from "./preview";
import { isStored, type Pending } from "./Scores";
import { ancestors, buildTree, defaultRow, durationOf, nameOf, visibleRows } from "./tree";
import { TraceTreeView } from "./TraceTreeView";
import { useEarlyLoad, useLoad } from "./useLoad";
import { TraceGraph, ViewSwitch, type TraceViewMode } from "./graph";
import { PublicLinkToggle } from "../public/PublicLinkToggle";
import "./trace.css";

export interface TracePanelProps {
  projectId: string;
  traceId: string;
  observationId?: string;
  onSelectObservation(id: string): void;
  onClose(): void;
}

/** How often, and for how long, the detail is read again until a score change shows. */
const POLL_MS = 700;
const POLL_FOR_MS = 60_000;

const WRITERS = new Set(["OWNER", "ADMIN", "MEMBER"]);

function editable(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.tagName === "SELECT";
}

/** One panel per trace: another trace starts afresh (nothing folded, nothing pending). */
export function TracePanel(props: TracePanelProps) {
  return <Panel key={`${props.projectId}\u0000${props.traceId}`} {...props} />;
}

function Panel({ projectId, traceId, observationId, onSelectObservation, onClose }: TracePanelProps) {
  const me = useMe();
  const model: DataModel = me.views ?? "v4";
  const access = findProject(me, projectId);
  const canWrite = WRITERS.has(access?.project.role ?? "NONE");
  const organizationId = access?.organization.id;
  const api = useMemo(() => traceApi(projectId), [projectId]);
  // On its own page the panel offers no link to it.
  const onItsPage = useLocation().pathname === tracePath(projectId, traceId);

  const [tree, reloadTree] = useEarlyLoad(async () => buildTree(await api.tree(traceId, model)), [api, traceId, model]);
  const trace = tree.status === "done" ? tree.data : null;
  const [collapsed, setCollapsed] = useState<ReadonlySet<number>>(() => new Set());
  const [mode, setMode] = useState<TraceViewMode>("tree");
  const rows = useMemo(() => (trace ? visibleRows(trace, collapsed) : new Int32Array()), [trace, collapsed]);
  const named = trace && observationId !== undefined ? trace.rowOf.get(observationId) : undefined;
  const selectedRow = trace ? (named ?? defaultRow(trace)) : -1;
  // A deep link's detail loads beside the tree; without one it waits for the tree's root.
  const selectedId = trace ? trace.ids[selectedRow] : observationId;

  // A selected node inside a collapsed subtree is shown: its ancestors open.
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

  const [detail, reloadDetail] = useEarlyLoad(
    () => (selectedId === undefined ? new Promise<never>(() => undefined) : api.detail(traceId, selectedId, model)),
    [api, traceId, selectedId, model],
  );
  const [configs] = useLoad(() => api.scoreConfigs().then((page) => page.data), [api]);
  const [names] = useLoad(() => (organizationId ? api.memberNames(organizationId) : Promise.resolve(new Map<string, string>())), [api, organizationId]);
  const people = useMemo(() => ({ me: me.user.id, names: names.data ?? new Map<string, string>() }), [me.user.id, names.data]);

  // Score changes the server accepted, shown until the stored scores say the same.
  const [pending, setPending] = useState<Pending[]>([]);
  useEffect(() => setPending([]), [selectedId]);
  const waiting = pending.length > 0;
  useEffect(() => {
    if (!waiting) return;
    const started = Date.now();
    const timer = setInterval(() => {
      void reloadDetail().then((fresh) => {
        if (fresh) setPending((current) => current.filter((change) => !isStored(change, fresh.scores)));
      });
      if (Date.now() - started > POLL_FOR_MS) setPending([]);
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [waiting, reloadDetail]);

  const select = useCallback(
    (row: number) => {
      const id = trace?.ids[row];
      if (id !== undefined) onSelectObservation(id);
    },
    [trace, onSelectObservation],
  );
  const toggle = useCallback((row: number) => {
    setCollapsed((current) => {
      const next = new Set(current);
      if (next.has(row)) next.delete(row);
      else next.add(row);
      return next;
    });
  }, []);

  // j/k and Esc from anywhere while the panel is open (see index.ts). Keys pressed faster than the
  // host's URL follows move on from the row last asked for, until the selection gets there.
  const intended = useRef<number | null>(null);
  if (intended.current === selectedRow) intended.current = null;
  const keys = useRef({ rows, selectedRow, select, onClose });
  keys.current = { rows, selectedRow, select, onClose };
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || editable(event.target)) return;
      const { rows, selectedRow, select, onClose } = keys.current;
      if (event.key === "Escape") {
        onClose();
      } else if (event.key === "j" || event.key === "k") {
        const from = intended.current ?? selectedRow;
        const index = rows.indexOf(from);
        const next = rows[Math.min(Math.max(index + (event.key === "j" ? 1 : -1), 0), rows.length - 1)];
        if (next !== undefined && next !== from) {
          intended.current = next;
          select(next);
        }
      } else {
        return;
      }
      event.preventDefault();
      event.stopPropagation();
    };
    window.addEventListener("keydown", onKey, { capture: true });
    return () => window.removeEventListener("keydown", onKey, { capture: true });
  }, []);

  const summary = useMemo(() => {
    if (!trace) return null;
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
  }, [trace]);

  const durationMicros =
    trace && selectedRow >= 0 ? (durationOf(trace, selectedRow) ?? (trace.reach[selectedRow] as number) - (trace.starts[selectedRow] as number)) : null;

  return (
    <section className="trace-view" aria-label="Trace">
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
        <div className="trace-view__actions">
          <PublicLinkToggle projectId={projectId} kind="trace" targetId={traceId} canWrite={canWrite} />
          {canWrite && <AddToQueue projectId={projectId} traceId={traceId} observationId={selectedId} />}
          <ViewSwitch mode={mode} onChange={setMode} />
          {!onItsPage && (
            <Link className="button button--ghost button--sm" to={tracePath(projectId, traceId, selectedId)}>
              Open as page
            </Link>
          )}
          <Button size="sm" variant="ghost" onClick={onClose} aria-label="Close trace" title="Close (Esc)">
            ✕
          </Button>
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
                  rows={rows}
                  selected={selectedRow}
                  collapsed={collapsed}
                  onSelect={(row) => {
                    intended.current = null;
                    select(row);
                  }}
                  onToggle={toggle}
                />
              </>
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
              model={model}
              configs={configs.data ?? null}
              people={people}
              canWrite={canWrite}
              pending={pending}
              onPending={(change) => setPending((current) => [...current, change])}
              durationMicros={durationMicros}
            />
          )}
        </div>
      </div>
    </section>
  );
}
