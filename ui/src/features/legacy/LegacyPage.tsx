// The v3 views (write mode `legacy`, or `dual` without the v4 preview): **Traces** and
// **Observations** tabs over the legacy tables, read through the public v1 routes
// (`GET /api/public/traces`, `GET /api/public/observations`), page by page, with their filters
// (name, user, session, tags, time). The tab is the path: `/project/{id}/traces` and
// `/project/{id}/observations`; filters and page are URL keys.

import { useEffect, useMemo, useState, type FormEvent } from "react";
import { Link, useSearchParams } from "react-router";

import type { Paginated } from "../../api/types";
import { useProject } from "../../app/project";
import { projectPath } from "../../app/routes";
import { Button } from "../../components/Button";
import { DataTable } from "../../components/DataTable";
import { EmptyState, ErrorState, Loading } from "../../components/States";
import { Pager } from "../../components/Pager";
import { RANGE_PRESETS, isPreset, rangeParams, type RangePreset } from "../observations/filters";
import { TAB_COLUMNS, type LegacyRow, type LegacyTab } from "./legacyColumns";
import "../observations/observations.css";

const LIMIT = 50;

/** The filter fields of each tab: URL key, label and the v1 query parameter. */
const FIELDS: Record<LegacyTab, readonly { key: string; label: string; param: string }[]> = {
  traces: [
    { key: "name", label: "Name", param: "name" },
    { key: "user", label: "User ID", param: "userId" },
    { key: "session", label: "Session ID", param: "sessionId" },
    { key: "tags", label: "Tag", param: "tags" },
  ],
  observations: [
    { key: "name", label: "Name", param: "name" },
    { key: "user", label: "User ID", param: "userId" },
    { key: "trace", label: "Trace ID", param: "traceId" },
    { key: "type", label: "Type", param: "type" },
  ],
};

export function LegacyPage({ tab }: { tab: LegacyTab }) {
  const { project, organization, api } = useProject();
  const [params, setParams] = useSearchParams();
  const search = params.toString();
  const page = Math.max(1, Number(params.get("page")) || 1);
  const rangeKey = params.get("range") ?? "24h";
  const range: RangePreset = isPreset(rangeKey) ? rangeKey : "24h";
  const [result, setResult] = useState<{ status: "loading" } | { status: "error"; error: unknown } | { status: "ready"; data: Paginated<LegacyRow> }>(
    { status: "loading" },
  );
  const [attempt, setAttempt] = useState(0);

  const query = useMemo(() => {
    const current = new URLSearchParams(search);
    const time = rangeParams({ preset: range }, Date.now());
    const q: Record<string, string | number> = { page, limit: LIMIT };
    for (const field of FIELDS[tab]) {
      const value = current.get(field.key);
      if (value) q[field.param] = value;
    }
    if (tab === "traces") {
      if (time.fromStartTime) q.fromTimestamp = time.fromStartTime;
    } else if (time.fromStartTime) q.fromStartTime = time.fromStartTime;
    return q;
  }, [search, tab, page, range]);

  useEffect(() => {
    const controller = new AbortController();
    setResult({ status: "loading" });
    api
      .get<Paginated<LegacyRow>>(tab, query, controller.signal)
      .then((data) => setResult({ status: "ready", data }))
      .catch((error: unknown) => {
        if (!(error instanceof DOMException && error.name === "AbortError")) setResult({ status: "error", error });
      });
    return () => controller.abort();
  }, [api, tab, query, attempt]);

  const set = (changes: Record<string, string | null>) => {
    const next = new URLSearchParams(search);
    for (const [key, value] of Object.entries(changes)) {
      if (value) next.set(key, value);
      else next.delete(key);
    }
    setParams(next);
  };
  const applyFilters = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const changes: Record<string, string | null> = { page: null };
    for (const field of FIELDS[tab]) changes[field.key] = String(form.get(field.key) ?? "").trim() || null;
    set(changes);
  };
  const totalPages = result.status === "ready" ? result.data.meta.totalPages : 0;

  return (
    <div className="page page--full observations">
      <header className="page__header">
        <div>
          <p className="page__eyebrow">{organization.name}</p>
          <h1>{project.name}</h1>
        </div>
      </header>
      <div className="tabs" role="tablist" aria-label="Views">
        {(["traces", "observations"] as const).map((t) => (
          <Link key={t} role="tab" aria-selected={t === tab} className="tabs__tab" to={projectPath(project.id, t)}>
            {t === "traces" ? "Traces" : "Observations"}
          </Link>
        ))}
      </div>
      <form key={`${tab}?${search}`} className="toolbar" aria-label="Filters" onSubmit={applyFilters}>
        {FIELDS[tab].map((field) => (
          <input
            key={field.key}
            name={field.key}
            aria-label={field.label}
            placeholder={field.label}
            className="field__input toolbar__field"
            defaultValue={params.get(field.key) ?? ""}
          />
        ))}
        <select aria-label="Time range" className="field__input" value={range} onChange={(e) => set({ range: e.target.value, page: null })}>
          {RANGE_PRESETS.map((p) => (
            <option key={p.id} value={p.id}>
              {p.label}
            </option>
          ))}
        </select>
        <Button size="sm" type="submit" variant="primary">
          Apply
        </Button>
      </form>
      <div className="observations__body">
        <div className="observations__table">
          {result.status === "loading" ? (
            <Loading label={`Loading ${tab}…`} />
          ) : result.status === "error" ? (
            <ErrorState error={result.error} onRetry={() => setAttempt((a) => a + 1)} />
          ) : (
            <DataTable
              label={tab === "traces" ? "Traces" : "Observations"}
              columns={TAB_COLUMNS[tab]}
              rows={result.data.data}
              rowKey={(r) => r.id}
              empty={
                <EmptyState title={tab === "traces" ? "No traces" : "No observations"}>
                  <p>Nothing matches these filters in this time range.</p>
                </EmptyState>
              }
            />
          )}
        </div>
      </div>
      <Pager
        page={page}
        totalPages={totalPages}
        onPage={(p) => set({ page: p > 1 ? String(p) : null })}
        detail={result.status === "ready" ? `· ${result.data.meta.totalItems.toLocaleString()} ${tab}` : undefined}
        always
      />
    </div>
  );
}
