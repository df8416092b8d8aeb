// A trace on the public page: its tree (or graph) beside the selected observation's detail, read
// through the link's token, read-only (no scores, no comments). The selection is in the URL
// (`?observation=`), as on the signed-in trace page.

import { useCallback, useState } from "react";
import { useSearchParams } from "react-router";

import type { PublicApi } from "../../api/publicLinks";
import { ViewSwitch, type TraceViewMode } from "../trace/graph";
import { ObservationDetailView } from "../trace/ObservationDetailView";
import { buildTree } from "../trace/tree";
import { TraceHeading, TracePanes, useTreeState } from "../trace/TraceLayout";
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
  const state = useTreeState(trace, observationId);
  const selectedId = trace ? trace.ids[state.selectedRow] : undefined;
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

  return (
    <section className="trace-view" aria-label="Trace">
      <TraceHeading trace={trace} traceId={traceId} actions={<ViewSwitch mode={mode} onChange={setMode} />} />
      <TracePanes
        tree={tree}
        reloadTree={() => void reloadTree()}
        state={state}
        mode={mode}
        onSelect={select}
        detail={detail}
        reloadDetail={() => void reloadDetail()}
        renderDetail={(data) => (
          <ObservationDetailView
            key={data.id}
            api={api}
            detail={data}
            // Not sent: the public routes read the write mode's own model.
            model="v4"
            configs={null}
            people={NOBODY}
            canWrite={false}
            pending={[]}
            onPending={() => undefined}
            durationMicros={state.durationMicros}
          />
        )}
      />
    </section>
  );
}
