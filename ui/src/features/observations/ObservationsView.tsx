// The one Observations view (v4): every observation of the project, newest first, with filters,
// search, time range, columns, saved views and live mode, all in the URL; a row opens the trace
// panel (`?trace=&observation=`). j/k move through rows while the panel is closed, Enter opens one.

import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { useLocation, useSearchParams } from "react-router";

import { useProject } from "../../app/project";
import { Button } from "../../components/Button";
import { DataTable } from "../../components/DataTable";
import { EmptyState, ErrorState, Loading } from "../../components/States";
import { observationsApi, type ObservationRow, type SavedView } from "./api";
import { BatchExportButton } from "../exports/BatchExport";
import { ColumnChooser } from "./ColumnChooser";
import { tableColumns } from "./columns";
import { FilterPanel } from "./FilterPanel";
import { describeFilter, type ViewFilter } from "./filters";
import { findPreset } from "./presets";
import { SavedViews } from "./SavedViews";
import { readViewState, stateFromSaved, writeViewState, type ViewState } from "./state";
import { TimeRangePicker } from "./TimeRangePicker";
import { TracePanel } from "./TracePanelSlot";
import { useObservations } from "./useObservations";
import "./observations.css";

const STATE_KEYS = ["filter", "cols", "q", "range", "from", "to"];
const SEARCH_DELAY_MS = 350;

function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return !!el && (el.isContentEditable || ["INPUT", "SELECT", "TEXTAREA"].includes(el.tagName));
}

