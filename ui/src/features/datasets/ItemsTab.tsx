// A dataset's active items, one server page at a time in a virtualized table: input, expected
// output, metadata, status and the trace an item came from. Clicking a row edits it beside the
// table (MEMBER and above; a VIEWER sees the values read-only in the same place).

import { useMemo, useState } from "react";
import { Link, useSearchParams } from "react-router";

import { useProject } from "../../app/project";
import { dataModel } from "../../api/sessions";
import { useMe } from "../../app/session";
import { Button } from "../../components/Button";
import { DataTable, type Column } from "../../components/DataTable";
import { JsonViewer } from "../../components/JsonViewer";
import { Pager } from "../../components/Pager";
import { EmptyState, ErrorState, Loading } from "../../components/States";
import { formatCount, formatDateTime } from "../../components/format";
import { useLoad } from "../../components/useLoad";
import { traceHref } from "./access";
import type { Dataset, DatasetItem, DatasetsApi } from "./api";
import { preview } from "./form";
import { ItemForm } from "./ItemForm";

function columns(traceLink: (traceId: string) => string): Column<DatasetItem>[] {
  const value = (v: unknown) => <span className="mono ds-cell" title={preview(v, 2_000)}>{preview(v)}</span>;
  return [
    { id: "id", header: "Item", width: "minmax(7rem, 0.8fr)", render: (i) => <span className="mono">{i.id}</span> },
    { id: "input", header: "Input", width: "minmax(12rem, 2fr)", render: (i) => value(i.input) },
    { id: "expected", header: "Expected output", width: "minmax(10rem, 1.6fr)", render: (i) => value(i.expectedOutput) },
    { id: "metadata", header: "Metadata", width: "minmax(8rem, 1fr)", render: (i) => value(i.metadata) },
    { id: "status", header: "Status", width: "6rem", render: (i) => <span className="ds-badge">{i.status}</span> },
    {
      id: "source",
      header: "Source trace",
      width: "8rem",
      render: (i) =>
        i.sourceTraceId ? (
          <Link className="mono" to={traceLink(i.sourceTraceId)} onClick={(e) => e.stopPropagation()}>
            {i.sourceTraceId.slice(0, 10)}
          </Link>
        ) : (
          <span className="ds-muted">–</span>
        ),
    },
    { id: "created", header: "Created", width: "10rem", render: (i) => formatDateTime(i.createdAt) },
  ];
}

interface ItemsTabProps {
  api: DatasetsApi;
  dataset: Dataset;
  writer: boolean;
}

export function ItemsTab({ api, dataset, writer }: ItemsTabProps) {
  const { project } = useProject();
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number.parseInt(params.get("page") ?? "1", 10) || 1);
  const [editing, setEditing] = useState<DatasetItem | "new" | null>(null);
  const result = useLoad((signal) => api.items(dataset.name, page, signal), [api, dataset.name, page]);
  const model = dataModel(useMe());
  const table = useMemo(() => columns((traceId) => traceHref(project.id, traceId, model)), [project.id, model]);
  const data = result.data;
  const setPage = (p: number) =>
    setParams((current) => {
      const next = new URLSearchParams(current);
      next.set("page", String(p));
      return next;
    });
  const saved = () => {
    setEditing(null);
    result.reload();
  };

  return (
    <div className="ds-items">
      <div className="ds-toolbar">
        {data && (
          <span className="ds-muted" aria-live="polite">
            {formatCount(data.meta.totalItems)} active {data.meta.totalItems === 1 ? "item" : "items"}
          </span>
        )}
        <span className="ds-spacer" />
        {writer && editing === null && (
          <Button variant="primary" onClick={() => setEditing("new")}>
            New item
          </Button>
        )}
      </div>
      <div className="ds-split">
        <div className="table-frame" aria-busy={result.loading}>
          {result.error && !data ? (
            <ErrorState error={result.error} onRetry={result.reload} />
          ) : !data ? (
            <Loading label="Loading items…" />
          ) : (
            <DataTable
              label="Items"
              columns={table}
              rows={data.data}
              rowKey={(i) => i.id}
              selectedKey={editing && editing !== "new" ? editing.id : null}
              onRowClick={(i) => setEditing(i)}
              empty={
                <EmptyState title="No items yet">
                  <p>Add items here, or from the SDKs (<code>create_dataset_item</code>).</p>
                </EmptyState>
              }
            />
          )}
        </div>
        {editing !== null &&
          (writer ? (
            <ItemForm
              key={editing === "new" ? "new" : `${editing.id}-${editing.updatedAt}`}
              api={api}
              datasetName={dataset.name}
              {...(editing === "new" ? {} : { item: editing })}
              onSaved={saved}
              onClose={() => setEditing(null)}
            />
          ) : (
            editing !== "new" && (
              <section className="card ds-form" aria-label={`Item ${editing.id}`}>
                <header className="ds-form__header">
                  <h2 className="mono">Item {editing.id}</h2>
                  <Button variant="ghost" size="sm" onClick={() => setEditing(null)} aria-label="Close">
                    ✕
                  </Button>
                </header>
                <JsonViewer label="Input" value={editing.input} />
                <JsonViewer label="Expected output" value={editing.expectedOutput} />
                <JsonViewer label="Metadata" value={editing.metadata} />
              </section>
            )
          ))}
      </div>
      {data && <Pager page={page} totalPages={data.meta.totalPages} onPage={setPage} />}
    </div>
  );
}
