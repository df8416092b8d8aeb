// One session at /project/{projectId}/sessions/{sessionId}: its figures, then its traces in the
// order they started, each with the start of its root observation's input and output and a link
// to the trace page. Traces come a page at a time ("Load more").

import { useEffect, useState, type ReactNode } from "react";
import { Link, useParams } from "react-router";

import { isApiError } from "../../api/client";
import { dataModel, sessions, type DataModel, type SessionDetail, type SessionTrace } from "../../api/sessions";
import { traceApi } from "../../api/trace";
import { useProject } from "../../app/project";
import { projectPath } from "../../app/routes";
import { useMe } from "../../app/session";
import { Button } from "../../components/Button";
import { EmptyState, ErrorState, Loading } from "../../components/States";
import { formatCost, formatCount, formatDateTime, formatDuration } from "../../components/format";
import { IoPreview } from "./IoPreview";
import { useLoad } from "../../components/useLoad";
import { PublicLinkToggle } from "../public/PublicLinkToggle";

/** Traces per request. */
const TRACES_PAGE_SIZE = 50;

export function tracePath(projectId: string, traceId: string): string {
  return projectPath(projectId, `traces/${encodeURIComponent(traceId)}`);
}

function Figure({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="figure">
      <dt className="figure__label">{label}</dt>
      <dd className="figure__value">{children}</dd>
    </div>
  );
}

export function Summary({ detail }: { detail: SessionDetail }) {
  const s = detail.session;
  const more = s.userCount - s.userIds.length;
  return (
    <dl className="figures" aria-label="Session figures">
      <Figure label="Traces">{formatCount(s.traces)}</Figure>
      <Figure label="Observations">{formatCount(s.observations)}</Figure>
      <Figure label="Duration">{formatDuration(s.durationSeconds)}</Figure>
      <Figure label="Total cost">{formatCost(s.totalCost)}</Figure>
      <Figure label="Tokens">{formatCount(s.totalTokens)}</Figure>
      <Figure label="Started">{formatDateTime(s.firstAt, { year: true })}</Figure>
      <Figure label="Last activity">{formatDateTime(s.lastAt, { year: true })}</Figure>
      <Figure label={s.userCount === 1 ? "User" : "Users"}>
        {s.userCount === 0 ? "–" : s.userIds.join(", ")}
        {more > 0 && <span className="muted"> and {formatCount(more)} more</span>}
      </Figure>
    </dl>
  );
}

/** The node whose input and output the card previews: v4 the root observation, v3 the trace's own. */
function valueUrl(projectId: string, trace: SessionTrace, model: DataModel, field: "input" | "output"): string {
  const node = model === "v4" && trace.rootObservationId ? trace.rootObservationId : `t-${trace.id}`;
  return traceApi(projectId).valueUrl(trace.id, node, model, field);
}

function TraceCard({ trace, index, projectId, model }: { trace: SessionTrace; index: number; projectId: string; model: DataModel }) {
  const href = tracePath(projectId, trace.id);
  const name = trace.name ?? "Unnamed trace";
  return (
    <li className="trace-card">
      <article aria-label={`Trace ${index + 1}: ${name}`}>
        <header className="trace-card__header">
          <span className="trace-card__index" aria-hidden="true">
            {index + 1}
          </span>
          <Link to={href} className="trace-card__name">
            {name}
          </Link>
          <time className="muted" dateTime={trace.startTime}>
            {formatDateTime(trace.startTime)}
          </time>
          <span className="trace-card__spacer" />
          <span className="chip" title="From the first start to the last end">
            {formatDuration(trace.durationSeconds)}
          </span>
          <span className="chip">{formatCount(trace.observations)} obs.</span>
          {trace.totalTokens > 0 && <span className="chip">{formatCount(trace.totalTokens)} tokens</span>}
          {trace.totalCost > 0 && <span className="chip">{formatCost(trace.totalCost)}</span>}
          {trace.userId && <span className="chip chip--user">{trace.userId}</span>}
        </header>
        <div className="trace-card__io">
          <IoPreview label="Input" text={trace.input} chars={trace.inputChars} traceHref={href} fullUrl={valueUrl(projectId, trace, model, "input")} />
          <IoPreview label="Output" text={trace.output} chars={trace.outputChars} traceHref={href} fullUrl={valueUrl(projectId, trace, model, "output")} />
        </div>
      </article>
    </li>
  );
}

