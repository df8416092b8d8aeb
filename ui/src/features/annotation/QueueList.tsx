// The project's annotation queues, newest first, each with its progress (items completed of all,
// per annotator), its score configs and who is assigned; a MEMBER or above creates queues, adds
// items by id and starts annotating.

import { useMemo, useState } from "react";
import { Link, useSearchParams } from "react-router";

import { useProject } from "../../app/project";
import { Button } from "../../components/Button";
import { EmptyState, ErrorState, Loading } from "../../components/States";
import { Pager } from "../../components/Pager";
import { useLoad } from "../../components/useLoad";
import { canAnnotate } from "./access";
import { annotationApi, type Queue, type QueueProgress } from "./api";
import { AddItemForm, NewQueueForm } from "./QueueForms";

export function ProgressBar({ completed, total, label }: { completed: number; total: number; label: string }) {
  const percent = total === 0 ? 0 : Math.round((completed / total) * 100);
  return (
    <div className="progress" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={total} aria-valuenow={completed} aria-valuetext={`${completed} of ${total}`}>
      <div className="progress__bar" style={{ width: `${percent}%` }} />
    </div>
  );
}

function Annotators({ progress }: { progress: QueueProgress | undefined }) {
  if (!progress || progress.annotators.length === 0) return <span className="muted">No one yet</span>;
  return (
    <ul className="annotators">
      {progress.annotators.map((a) => (
        <li key={a.userId ?? "api"}>
          {a.name ?? (a.userId ? "A former member" : "API")} <span className="muted">{a.completed}</span>
        </li>
      ))}
    </ul>
  );
}

export function QueueList() {
  const { project } = useProject();
  const writer = canAnnotate(project.role);
  const api = useMemo(() => annotationApi(project.id), [project.id]);
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number.parseInt(params.get("page") ?? "1", 10) || 1);
  const [creating, setCreating] = useState(false);
  const [adding, setAdding] = useState<string | null>(null);

  const queues = useLoad((signal) => api.list(page, signal), [api, page]);
  const ids = queues.data?.data.map((q) => q.id) ?? [];
  const progress = useLoad(
    (signal) => (ids.length === 0 ? Promise.resolve({ data: [] }) : api.progress(ids, signal)),
    [api, ids.join(",")],
  );
  const configs = useLoad((signal) => api.scoreConfigs(signal).then((p) => p.data), [api]);
  const configName = (id: string) => configs.data?.find((c) => c.id === id)?.name ?? id;
  const progressOf = (queue: Queue) => progress.data?.data.find((p) => p.queueId === queue.id);
  const totalPages = queues.data?.meta.totalPages ?? 0;

  return (
    <div className="page annotation">
      <header className="page__header">
        <div>
          <p className="page__eyebrow">{project.name}</p>
          <h1>Annotation queues</h1>
        </div>
        {writer && !creating && (
          <Button variant="primary" onClick={() => setCreating(true)}>
            New queue
          </Button>
        )}
      </header>

      {creating && (
        <NewQueueForm
          api={api}
          configs={configs.data ?? []}
          onCancel={() => setCreating(false)}
          onCreated={() => {
            setCreating(false);
            queues.reload();
          }}
        />
      )}

      {queues.error !== undefined && !queues.data && <ErrorState error={queues.error} title="The queues could not be loaded" onRetry={queues.reload} />}
      {queues.loading && !queues.data && <Loading label="Loading the queues…" />}
      {queues.data && queues.data.data.length === 0 && !creating && (
        <EmptyState title="No annotation queues yet">
          <p>A queue lists traces and observations for people to score, one at a time, with the score configs you choose.</p>
        </EmptyState>
      )}
      {queues.data && queues.data.data.length > 0 && (
        <table className="queue-table">
          <thead>
            <tr>
              <th scope="col">Queue</th>
              <th scope="col">Score configs</th>
              <th scope="col">Progress</th>
              <th scope="col">Completed by</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {queues.data.data.map((queue) => {
              const p = progressOf(queue);
              return (
                <tr key={queue.id} aria-label={queue.name}>
                  <td>
                    <strong>{queue.name}</strong>
                    {queue.description && <p className="muted queue-table__description">{queue.description}</p>}
                    {p && p.assignees.length > 0 && <p className="muted queue-table__description">Assigned: {p.assignees.map((a) => a.name).join(", ")}</p>}
                    {adding === queue.id && <AddItemForm api={api} queueId={queue.id} queueName={queue.name} onAdded={progress.reload} />}
                  </td>
                  <td>{queue.scoreConfigIds.map(configName).join(", ")}</td>
                  <td className="queue-table__progress">
                    <ProgressBar completed={p?.completed ?? 0} total={p?.total ?? 0} label={`Progress of ${queue.name}`} />
                    <span className="queue-table__count">{p ? `${p.completed} / ${p.total}` : "…"}</span>
                  </td>
                  <td>
                    <Annotators progress={p} />
                  </td>
                  <td className="queue-table__actions">
                    {writer && (
                      <>
                        <Button size="sm" variant="ghost" aria-expanded={adding === queue.id} onClick={() => setAdding(adding === queue.id ? null : queue.id)}>
                          Add item
                        </Button>
                        <Link className="button button--primary button--sm" to={`${encodeURIComponent(queue.id)}/work`}>
                          Annotate
                        </Link>
                      </>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <Pager page={page} totalPages={totalPages} onPage={(p) => setParams({ page: String(p) })} />
    </div>
  );
}
