// /public/{token}: what a public link opens, for people without an account (outside the sign-in
// guard; every read goes through /api/ui/public/{token}/…). A trace link shows the trace; a
// session link shows the session's figures and traces, and one of them at `?trace=`. An unknown
// or revoked link says so, without telling which.

import { useMemo, useState } from "react";
import { Link, useParams, useSearchParams } from "react-router";

import { isApiError } from "../../api/client";
import { publicApi, publicPagePath, type PublicApi } from "../../api/publicLinks";
import type { SessionTrace } from "../../api/sessions";
import { Button } from "../../components/Button";
import { EmptyState, ErrorState, Loading } from "../../components/States";
import { formatCount, formatDateTime, formatDuration } from "../../components/format";
import { IoPreview } from "../sessions/IoPreview";
import { Summary } from "../sessions/SessionPage";
import { useLoad } from "../trace/useLoad";
import { PublicTrace } from "./PublicTrace";
import "../sessions/sessions.css";
import "./public.css";

/** Traces per page of a shared session (the route takes at most 100). */
const PAGE_SIZE = 50;

function Unavailable() {
  return (
    <EmptyState title="This link is not available">
      <p>The address is wrong, or the people who shared it have turned the link off.</p>
    </EmptyState>
  );
}

function PublicSession({ api, token, sessionId }: { api: PublicApi; token: string; sessionId: string }) {
  const [page, setPage] = useState(1);
  const [loaded, reload] = useLoad(() => api.session(page, PAGE_SIZE), [api, page]);
  if (loaded.status === "error") {
    return isApiError(loaded.error, "not-found") ? <Unavailable /> : <ErrorState error={loaded.error} onRetry={() => void reload()} />;
  }
  if (!loaded.data) return <Loading label="Loading the session…" />;
  const detail = loaded.data;
  const pages = detail.traces.meta.totalPages;
  const href = (trace: SessionTrace) => `${publicPagePath(token)}?trace=${encodeURIComponent(trace.id)}`;
  // The node the card previews: v4 the root observation, v3 the trace's own (as the session page).
  const fullUrl = (trace: SessionTrace, field: "input" | "output") =>
    api.valueUrl(trace.id, trace.rootObservationId ?? `t-${trace.id}`, null, field);
  return (
    <div className="page sessions public-page__session">
      <header className="page__header">
        <div>
          <p className="page__eyebrow">Session</p>
          <h1 className="mono session__title">{sessionId}</h1>
        </div>
      </header>
      <Summary detail={detail} />
      <section aria-labelledby="public-session-traces" className="session__traces">
        <h2 id="public-session-traces">
          Traces <span className="muted">({formatCount(detail.traces.meta.totalItems)}, in the order they started)</span>
        </h2>
        <ol className="trace-list">
          {detail.traces.data.map((trace, index) => (
            <li className="trace-card" key={trace.id}>
              <article aria-label={`Trace ${(page - 1) * PAGE_SIZE + index + 1}: ${trace.name ?? "Unnamed trace"}`}>
                <header className="trace-card__header">
                  <Link to={href(trace)} className="trace-card__name">
                    {trace.name ?? "Unnamed trace"}
                  </Link>
                  <time className="muted" dateTime={trace.startTime}>
                    {formatDateTime(trace.startTime)}
                  </time>
                  <span className="trace-card__spacer" />
                  <span className="chip">{formatDuration(trace.durationSeconds)}</span>
                  <span className="chip">{formatCount(trace.observations)} obs.</span>
                </header>
                <div className="trace-card__io">
                  <IoPreview label="Input" text={trace.input} chars={trace.inputChars} traceHref={href(trace)} fullUrl={fullUrl(trace, "input")} />
                  <IoPreview label="Output" text={trace.output} chars={trace.outputChars} traceHref={href(trace)} fullUrl={fullUrl(trace, "output")} />
                </div>
              </article>
            </li>
          ))}
        </ol>
        {pages > 1 && (
          <div className="session__more">
            <Button disabled={page <= 1} onClick={() => setPage(page - 1)}>
              Previous
            </Button>
            <span className="muted">
              Page {page} of {pages}
            </span>
            <Button disabled={page >= pages} onClick={() => setPage(page + 1)}>
              Next
            </Button>
          </div>
        )}
      </section>
    </div>
  );
}

export default function PublicPage() {
  const { token = "" } = useParams();
  const [params] = useSearchParams();
  const api = useMemo(() => publicApi(token), [token]);
  const [link, reload] = useLoad(() => api.link(), [api]);
  const chosenTrace = params.get("trace");

  let body;
  if (link.status === "error") {
    body = isApiError(link.error, "not-found") ? <Unavailable /> : <ErrorState error={link.error} onRetry={() => void reload()} />;
  } else if (!link.data) {
    body = <Loading />;
  } else if (link.data.kind === "trace") {
    body = <PublicTrace api={api} traceId={link.data.id} />;
  } else if (chosenTrace) {
    body = (
      <>
        <nav aria-label="Breadcrumb" className="breadcrumb public-page__session">
          <Link to={publicPagePath(token)}>Session</Link>
          <span aria-hidden="true">/</span>
          <span className="mono">{chosenTrace}</span>
        </nav>
        <PublicTrace key={chosenTrace} api={api} traceId={chosenTrace} />
      </>
    );
  } else {
    body = <PublicSession api={api} token={token} sessionId={link.data.id} />;
  }

  return (
    <div className="public-page">
      <header className="public-page__header">
        <strong>Loupe</strong>
        <span className="muted">A shared, read-only view</span>
      </header>
      <main className="public-page__body">{body}</main>
    </div>
  );
}
