// The project's datasets, newest first, one server page at a time: name, description, active
// items, newest run, created. A MEMBER or above creates one here; a VIEWER sees no button.

import { useMemo, useState } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";

import { useProject } from "../../app/project";
import { Button } from "../../components/Button";
import { DataTable, type Column } from "../../components/DataTable";
import { LoadedView } from "../../components/LoadedView";
import { Pager } from "../../components/Pager";
import { EmptyState } from "../../components/States";
import { formatAgo, formatCount, formatDateTime } from "../../components/format";
import { useLoad } from "../../components/useLoad";
import { datasetsApi, type DatasetOverview } from "./api";
import { canWrite, datasetHref } from "./access";
import { DatasetForm } from "./DatasetForm";
import { Tabs } from "./Tabs";

function columns(): Column<DatasetOverview>[] {
  return [
    {
      id: "name",
      header: "Name",
      width: "minmax(10rem, 1.2fr)",
      render: (d) => (
        <Link to={datasetHref(d.name)} onClick={(event) => event.stopPropagation()}>
          {d.name}
        </Link>
      ),
    },
    { id: "description", header: "Description", width: "minmax(12rem, 2fr)", render: (d) => <span className="ds-muted">{d.description ?? ""}</span> },
    { id: "items", header: "Items", width: "6rem", align: "end", render: (d) => formatCount(d.itemCount) },
    { id: "runs", header: "Runs", width: "5rem", align: "end", render: (d) => formatCount(d.runCount) },
    {
      id: "last-run",
      header: "Last run",
      width: "9rem",
      render: (d) => (d.lastRunAt ? <span title={formatDateTime(d.lastRunAt, { year: true })}>{formatAgo(d.lastRunAt)}</span> : <span className="ds-muted">–</span>),
    },
    { id: "created", header: "Created", width: "11rem", render: (d) => formatDateTime(d.createdAt) },
  ];
}

export function DatasetList() {
  const { project, api: publicApi } = useProject();
  const api = useMemo(() => datasetsApi(publicApi), [publicApi]);
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number.parseInt(params.get("page") ?? "1", 10) || 1);
  const [creating, setCreating] = useState(false);
  const result = useLoad((signal) => api.list(page, signal), [api, page]);
  const table = useMemo(columns, []);
  const writer = canWrite(project.role);
  const data = result.data;

  return (
    <div className="page ds">
      <header className="page__header">
        <div>
          <p className="page__eyebrow">{project.name}</p>
          <h1>Datasets</h1>
        </div>
        {writer && !creating && (
          <Button variant="primary" onClick={() => setCreating(true)}>
            New dataset
          </Button>
        )}
      </header>
      <Tabs current="datasets" />
      {creating && (
        <DatasetForm
          api={api}
          taken={(name) => data?.data.some((d) => d.name === name) ?? false}
          onCancel={() => setCreating(false)}
          onSaved={(dataset) => navigate(datasetHref(dataset.name))}
        />
      )}
      <LoadedView result={result} loadingLabel="Loading datasets…">
        {(data) => (
          <>
            <div className="table-frame" aria-busy={result.loading}>
              <DataTable
                label="Datasets"
                columns={table}
                rows={data.data}
                rowKey={(d) => d.id}
                onRowClick={(d) => navigate(datasetHref(d.name))}
                empty={
                  <EmptyState title="No datasets yet">
                    <p>
                      A dataset holds inputs and expected outputs to run your application on. Create one here, or with the SDKs
                      (<code>langfuse.create_dataset</code>).
                    </p>
                  </EmptyState>
                }
              />
            </div>
            <Pager page={page} totalPages={data.meta.totalPages} onPage={(p) => setParams({ page: String(p) })} />
          </>
        )}
      </LoadedView>
    </div>
  );
}
