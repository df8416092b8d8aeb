// A queue's work view at /project/{projectId}/annotation-queues/{queueId}/work: one item at a time
// (locked for the person by the server), its observation as the trace panel shows it, the queue's
// score inputs, and a progress bar. Keys (keys.ts): numbers and arrows score, ↑/↓ move between
// configs, Enter or c completes (scores written as the person, with the queue's id), s skips.

import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { Link, useParams } from "react-router";

import { describeError } from "../../api/client";
import { traceApi, type DataModel, type ObservationDetail, type ScoreConfig, type TraceApi } from "../../api/trace";
import { useProject } from "../../app/project";
import { useMe } from "../../app/session";
import { Button } from "../../components/Button";
import { EmptyState, ErrorState, InlineError, Loading } from "../../components/States";
import { useLoad } from "../../components/useLoad";
import { ObservationDetailView } from "../trace/ObservationDetailView";
import { sentValue } from "../trace/Scores";
import { canAnnotate } from "./access";
import { annotationApi, type Next } from "./api";
import { keyAction, type WorkAction } from "./keys";
import { ProgressBar } from "./QueueList";
import { ScorePad } from "./ScorePad";

type Item = NonNullable<Next["item"]>;

function editable(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.tagName === "SELECT";
}

/** The observation an item opens: itself, or its trace's root for a TRACE item. */
async function detailOf(api: TraceApi, item: Item, model: DataModel, signal: AbortSignal): Promise<ObservationDetail | null> {
  if (item.objectType === "SESSION" || !item.traceId) return null;
  let id = item.objectId;
  if (item.objectType === "TRACE") {
    const tree = await api.tree(item.traceId, model, signal);
    const root = tree.parents.indexOf(-1);
    id = tree.ids[root >= 0 ? root : 0] ?? item.objectId;
  }
  return api.detail(item.traceId, id, model, signal);
}

