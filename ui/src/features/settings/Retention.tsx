// Project settings → Data retention: how many days of trace data the project keeps (0 or unset:
// forever), what the worker deletes past that, and what its last run did here
// (`GET /api/ui/projects/{id}/retention`, the facts of `worker retention-status`; docs/retention.md).
// OWNER and ADMIN change it; everyone on the project reads it.

import { useState, type FormEvent } from "react";

import { api as client, describeError } from "../../api/client";
import { useProject } from "../../app/project";
import { Button } from "../../components/Button";
import { formatCount, formatDateTime } from "../../components/format";
import { LoadedView } from "../../components/LoadedView";
import { InlineError } from "../../components/States";
import { TextField } from "../../components/TextField";
import { useLoad } from "../../components/useLoad";
import { settings } from "./api";
import { checkRetention } from "./forms";
import { useAction } from "./useAction";

export interface RetentionTarget {
  target: string;
  lastRunAt: string;
  lastCutoff: string;
  lastRemoved: number;
  removedTotal: number;
  partitionsDropped: number;
  lastError: string | null;
}

export interface RetentionStatus {
  lastPass: { startedAt: string; finishedAt: string | null; failedUnits: number } | null;
  targets: RetentionTarget[];
}

const retentionStatus = (projectId: string, signal: AbortSignal) =>
  client.get<RetentionStatus>(`/api/ui/projects/${encodeURIComponent(projectId)}/retention`, { signal });

/** `clickhouse:events_full` as people read it. */
function describeTarget(target: string): string {
  const [store, name] = target.split(":", 2);
  if (store === "blobs") return `stored files: ${name}/`;
  if (store === "postgres") return `${name} (PostgreSQL)`;
  return `${name ?? target} (ClickHouse)`;
}

function LastRun({ status, days }: { status: RetentionStatus; days: number }) {
  const pass = status.lastPass;
  return (
    <div className="settings-block">
      <h3 className="retention__title">Last run</h3>
      {!pass ? (
        <p className="muted">The worker has not run retention yet (a pass starts every hour).</p>
      ) : (
        <p className="muted" role="status">
          Last pass over all projects started {formatDateTime(pass.startedAt, { year: true })}
          {pass.finishedAt ? `, finished ${formatDateTime(pass.finishedAt, { year: true })}` : ", still running"}
          {pass.failedUnits ? ` with ${formatCount(pass.failedUnits)} failed step(s); the next pass retries them` : ""}.
        </p>
      )}
      {status.targets.length > 0 ? (
        <table className="people" aria-label="Retention by store">
          <thead>
            <tr>
              <th>Where</th>
              <th>Last run</th>
              <th>Deleted before</th>
              <th>Removed then</th>
              <th>Removed in all</th>
              <th>Error</th>
            </tr>
          </thead>
          <tbody>
            {status.targets.map((t) => (
              <tr key={t.target}>
                <td>{describeTarget(t.target)}</td>
                <td>{formatDateTime(t.lastRunAt)}</td>
                <td>{formatDateTime(t.lastCutoff, { year: true })}</td>
                <td>{formatCount(t.lastRemoved)}</td>
                <td>
                  {formatCount(t.removedTotal)}
                  {t.partitionsDropped ? <span className="muted"> (+{formatCount(t.partitionsDropped)} whole months)</span> : null}
                </td>
                <td>{t.lastError ? <span className="field__error">{t.lastError}</span> : <span className="muted">–</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        pass && <p className="muted">{days ? "Nothing has been removed from this project yet." : "This project keeps its data, so nothing is removed."}</p>
      )}
    </div>
  );
}

export function Retention({ manage }: { manage: boolean }) {
  const { project, api } = useProject();
  const loaded = useLoad((signal) => settings.project(api, signal), [api]);
  const status = useLoad((signal) => retentionStatus(project.id, signal), [project.id]);
  const [typed, setTyped] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const action = useAction();
  const current = loaded.data?.retentionDays ?? 0;
  const shown = typed ?? String(current);

  const save = async (days: number) => {
    setSaved(false);
    const answer = await action.run(() => settings.updateProject(project.id, loaded.data?.name ?? project.name, days));
    if (answer) {
      loaded.set(answer);
      setTyped(null);
      setSaved(true);
    }
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const checked = checkRetention(shown);
    setProblem("problem" in checked ? checked.problem : null);
    if ("days" in checked) void save(checked.days);
  };

  return (
    <>
      <div className="retention__explain">
        <p>
          {current ? (
            <>
              This project keeps <strong>{current} days</strong> of trace data. Every hour the worker deletes, for good, whatever is dated before then:
            </>
          ) : (
            <>This project keeps its data forever. With a retention, every hour the worker deletes, for good, whatever is dated before the window:</>
          )}
        </p>
        <ul>
          <li>traces, observations and scores (v3 and v4 tables), dataset run items;</li>
          <li>the raw payloads as received, dead-lettered payloads, comments on traces, observations and sessions;</li>
          <li>media that no recent trace or dataset item refers to.</li>
        </ul>
        <p className="muted">Kept whatever their age: prompts, datasets and their items, score configs, annotation queues, saved views, dashboards, models and the audit log.</p>
      </div>
      <form className="settings-form" aria-label="Data retention" onSubmit={submit} noValidate>
        <div className="settings-row">
          <TextField
            label="Data retention (days)"
            inputMode="numeric"
            value={shown}
            readOnly={!manage}
            hint="0 keeps data forever; otherwise at least 3 days."
            error={problem}
            onChange={(e) => {
              setSaved(false);
              setTyped(e.target.value);
            }}
          />
        </div>
        {action.error !== undefined && <InlineError>{describeError(action.error)}</InlineError>}
        {manage && (
          <div className="settings-row">
            <Button type="submit" variant="primary" busy={action.busy}>
              Save retention
            </Button>
            {current > 0 && (
              <Button busy={action.busy} onClick={() => void save(0)}>
                Keep data forever
              </Button>
            )}
            {saved && (
              <span className="muted" role="status">
                Saved
              </span>
            )}
          </div>
        )}
        {!manage && <p className="muted">Only owners and admins change the retention.</p>}
      </form>
      <LoadedView result={status} loadingLabel="Loading the last run…">
        {(s) => <LastRun status={s} days={current} />}
      </LoadedView>
    </>
  );
}