export function ObservationsView() {
  const { project, organization } = useProject();
  const [params, setParams] = useSearchParams();
  const location = useLocation();
  const client = useMemo(() => observationsApi(project.id), [project.id]);
  const search = params.toString();
  const state = useMemo(() => readViewState(new URLSearchParams(search)), [search]);
  const [live, setLive] = useState(false);
  const [filtersOpen, setFiltersOpen] = useState(false);
  const data = useObservations(client, state, live);
  const canWrite = project.role !== "VIEWER" && project.role !== "NONE";

  const traceId = params.get("trace");
  const observationId = params.get("observation");
  const viewId = params.get("view");

  const update = useCallback(
    (next: ViewState) => setParams(writeViewState(next, new URLSearchParams(search)), { replace: false }),
    [search, setParams],
  );

  // --- saved views ---------------------------------------------------------------------------
  const [views, setViews] = useState<SavedView[] | null>(null);
  const [viewsError, setViewsError] = useState<unknown>(null);
  const loadViews = useCallback(
    () =>
      client.savedViews().then(
        (v) => {
          setViews(v);
          setViewsError(null);
          return v;
        },
        (e: unknown) => {
          setViewsError(e);
          return null;
        },
      ),
    [client],
  );
  useEffect(() => void loadViews(), [loadViews]);

  // A permalink `?view=<id>` (no state in the URL) is expanded into the view's state.
  const [missingView, setMissingView] = useState<string | null>(null);
  useEffect(() => {
    const current = new URLSearchParams(search);
    if (!viewId || STATE_KEYS.some((k) => current.has(k))) return;
    const preset = findPreset(viewId);
    const saved = preset ? null : views?.find((v) => v.id === viewId);
    if (!preset && views === null) return;
    if (!preset && !saved) {
      setMissingView(viewId);
      return;
    }
    setMissingView(null);
    const next = preset ? preset.state : stateFromSaved(saved?.state);
    const expanded = writeViewState(next, current);
    if (expanded.toString() !== current.toString()) setParams(expanded, { replace: true });
  }, [viewId, views, search, setParams]);

  const linkTo = (id: string) => `${location.pathname}?view=${encodeURIComponent(id)}`;

  // --- search box: typed text reaches the URL after a pause ---------------------------------------
  const [searchText, setSearchText] = useState(state.search);
  useEffect(() => setSearchText(state.search), [state.search]);
  useEffect(() => {
    if (searchText === state.search) return;
    const timer = setTimeout(() => update({ ...state, search: searchText.slice(0, 200) }), SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [searchText, state, update]);

  // --- selection and keyboard ---------------------------------------------------------------------
  const [active, setActive] = useState(-1);
  const activeRef = useRef(active);
  activeRef.current = active;
  useEffect(() => setActive(-1), [search.replace(/(^|&)(trace|observation)=[^&]*/g, "")]);
  const open = useCallback(
    (row: ObservationRow) => {
      const next = new URLSearchParams(search);
      next.set("trace", row.traceId);
      next.set("observation", row.id);
      setParams(next);
    },
    [search, setParams],
  );
  const close = useCallback(() => {
    const next = new URLSearchParams(search);
    next.delete("trace");
    next.delete("observation");
    setParams(next);
  }, [search, setParams]);
  const selectObservation = useCallback(
    (id: string) => {
      const next = new URLSearchParams(search);
      next.set("observation", id);
      setParams(next, { replace: true });
    },
    [search, setParams],
  );

  // One listener for the page's life, reading the current rows, selection and `open` from refs, so
  // no key is lost while a re-render swaps it.
  const keys = useRef({ rows: data.rows, panelOpen: !!traceId, open });
  keys.current = { rows: data.rows, panelOpen: !!traceId, open };
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const { rows, panelOpen, open: openRow } = keys.current;
      if (panelOpen || event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || typing(event.target)) return;
      if (event.key === "j" || event.key === "k") {
        event.preventDefault();
        const next = Math.max(0, Math.min(rows.length - 1, activeRef.current + (event.key === "j" ? 1 : -1)));
        activeRef.current = next;
        setActive(next);
      } else if (event.key === "Enter") {
        const row = rows[activeRef.current];
        if (row) {
          event.preventDefault();
          openRow(row);
        }
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);

  // Time to first rows, for the browser test and anyone profiling (`performance.getEntriesByName`).
  const marked = useRef(false);
  useEffect(() => {
    if (!marked.current && data.status === "ready") {
      marked.current = true;
      performance.mark("loupe:observations:first-rows");
    }
  }, [data.status]);

  const removeFilter = (filter: ViewFilter) => update({ ...state, filters: state.filters.filter((f) => f !== filter) });
  const selectedKey = traceId ? observationId : (data.rows[active]?.id ?? null);
  const columns = useMemo(() => tableColumns(state.columns), [state.columns]);

  return (
    <div className="page page--full observations">
      <header className="page__header">
        <div>
          <p className="page__eyebrow">{organization.name}</p>
          <h1>{project.name}</h1>
        </div>
        <p className="muted observations__count" aria-live="polite">
          {data.status === "ready" &&
            `${data.rows.length.toLocaleString()}${data.hasMore ? "+" : ""} ${data.rows.length === 1 && !data.hasMore ? "observation" : "observations"}`}
        </p>
      </header>

      <div className="toolbar" role="toolbar" aria-label="Observations view">
        <input
          type="search"
          className="field__input toolbar__search"
          aria-label="Search"
          placeholder={state.searchIn === "io" ? "Words in input or output…" : "Search names and ids…"}
          maxLength={200}
          value={searchText}
          onChange={(e) => setSearchText(e.target.value)}
        />
        <select
          className="field__input"
          aria-label="Search in"
          value={state.searchIn}
          onChange={(e) => update({ ...state, search: searchText.slice(0, 200), searchIn: e.target.value === "io" ? "io" : "ids" })}
        >
          <option value="ids">Names and ids</option>
          <option value="io">Input and output</option>
        </select>
        <select
          className="field__input"
          aria-label="Order"
          value={state.order}
          onChange={(e) => update({ ...state, order: e.target.value === "asc" ? "asc" : "desc" })}
        >
          <option value="desc">Newest first</option>
          <option value="asc">Oldest first</option>
        </select>
        <TimeRangePicker range={state.range} onChange={(range) => update({ ...state, range })} />
        <Button size="sm" aria-expanded={filtersOpen} onClick={() => setFiltersOpen((o) => !o)}>
          Filters{state.filters.length ? ` (${state.filters.length})` : ""}
        </Button>
        <ColumnChooser columns={state.columns} onChange={(cols) => update({ ...state, columns: cols })} />
        {canWrite && <BatchExportButton state={state} />}
        <SavedViews
          views={views}
          loadError={viewsError}
          activeId={viewId}
          linkTo={linkTo}
          canWrite={canWrite}
          onSave={async (name) => {
            const view = await client.createView(name, state);
            await loadViews();
            const next = writeViewState(state, new URLSearchParams(search));
            next.set("view", view.id);
            setParams(next);
          }}
          onRename={async (id, name) => {
            await client.updateView(id, { name });
            await loadViews();
          }}
          onDelete={async (id) => {
            await client.deleteView(id);
            await loadViews();
          }}
        />
        <span className="shell__spacer" />
        <label className="switch">
          <input
            type="checkbox"
            role="switch"
            checked={live && state.order === "desc"}
            disabled={state.order === "asc"}
            title={state.order === "asc" ? "Live mode adds the newest rows on top: choose Newest first" : undefined}
            onChange={(e) => setLive(e.target.checked)}
          />
          Live
          {live && <span className="live-dot" aria-hidden="true" />}
        </label>
      </div>

      {filtersOpen && (
        <FilterPanel
          projectId={project.id}
          filters={state.filters}
          onApply={(filters) => {
            update({ ...state, filters });
            setFiltersOpen(false);
          }}
          onClose={() => setFiltersOpen(false)}
        />
      )}
      {state.filters.length > 0 && (
        <ul className="chips" aria-label="Applied filters">
          {state.filters.map((f, i) => (
            <li key={i} className="chip">
              {describeFilter(f)}
              <button type="button" className="chip__remove" aria-label={`Remove filter ${describeFilter(f)}`} onClick={() => removeFilter(f)}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      {missingView && (
        <p className="inline-error" role="alert">
          The saved view <code>{missingView}</code> does not exist (any more); showing the view as the address describes it.
        </p>
      )}

      <div className={`observations__body${traceId ? " observations__body--split" : ""}`}>
        <div className="observations__table">
          {data.status === "loading" ? (
            <Loading label="Loading observations…" />
          ) : data.status === "error" ? (
            <ErrorState error={data.error} onRetry={data.retry} />
          ) : (
            <DataTable
              label="Observations"
              columns={columns}
              rows={data.rows}
              rowKey={(r) => r.id}
              onRowClick={open}
              selectedKey={selectedKey}
              scrollToIndex={traceId ? undefined : active}
              onEndReached={data.hasMore ? data.loadMore : undefined}
              empty={
                <EmptyState title="No observations">
                  <p>
                    Nothing matches this view. Widen the time range, remove a filter or clear the search; new observations
                    appear here once ingested{live ? "" : " (turn on Live to see them arrive)"}.
                  </p>
                </EmptyState>
              }
            />
          )}
          {data.status === "ready" && data.rows.length > 0 && (
            <p className="observations__footer muted">
              {data.loadingMore ? "Loading more…" : data.hasMore ? "Scroll for more" : "All observations loaded"}
            </p>
          )}
        </div>
        {traceId && (
          <TracePanel
            projectId={project.id}
            traceId={traceId}
            {...(observationId ? { observationId } : {})}
            onSelectObservation={selectObservation}
            onClose={close}
          />
        )}
      </div>
    </div>
  );
}
