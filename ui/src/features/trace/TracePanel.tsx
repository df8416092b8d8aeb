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
import { ObservationDetailView } from "./ObservationDetailView";
import { tracePath } from "./paths";
import { isStored, type Pending } from "./Scores";
import { buildTree } from "./tree";
import { TraceHeading, TracePanes, useTreeState } from "./TraceLayout";
import { useEarlyLoad, useLoad } from "./useLoad";
import { ViewSwitch, type TraceViewMode } from "./graph";
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
  const [mode, setMode] = useState<TraceViewMode>("tree");
  const state = useTreeState(trace, observationId);
  const { rows, selectedRow } = state;
  // A deep link's detail loads beside the tree; without one it waits for the tree's root.
  const selectedId = trace ? trace.ids[selectedRow] : observationId;

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

  return (
    <section className="trace-view" aria-label="Trace">
      <TraceHeading
        trace={trace}
        traceId={traceId}
        actions={
          <>
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
          </>
        }
      />
      <TracePanes
        tree={tree}
        reloadTree={() => void reloadTree()}
        state={state}
        mode={mode}
        onSelect={(row) => {
          intended.current = null;
          select(row);
        }}
        detail={detail}
        reloadDetail={() => void reloadDetail()}
        renderDetail={(data) => (
          <ObservationDetailView
            key={data.id}
            api={api}
            detail={data}
            model={model}
            configs={configs.data ?? null}
            people={people}
            canWrite={canWrite}
            pending={pending}
            onPending={(change) => setPending((current) => [...current, change])}
            durationMicros={state.durationMicros}
          />
        )}
      />
    </section>
  );
}
