// One monitor: its state and rule, mute/unmute, "Evaluate now", edit and delete (MEMBER and above),
// and its history — every evaluation, and every notification with the log of its delivery attempts.
// While an evaluation asked for is pending, the page polls so the new state shows without a reload.

import { useEffect, useState } from "react";

import { describeError } from "../../api/client";
import { Button } from "../../components/Button";
import { formatDateTime } from "../../components/format";
import { LoadedView } from "../../components/LoadedView";
import { Pager } from "../../components/Pager";
import { InlineError } from "../../components/States";
import { useLoad } from "../../components/useLoad";
import { ConfirmDialog } from "../settings/Dialog";
import { useAction } from "../settings/useAction";
import type { Monitor, MonitorsApi, Notification } from "./api";
import { describeRule, describeSeconds, formOf } from "./form";
import { MonitorForm } from "./MonitorForm";
import { SecretDialog, StateBadge } from "./parts";

/** How often the page reloads while an evaluation is due. */
const POLL_MS = 1500;
/** And for how long at most after the page opened or changed it (the worker takes a due monitor
 * within its poll interval, a second by default). */
const POLL_FOR_MS = 60_000;

interface MonitorDetailProps {
  client: MonitorsApi;
  id: string;
  canWrite: boolean;
  onBack(): void;
  onDeleted(): void;
}

function Deliveries({ notification }: { notification: Notification }) {
  if (!notification.deliveries.length) return <span className="muted">no attempt yet</span>;
  return (
    <ol className="monitor-deliveries">
      {notification.deliveries.map((d) => (
        <li key={d.attempt}>
          #{d.attempt} {formatDateTime(d.attemptedAt)} · {d.statusCode !== null ? `HTTP ${d.statusCode}` : (d.error ?? "no answer")} · {d.durationMs} ms
          {d.statusCode !== null && d.error ? <span className="muted"> ({d.error})</span> : null}
        </li>
      ))}
    </ol>
  );
}

