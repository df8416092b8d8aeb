// Experiments at /project/{projectId}/experiments: the dataset runs the experiments API reads
// (v4 events and v3 run items), newest first, a cursor page at a time. The API is a v4 read: where
// the write mode or the preview opt-in does not serve it, the page says so.

import { useMemo, useState } from "react";
import { Link } from "react-router";

import { isApiError } from "../../api/client";
import { useProject } from "../../app/project";
import { projectPath } from "../../app/routes";
import { Button } from "../../components/Button";
import { DataTable, type Column } from "../../components/DataTable";
import { EmptyState, ErrorState, Loading } from "../../components/States";
import { formatCount, formatDateTime } from "../../components/format";
import { useLoad } from "../../components/useLoad";
import { datasetHref } from "./access";
import { datasetsApi, type Experiment } from "./api";
import { Tabs } from "./Tabs";
import "./datasets.css";

/** How far back the list looks (the API needs a start). */
const LOOKBACK_DAYS = 90;

function columns(names: ReadonlyMap<string, string>, projectId: string): Column<Experiment>[] {
  return [
    { id: "name", header: "Experiment", width: "minmax(10rem, 1.5fr)", render: (e) => e.name },
    { id: "description", header: "Description", width: "minmax(10rem, 2fr)", render: (e) => <span className="ds-muted">{e.description ?? ""}</span> },
    { id: "items", header: "Items", width: "6rem", align: "end", render: (e) => formatCount(e.itemCount) },
    { id: "start", header: "Started", width: "11rem", render: (e) => formatDateTime(e.startTime) },
    { id: "end", header: "Last item", width: "11rem", render: (e) => formatDateTime(e.endTime) },
    {
      id: "dataset",
      header: "Dataset",
      width: "minmax(8rem, 1fr)",
      render: (e) => {
        const name = e.datasetId ? names.get(e.datasetId) : undefined;
        if (name) return <Link to={`${projectPath(projectId, "datasets")}/${datasetHref(name)}?tab=runs`}>{name}</Link>;
        return <span className="mono">{e.datasetId ?? "–"}</span>;
      },
    },
  ];
}

export default function ExperimentsPage() {
  const { project, api: publicApi } = useProject();
  const api = useMemo(() => datasetsApi(publicApi), [publicApi]);
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const cursor = cursors.at(-1) ?? null;
  const from = useMemo(() => new Date(Date.now() - LOOKBACK_DAYS * 86_400_000).toISOString(), []);
  const result = useLoad((signal) => api.experiments(from, cursor, signal), [api, from, cursor]);
  // The newest datasets' names, to name and link an experiment's dataset (older ones show their id).
  const datasets = useLoad((signal) => api.list(1, signal, 100), [api]);
  const names = useMemo(() => new Map((datasets.data?.data ?? []).map((d) => [d.id, d.name])), [datasets.data]);
  const table = useMemo(() => columns(names, project.id), [names, project.id]);
  const data = result.data;
  const next = data?.meta.cursor ?? null;

  return (
    <div className="page ds">
      <header className="page__header">
        <div>
          <p className="page__eyebrow">{project.name}</p>
          <h1>Experiments</h1>
        </div>
      </header>
      <Tabs current="experiments" />
      {result.error && !data ? (
        isApiError(result.error, "not-found") ? (
          <EmptyState title="Experiments are not served here">
            <p>
              The experiments list reads the v4 events, which this server does not serve in its current write mode. The
              runs of each dataset are on its page: open one in <Link to={projectPath(project.id, "datasets")}>Datasets</Link>.
            </p>
          </EmptyState>
        ) : (
          <ErrorState error={result.error} onRetry={result.reload} />
        )
      ) : !data ? (
        <Loading label="Loading experiments…" />
      ) : (
        <>
          <div className="table-frame" aria-busy={result.loading}>
            <DataTable
              label="Experiments"
              columns={table}
              rows={data.data}
              rowKey={(e) => e.id}
              empty={
                <EmptyState title={`No experiments in the last ${LOOKBACK_DAYS} days`}>
                  <p>Run an experiment on a dataset with the SDKs; it shows here.</p>
                </EmptyState>
              }
            />
          </div>
          {(cursors.length > 1 || next) && (
            <nav className="pager" aria-label="Pages">
              <Button size="sm" disabled={cursors.length <= 1} onClick={() => setCursors(cursors.slice(0, -1))}>
                Newer
              </Button>
              <Button size="sm" disabled={!next} onClick={() => next && setCursors([...cursors, next])}>
                Older
              </Button>
            </nav>
          )}
        </>
      )}
    </div>
  );
}
