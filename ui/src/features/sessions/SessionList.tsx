// The project's sessions, newest activity first: figures aggregated by the server, one page at a
// time, filtered by a time range and a search over session and user ids. Everything the list
// shows is in the URL, so a filtered list can be shared.

import { useCallback, useMemo } from "react";
import { Link, useNavigate } from "react-router";

import { dataModel, sessions, SESSIONS_PAGE_SIZE, type SessionSummary } from "../../api/sessions";
import { useProject } from "../../app/project";
import { useMe } from "../../app/session";
import { Button } from "../../components/Button";
import { DataTable, type Column } from "../../components/DataTable";
import { EmptyState } from "../../components/States";
import { LoadedView } from "../../components/LoadedView";
import { Pager } from "../../components/Pager";
import { formatAgo, formatCompact, formatCost, formatCount, formatDateTime, formatDuration } from "../../components/format";
import { PRESETS, rangeProblem, rangeQuery, readRange, type RangeChoice } from "./range";
import { useListParams, useTypedSearch } from "../../components/useListParams";
import { useLoad } from "../../components/useLoad";

/** How long the search box waits for typing to stop before it asks the server. */
const MAX_SEARCH_CHARS = 200;

export function sessionHref(sessionId: string): string {
  return encodeURIComponent(sessionId);
}

function Users({ session }: { session: SessionSummary }) {
  if (session.userCount === 0) return <span className="muted">–</span>;
  const more = session.userCount - session.userIds.length;
  return (
    <span title={session.userIds.join(", ")}>
      {session.userIds.join(", ")}
      {more > 0 && <span className="muted"> +{more}</span>}
    </span>
  );
}

function columns(): Column<SessionSummary>[] {
  return [
    {
      id: "id",
      header: "Session",
      width: "minmax(12rem, 2fr)",
      render: (s) => (
        <Link to={sessionHref(s.id)} className="mono" onClick={(event) => event.stopPropagation()}>
          {s.id}
        </Link>
      ),
    },
    {
      id: "last",
      header: "Last activity",
      width: "minmax(16rem, 1.3fr)",
      render: (s) => (
        <span title={`${formatDateTime(s.firstAt, { year: true })} → ${formatDateTime(s.lastAt, { year: true })}`}>
          {formatDateTime(s.lastAt)} <span className="muted">· {formatAgo(s.lastAt)}</span>
        </span>
      ),
    },
    { id: "duration", header: "Duration", width: "6.5rem", align: "end", render: (s) => formatDuration(s.durationSeconds) },
    { id: "traces", header: "Traces", width: "5rem", align: "end", render: (s) => formatCount(s.traces) },
    { id: "observations", header: "Observations", width: "9rem", align: "end", render: (s) => formatCount(s.observations) },
    {
      id: "tokens",
      header: "Tokens",
      width: "6rem",
      align: "end",
      render: (s) => <span title={formatCount(s.totalTokens)}>{formatCompact(s.totalTokens)}</span>,
    },
    { id: "cost", header: "Cost", width: "6.5rem", align: "end", render: (s) => formatCost(s.totalCost) },
    { id: "users", header: "Users", width: "minmax(8rem, 1.5fr)", render: (s) => <Users session={s} /> },
  ];
}

export function SessionList() {
  const { project } = useProject();
  const model = dataModel(useMe());
  const navigate = useNavigate();
  const { params, page, update } = useListParams();
  const range = readRange(params);
  const search = params.get("q") ?? "";
  const problem = rangeProblem(range);

  // The box answers every keystroke; the URL (and the server) only once typing pauses.
  const commitSearch = useCallback((text: string) => update({ q: text }), [update]);
  const [typed, setTyped] = useTypedSearch(search, commitSearch);

  // The range is read at each load (a preset moves with the clock), so Refresh shows what is new.
  const result = useLoad(
    (signal) =>
      problem
        ? Promise.reject(new Error(problem))
        : sessions.list(
            project.id,
            { model, page, limit: SESSIONS_PAGE_SIZE, ...(search ? { search } : {}), ...rangeQuery(range) },
            signal,
          ),
    [project.id, model, page, search, range.choice, range.from, range.to],
  );

  const table = useMemo(columns, []);
  const data = result.data;
  const totalPages = data?.meta.totalPages ?? 0;

  return (
    <div className="page sessions">
      <header className="page__header">
        <div>
          <p className="page__eyebrow">{project.name}</p>
          <h1>Sessions</h1>
        </div>
        <Button variant="ghost" onClick={result.reload} busy={result.loading && !!data}>
          Refresh
        </Button>
      </header>

      <div className="toolbar" role="search">
        <label className="toolbar__field">
          <span className="toolbar__label">Search</span>
          <input
            type="search"
            className="field__input toolbar__search"
            placeholder="Session or user id"
            value={typed}
            maxLength={MAX_SEARCH_CHARS}
            onChange={(event) => setTyped(event.target.value)}
          />
        </label>
        <label className="toolbar__field">
          <span className="toolbar__label">Time range</span>
          <select
            className="field__input"
            value={range.choice}
            onChange={(event) => update({ range: event.target.value as RangeChoice })}
          >
            {PRESETS.map((p) => (
              <option key={p.value} value={p.value}>
                {p.label}
              </option>
            ))}
            <option value="custom">Custom…</option>
          </select>
        </label>
        {range.choice === "custom" && (
          <>
            <label className="toolbar__field">
              <span className="toolbar__label">From</span>
              <input
                type="datetime-local"
                className="field__input"
                value={range.from}
                onChange={(event) => update({ from: event.target.value })}
              />
            </label>
            <label className="toolbar__field">
              <span className="toolbar__label">To</span>
              <input
                type="datetime-local"
                className="field__input"
                value={range.to}
                onChange={(event) => update({ to: event.target.value })}
              />
            </label>
          </>
        )}
        <span className="toolbar__spacer" />
        {data && (
          <span className="muted" aria-live="polite">
            {formatCount(data.meta.totalItems)} {data.meta.totalItems === 1 ? "session" : "sessions"}
          </span>
        )}
      </div>

      {problem ? (
        <p className="inline-error" role="alert">
          {problem}
        </p>
      ) : (
        <LoadedView result={result} loadingLabel="Loading sessions…">
          {(data) => (
            <>
              <div className="table-frame" aria-busy={result.loading}>
                <DataTable
                  label="Sessions"
                  columns={table}
                  rows={data.data}
                  rowKey={(s) => s.id}
                  onRowClick={(s) => navigate(sessionHref(s.id))}
                  empty={
                    <EmptyState title={search ? "No session matches" : "No sessions in this time range"}>
                      {search ? (
                        <p>No session or user id contains “{search}”.</p>
                      ) : (
                        <p>
                          A session groups the traces that share a session id: send <code>session.id</code> (or{" "}
                          <code>langfuse.session.id</code>) on your spans, or <code>sessionId</code> with the SDKs. Try a longer
                          time range.
                        </p>
                      )}
                    </EmptyState>
                  }
                />
              </div>
              <Pager page={page} totalPages={totalPages} onPage={(p) => update({ page: String(p) })} />
            </>
          )}
        </LoadedView>
      )}
    </div>
  );
}