export function WorkView() {
  const { queueId = "" } = useParams();
  const { project } = useProject();
  const me = useMe();
  const model: DataModel = me.views ?? "v4";
  const writer = canAnnotate(project.role);
  const api = useMemo(() => annotationApi(project.id), [project.id]);
  const trace = useMemo(() => traceApi(project.id), [project.id]);

  const queue = useLoad((signal) => api.get(queueId, signal), [api, queueId]);
  const allConfigs = useLoad((signal) => api.scoreConfigs(signal).then((p) => p.data), [api]);
  const configs = useMemo<ScoreConfig[]>(() => {
    const ids = queue.data?.scoreConfigIds ?? [];
    return ids.map((id) => allConfigs.data?.find((c) => c.id === id)).filter((c): c is ScoreConfig => c !== undefined && !c.isArchived);
  }, [queue.data, allConfigs.data]);

  const [skipped, setSkipped] = useState<readonly string[]>([]);
  const [next, setNext] = useState<Next | null>(null);
  const [nextError, setNextError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [values, setValues] = useState<Record<string, string>>({});
  const [focus, setFocus] = useState(0);

  const take = useCallback(
    async (skip: readonly string[]) => {
      setNextError(null);
      try {
        const answer = await api.next(queueId, skip);
        setNext(answer);
        setValues({});
        setFocus(0);
        setError(null);
      } catch (caught) {
        setNextError(caught);
      }
    },
    [api, queueId],
  );
  useEffect(() => {
    if (writer) void take([]);
  }, [writer, take]);

  const item = next?.item ?? null;
  const detail = useLoad((signal) => (item ? detailOf(trace, item, model, signal) : Promise.resolve(null)), [trace, item?.id, model]);

  const complete = useCallback(async () => {
    if (!item || busy) return;
    setBusy(true);
    setError(null);
    try {
      const shown = detail.data;
      for (const config of configs) {
        const raw = values[config.id];
        if (raw === undefined || raw === "") continue;
        const value = sentValue(config, raw);
        if (value === null) throw new Error(`Enter a valid value for ${config.name}`);
        if (!shown) throw new Error("Only traces and observations can be scored here");
        await trace.createScore({
          traceId: shown.traceId,
          ...(shown.isRoot ? {} : { observationId: shown.id }),
          configId: config.id,
          value,
          environment: shown.environment,
          queueId,
        });
      }
      await api.setStatus(queueId, item.id, "COMPLETED");
      await take(skipped);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  }, [item, busy, detail.data, configs, values, trace, api, queueId, take, skipped]);

  const skip = useCallback(() => {
    if (!item || busy) return;
    const more = [...skipped, item.id];
    setSkipped(more);
    void take(more);
  }, [item, busy, skipped, take]);

  const act = useRef<(action: WorkAction) => void>(() => undefined);
  act.current = (action) => {
    if (action.kind === "complete") void complete();
    else if (action.kind === "skip") skip();
    else if (action.kind === "focus") setFocus(action.index);
    else setValues((current) => ({ ...current, [action.configId]: action.raw }));
  };
  const keyState = useRef({ configs, values, focus, active: false });
  keyState.current = { configs, values, focus, active: item !== null };
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const state = keyState.current;
      if (event.defaultPrevented || !state.active) return;
      // A button or link takes Enter itself.
      if (event.key === "Enter" && event.target instanceof HTMLElement && (event.target.tagName === "BUTTON" || event.target.tagName === "A")) return;
      const action = keyAction(event, { ...state, inField: editable(event.target) });
      if (!action) return;
      event.preventDefault();
      act.current(action);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  const people = useMemo(() => ({ me: me.user.id, names: new Map<string, string>() }), [me.user.id]);
  const base = `/project/${encodeURIComponent(project.id)}/annotation-queues`;

  if (queue.error !== undefined && !queue.data) return <ErrorState error={queue.error} title="The queue could not be loaded" onRetry={queue.reload} />;
  if (!queue.data) return <Loading label="Loading the queue…" />;

  return (
    <div className="page annotation work">
      <header className="page__header">
        <div>
          <p className="page__eyebrow">
            <Link to={base}>Annotation queues</Link>
          </p>
          <h1>{queue.data.name}</h1>
        </div>
        {next && (
          <div className="work__progress">
            <ProgressBar completed={next.completed} total={next.total} label="Queue progress" />
            <span aria-live="polite">
              {next.completed} / {next.total} completed
              {skipped.length > 0 && <span className="muted"> · {skipped.length} skipped</span>}
            </span>
          </div>
        )}
      </header>

      {!writer && (
        <EmptyState title="Viewing only">
          <p>Your role on this project can read the queue but not annotate it.</p>
        </EmptyState>
      )}
      {nextError !== null && <ErrorState error={nextError} title="The next item could not be taken" onRetry={() => void take(skipped)} />}
      {writer && !next && nextError === null && <Loading label="Taking the next item…" />}
      {next && !item && (
        <EmptyState
          title={next.total === 0 ? "This queue has no items yet" : "Nothing left for you in this queue"}
          actions={
            skipped.length > 0 ? (
              <Button
                onClick={() => {
                  setSkipped([]);
                  void take([]);
                }}
              >
                Go through the {skipped.length} skipped
              </Button>
            ) : undefined
          }
        >
          <p>
            {next.completed} of {next.total} items are completed. <Link to={base}>Back to the queues</Link>
          </p>
        </EmptyState>
      )}
      {item && (
        <div className="work__body">
          <div className="work__object">
            {item.objectType === "SESSION" ? (
              <EmptyState title={`Session ${item.objectId}`}>
                <p>
                  Sessions are read on their page: <Link to={`/project/${encodeURIComponent(project.id)}/sessions/${encodeURIComponent(item.objectId)}`}>open the session</Link>. Complete or skip it here.
                </p>
              </EmptyState>
            ) : detail.error !== undefined && !detail.data ? (
              <ErrorState error={detail.error} title="The observation could not be loaded" onRetry={detail.reload} />
            ) : detail.data ? (
              <ObservationDetailView key={detail.data.id} api={trace} detail={detail.data} model={model} configs={configs} people={people} canWrite={false} pending={[]} onPending={() => undefined} />
            ) : (
              <Loading label="Loading the observation…" />
            )}
          </div>
          <aside className="work__pad" aria-label="Annotate">
            <h2 className="section-title">Scores</h2>
            {allConfigs.data && configs.length === 0 && <p className="muted">The queue's score configs are archived.</p>}
            <ScorePad configs={configs} values={values} focus={focus} onFocus={setFocus} onChange={(id, raw) => setValues((current) => ({ ...current, [id]: raw }))} />
            <div className="work__actions">
              <Button variant="primary" busy={busy} onClick={() => void complete()}>
                Complete <kbd>Enter</kbd>
              </Button>
              <Button variant="ghost" disabled={busy} onClick={skip}>
                Skip <kbd>s</kbd>
              </Button>
            </div>
            {error !== null && <InlineError>{describeError(error)}</InlineError>}
            <p className="muted work__keys">
              <kbd>↑</kbd>/<kbd>↓</kbd> choose a score · numbers or <kbd>←</kbd>/<kbd>→</kbd> set it · <kbd>Enter</kbd> or <kbd>c</kbd> complete · <kbd>s</kbd> skip
            </p>
          </aside>
        </div>
      )}
    </div>
  );
}