function History({ client, id, round }: { client: MonitorsApi; id: string; round: number }) {
  const [evalPage, setEvalPage] = useState(1);
  const [notePage, setNotePage] = useState(1);
  const evaluations = useLoad((signal) => client.evaluations(id, evalPage, signal), [client, id, evalPage, round]);
  const notifications = useLoad((signal) => client.notifications(id, notePage, signal), [client, id, notePage, round]);
  return (
    <>
      <section className="settings-section" aria-labelledby="monitor-evaluations">
        <h2 id="monitor-evaluations" className="settings-section__title">
          Evaluations
        </h2>
        <LoadedView result={evaluations} loadingLabel="Loading evaluations…">
          {(page) => (
            <>
              <table className="people" aria-label="Evaluations">
                <thead>
                  <tr>
                    <th>Evaluated</th>
                    <th>Value</th>
                    <th>State</th>
                    <th>Window</th>
                    <th>Note</th>
                  </tr>
                </thead>
                <tbody>
                  {page.data.length === 0 && (
                    <tr>
                      <td colSpan={5} className="muted">
                        Not evaluated yet.
                      </td>
                    </tr>
                  )}
                  {page.data.map((e) => (
                    <tr key={e.id}>
                      <td>{formatDateTime(e.evaluatedAt)}</td>
                      <td>{e.value === null ? "no data" : e.value}</td>
                      <td>
                        <StateBadge state={e.state} muted={false} />
                      </td>
                      <td className="muted">
                        {formatDateTime(e.windowFrom)} – {formatDateTime(e.windowTo)}
                      </td>
                      <td>{e.error ? <span className="field__error">{e.error}</span> : e.transition ? (e.muted ? "changed (muted: no notification)" : "changed") : ""}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <Pager label="Evaluation pages" page={evalPage} totalPages={page.meta.totalPages} onPage={setEvalPage} />
            </>
          )}
        </LoadedView>
      </section>
      <section className="settings-section" aria-labelledby="monitor-notifications">
        <h2 id="monitor-notifications" className="settings-section__title">
          Notifications
        </h2>
        <LoadedView result={notifications} loadingLabel="Loading notifications…">
          {(page) => (
            <>
              <table className="people" aria-label="Notifications">
                <thead>
                  <tr>
                    <th>Made</th>
                    <th>Channel</th>
                    <th>To state</th>
                    <th>Status</th>
                    <th>Delivery log</th>
                  </tr>
                </thead>
                <tbody>
                  {page.data.length === 0 && (
                    <tr>
                      <td colSpan={5} className="muted">
                        None yet: a notification is made when the state changes.
                      </td>
                    </tr>
                  )}
                  {page.data.map((n) => (
                    <tr key={n.id}>
                      <td>{formatDateTime(n.createdAt)}</td>
                      <td>
                        {n.channelIndex + 1}. {n.channelType}
                      </td>
                      <td>{n.transition}</td>
                      <td>
                        <span className={`monitor-delivery monitor-delivery--${n.status}`}>{n.status}</span>
                      </td>
                      <td>
                        <Deliveries notification={n} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <Pager label="Notification pages" page={notePage} totalPages={page.meta.totalPages} onPage={setNotePage} />
            </>
          )}
        </LoadedView>
      </section>
    </>
  );
}

function Channels({ monitor }: { monitor: Monitor }) {
  if (!monitor.channels.length) return <p className="muted">No channels: state changes are only recorded here.</p>;
  return (
    <ul className="monitor-channels">
      {monitor.channels.map((c, i) => (
        <li key={i}>
          <strong>{c.type === "github" ? "GitHub dispatch" : c.type === "slack" ? "Slack" : "Webhook"}</strong>{" "}
          {c.type === "github" ? `${c.owner}/${c.repo} (${c.eventType})` : (c.url ?? "")} <span className="muted">secret {c.displaySecret}</span>
        </li>
      ))}
    </ul>
  );
}

export function MonitorDetail({ client, id, canWrite, onBack, onDeleted }: MonitorDetailProps) {
  const loaded = useLoad((signal) => client.get(id, signal), [client, id]);
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [secrets, setSecrets] = useState<string[]>([]);
  const [round, setRound] = useState(0);
  // Poll for a minute after the page opens and after each change, while an evaluation is due (the
  // first one, "Evaluate now", an edit), so the new state shows without a reload.
  const [pollUntil, setPollUntil] = useState(() => Date.now() + POLL_FOR_MS);
  const action = useAction();
  const removal = useAction();
  const monitor = loaded.data;
  const due = !!monitor && (!monitor.lastEvaluatedAt || Date.parse(monitor.nextEvaluationAt) <= Date.now());
  const polling = due && Date.now() < pollUntil;

  useEffect(() => {
    if (!polling) return;
    const timer = setTimeout(() => {
      loaded.reload();
      setRound((r) => r + 1);
    }, POLL_MS);
    return () => clearTimeout(timer);
  }, [polling, monitor, loaded]);

  const run = async (change: () => Promise<unknown>) => {
    const done = await action.run(change);
    if (done !== undefined) {
      setPollUntil(Date.now() + POLL_FOR_MS);
      loaded.reload();
      setRound((r) => r + 1);
    }
  };

  return (
    <div className="page monitors-page">
      <LoadedView result={loaded} loadingLabel="Loading the monitor…" errorTitle="This monitor could not be loaded">
        {(monitor) => (
          <>
            <header className="page__header">
              <div>
                <Button size="sm" variant="ghost" onClick={onBack}>
                  ← All monitors
                </Button>
                <h1>
                  {monitor.name} <StateBadge state={monitor.state} muted={monitor.muted} />
                </h1>
                {monitor.description && <p className="muted">{monitor.description}</p>}
              </div>
              {canWrite && (
                <div className="settings-row">
                  <Button busy={polling} onClick={() => void run(() => client.evaluateNow(monitor.id).then(() => true))}>
                    Evaluate now
                  </Button>
                  <Button onClick={() => void run(() => client.mute(monitor.id, !monitor.muted).then((m) => loaded.set(m)).then(() => true))}>
                    {monitor.muted ? "Unmute" : "Mute"}
                  </Button>
                  <Button onClick={() => setEditing(true)} disabled={editing}>
                    Edit
                  </Button>
                  <Button variant="danger" onClick={() => setDeleting(true)}>
                    Delete
                  </Button>
                </div>
              )}
            </header>
            {action.error !== undefined && <InlineError>{describeError(action.error)}</InlineError>}
            <dl className="monitor-facts">
              <dt>Rule</dt>
              <dd>{describeRule(monitor)}</dd>
              <dt>Last value</dt>
              <dd>{monitor.lastValue === null ? "no data" : monitor.lastValue}</dd>
              <dt>Evaluated</dt>
              <dd>
                {monitor.lastEvaluatedAt ? formatDateTime(monitor.lastEvaluatedAt) : "not yet"} · every {describeSeconds(monitor.intervalSeconds)} · next{" "}
                {formatDateTime(monitor.nextEvaluationAt)}
              </dd>
              <dt>Channels</dt>
              <dd>
                <Channels monitor={monitor} />
              </dd>
            </dl>
            {monitor.muted && <p className="muted">Muted: it is still evaluated and its state still changes, but no notification is sent.</p>}
            {editing && (
              <MonitorForm
                initial={formOf(monitor)}
                editing={monitor}
                onSave={(request) => client.update(monitor.id, request)}
                onSaved={(saved, made) => {
                  setPollUntil(Date.now() + POLL_FOR_MS);
                  loaded.set(saved);
                  setEditing(false);
                  setSecrets(made);
                  setRound((r) => r + 1);
                }}
                onCancel={() => setEditing(false)}
              />
            )}
            {secrets.length > 0 && <SecretDialog secrets={secrets} onDone={() => setSecrets([])} />}
            {deleting && (
              <ConfirmDialog
                title={`Delete ${monitor.name}?`}
                confirmLabel="Delete monitor"
                busy={removal.busy}
                error={removal.error !== undefined ? <InlineError>{describeError(removal.error)}</InlineError> : null}
                onClose={() => setDeleting(false)}
                onConfirm={() =>
                  void removal.run(() => client.remove(monitor.id)).then((done) => {
                    if (done !== undefined) onDeleted();
                  })
                }
              >
                <p>Its evaluations and notifications go with it. It cannot be undone.</p>
              </ConfirmDialog>
            )}
            <History client={client} id={monitor.id} round={round} />
          </>
        )}
      </LoadedView>
    </div>
  );
}