export function SessionPage() {
  const { sessionId = "" } = useParams();
  const { project } = useProject();
  const model = dataModel(useMe());
  const first = useLoad(
    (signal) => sessions.get(project.id, sessionId, { model, limit: TRACES_PAGE_SIZE }, signal),
    [project.id, sessionId, model],
  );
  // Pages after the first, appended as the person asks for them.
  const [more, setMore] = useState<SessionTrace[]>([]);
  const [loadingMore, setLoadingMore] = useState(false);
  const [moreError, setMoreError] = useState<unknown>(undefined);
  useEffect(() => setMore([]), [first.data]);

  const back = (
    <nav aria-label="Breadcrumb" className="breadcrumb">
      <Link to={projectPath(project.id, "sessions")}>Sessions</Link>
      <span aria-hidden="true">/</span>
      <span className="mono">{sessionId}</span>
    </nav>
  );

  if (first.error !== undefined && !first.data) {
    return (
      <div className="page sessions">
        {back}
        {isApiError(first.error, "not-found") ? (
          <EmptyState title="Session not found" actions={<Link to={projectPath(project.id, "sessions")}>All sessions</Link>}>
            <p>
              No trace of this project names the session <code>{sessionId}</code>.
            </p>
          </EmptyState>
        ) : (
          <ErrorState error={first.error} onRetry={first.reload} />
        )}
      </div>
    );
  }
  if (!first.data) {
    return (
      <div className="page sessions">
        {back}
        <Loading label="Loading the session…" />
      </div>
    );
  }

  const detail = first.data;
  const traces = [...detail.traces.data, ...more];
  const total = detail.traces.meta.totalItems;
  const loadMore = () => {
    setLoadingMore(true);
    setMoreError(undefined);
    const page = Math.floor(traces.length / TRACES_PAGE_SIZE) + 1;
    sessions
      .get(project.id, sessionId, { model, page, limit: TRACES_PAGE_SIZE })
      .then((next) => setMore((m) => [...m, ...next.traces.data]))
      .catch(setMoreError)
      .finally(() => setLoadingMore(false));
  };

  return (
    <div className="page sessions">
      {back}
      <header className="page__header">
        <div>
          <p className="page__eyebrow">Session</p>
          <h1 className="mono session__title">{sessionId}</h1>
        </div>
        <div className="public-link-actions">
          <PublicLinkToggle projectId={project.id} kind="session" targetId={sessionId} canWrite={["OWNER", "ADMIN", "MEMBER"].includes(project.role)} />
          <Button variant="ghost" onClick={first.reload} busy={first.loading}>
            Refresh
          </Button>
        </div>
      </header>
      <Summary detail={detail} />
      <section aria-labelledby="session-traces" className="session__traces">
        <h2 id="session-traces">
          Traces <span className="muted">({formatCount(total)}, in the order they started)</span>
        </h2>
        <ol className="trace-list">
          {traces.map((trace, index) => (
            <TraceCard key={trace.id} trace={trace} index={index} projectId={project.id} model={model} />
          ))}
        </ol>
        {moreError !== undefined && <ErrorState error={moreError} onRetry={loadMore} />}
        {traces.length < total && (
          <div className="session__more">
            <Button onClick={loadMore} busy={loadingMore}>
              Load more traces ({formatCount(total - traces.length)} left)
            </Button>
          </div>
        )}
      </section>
    </div>
  );
}
