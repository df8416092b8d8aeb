// Background migrations at /background-migrations (instance admins): every step of the v3 → v4
// backfill with its status, progress, rate, time left, times and last error, and Retry on a failed
// step. It polls every few seconds while the tab is visible.

import { useEffect, useState } from "react";

import { admin, type BackgroundMigration, type BackgroundMigrations } from "../../api/admin";
import { describeError, isApiError } from "../../api/client";
import { useMe } from "../../app/session";
import { Button } from "../../components/Button";
import { EmptyState, ErrorState, InlineError, Loading } from "../../components/States";
import { NotAllowed } from "../admin/NotAllowed";
import { formatAgo, formatDateTime, formatDuration } from "../../components/format";
import "../sessions/sessions.css";
import { useLoad } from "../../components/useLoad";
import { formatEta, formatPercent, formatRate, formatRows } from "./format";
import "./migrations.css";
import { usePolling } from "./usePolling";

/** How often the page asks for the steps while it is visible. */
export const POLL_MS = 3000;

const STATUS_LABEL: Record<BackgroundMigration["status"], string> = {
  pending: "Pending",
  running: "Running",
  succeeded: "Succeeded",
  failed: "Failed",
  skipped: "Skipped",
};

function Progress({ step }: { step: BackgroundMigration }) {
  const percent = formatPercent(step.percent);
  const label = `Progress of ${step.name}`;
  return (
    <div className="progress">
      <div
        className={`progress__track progress__track--${step.status}`}
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        {...(step.percent !== null ? { "aria-valuenow": Math.round(step.percent * 10) / 10 } : {})}
        aria-valuetext={percent ?? `${formatRows(step.rowsDone, step.rowsEstimated, step.unit)}, total unknown`}
      >
        <div
          className={`progress__bar${step.percent === null && step.status === "running" ? " progress__bar--unknown" : ""}`}
          style={{ width: `${Math.min(100, Math.max(0, step.percent ?? (step.status === "running" ? 100 : 0)))}%` }}
        />
      </div>
      <div className="progress__figures">
        <strong>{percent ?? "–"}</strong>
        <span className="muted">{formatRows(step.rowsDone, step.rowsEstimated, step.unit)}</span>
      </div>
    </div>
  );
}

function Times({ step }: { step: BackgroundMigration }) {
  if (!step.startedAt) return <span className="muted">Not started</span>;
  const end = step.finishedAt ?? null;
  const seconds = ((end ? Date.parse(end) : Date.now()) - Date.parse(step.startedAt)) / 1000;
  return (
    <span>
      <time dateTime={step.startedAt}>{formatDateTime(step.startedAt, { year: true })}</time>
      {" → "}
      {end ? <time dateTime={end}>{formatDateTime(end, { year: true })}</time> : <span className="muted">now</span>}
      <span className="muted"> ({formatDuration(seconds)})</span>
    </span>
  );
}

function Step({ step, onRetry }: { step: BackgroundMigration; onRetry(name: string): Promise<void> }) {
  const [retrying, setRetrying] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const rate = step.status === "running" ? formatRate(step.rowsPerSecond, step.unit) : null;
  const eta = step.status === "running" ? formatEta(step.etaSeconds) : null;
  const retry = () => {
    setRetrying(true);
    setError(undefined);
    onRetry(step.name)
      .catch(setError)
      .finally(() => setRetrying(false));
  };

  return (
    <li className={`migration migration--${step.status}`}>
      <article aria-label={step.name}>
        <header className="migration__header">
          <span className="migration__position" aria-hidden="true">
            {step.position}
          </span>
          <h2 className="migration__name mono">{step.name}</h2>
          <span className={`status status--${step.status}`}>{STATUS_LABEL[step.status]}</span>
          <span className="migration__spacer" />
          {step.status === "failed" && (
            <Button variant="primary" size="sm" busy={retrying} onClick={retry} aria-label={`Retry ${step.name}`}>
              Retry
            </Button>
          )}
        </header>
        <p className="migration__description">{step.description}</p>
        <Progress step={step} />
        <dl className="migration__facts">
          {rate && (
            <div>
              <dt>Rate</dt>
              <dd>{rate}</dd>
            </div>
          )}
          {eta && (
            <div>
              <dt>Time left</dt>
              <dd>{eta}</dd>
            </div>
          )}
          <div>
            <dt>Ran</dt>
            <dd>
              <Times step={step} />
            </dd>
          </div>
          {step.worker && (
            <div>
              <dt>Worker</dt>
              <dd className="mono">{step.worker}</dd>
            </div>
          )}
        </dl>
        {step.lastError && (
          <div className="migration__error" role={step.status === "failed" ? "alert" : undefined}>
            <strong>Last error</strong>
            <pre>{step.lastError}</pre>
          </div>
        )}
        {error !== undefined && <InlineError>{describeError(error)}</InlineError>}
      </article>
    </li>
  );
}

function Steps({ migrations, onRetry }: { migrations: BackgroundMigrations; onRetry(name: string): Promise<void> }) {
  const steps = [...migrations.data].sort((a, b) => a.position - b.position);
  if (steps.length === 0) {
    return (
      <EmptyState title="No background migrations">
        <p>This deployment has no migration steps recorded.</p>
      </EmptyState>
    );
  }
  return (
    <ol className="migrations" aria-label="Migration steps">
      {steps.map((step) => (
        <Step key={step.name} step={step} onRetry={onRetry} />
      ))}
    </ol>
  );
}

export default function BackgroundMigrationsPage() {
  const me = useMe();
  const loaded = useLoad((signal) => (me.instanceAdmin ? admin.migrations(signal) : Promise.resolve(undefined)), [me.instanceAdmin]);
  const [checkedAt, setCheckedAt] = useState(() => Date.now());
  useEffect(() => setCheckedAt(Date.now()), [loaded.data]);
  const polling = usePolling(() => {
    // A slow answer is not asked for again before it arrives.
    if (me.instanceAdmin && !loaded.loading) loaded.reload();
  }, POLL_MS);

  if (!me.instanceAdmin || isApiError(loaded.error, "forbidden")) return <NotAllowed what="the background migrations" />;

  const retry = async (name: string) => {
    loaded.set(await admin.retry(name));
  };
  const steps = loaded.data?.data ?? [];
  const done = steps.filter((s) => s.status === "succeeded" || s.status === "skipped").length;

  return (
    <div className="page">
      <header className="page__header">
        <div>
          <p className="page__eyebrow">Instance</p>
          <h1>Background migrations</h1>
          <p className="muted">The one-off copy of the v3 tables into the v4 events, step by step.</p>
        </div>
        <p className="muted migrations__refresh" aria-live="polite">
          {polling ? `Refreshes every ${POLL_MS / 1000} s` : "Paused while this tab is hidden"}
          {loaded.data && ` · checked ${formatAgo(new Date(checkedAt).toISOString())}`}
        </p>
      </header>
      {loaded.error !== undefined && loaded.data && (
        <InlineError>The steps could not be refreshed ({describeError(loaded.error)}); they are shown as last seen.</InlineError>
      )}
      {loaded.error !== undefined && !loaded.data ? (
        <ErrorState error={loaded.error} onRetry={loaded.reload} />
      ) : !loaded.data ? (
        <Loading label="Loading the migrations…" />
      ) : (
        <>
          <p className="migrations__summary">
            {done} of {steps.length} steps done
            {steps.some((s) => s.status === "failed") && <span className="status status--failed">a step failed</span>}
          </p>
          <Steps migrations={loaded.data} onRetry={retry} />
        </>
      )}
    </div>
  );
}
