// One dataset's page: its description and schemas, then its items or its runs side by side
// (`?tab=runs`), both kept in the URL.

import { useMemo } from "react";
import { Link, useParams, useSearchParams } from "react-router";

import { isApiError } from "../../api/client";
import { useProject } from "../../app/project";
import { projectPath } from "../../app/routes";
import { EmptyState, ErrorState, Loading } from "../../components/States";
import { useLoad } from "../../components/useLoad";
import { datasetsApi } from "./api";
import { canWrite } from "./access";
import { CompareTab } from "./CompareTab";
import { ItemsTab } from "./ItemsTab";

function Schema({ label, schema }: { label: string; schema: unknown }) {
  if (schema === null || schema === undefined) return null;
  return (
    <details className="ds-schema">
      <summary>{label}</summary>
      <pre className="mono">{JSON.stringify(schema, null, 2)}</pre>
    </details>
  );
}

export function DatasetView() {
  const { datasetName = "" } = useParams();
  const { project, api: publicApi } = useProject();
  const api = useMemo(() => datasetsApi(publicApi), [publicApi]);
  const [params, setParams] = useSearchParams();
  const tab = params.get("tab") === "runs" ? "runs" : "items";
  const result = useLoad((signal) => api.get(datasetName, signal), [api, datasetName]);
  const dataset = result.data;
  const back = <Link to={projectPath(project.id, "datasets")}>Datasets</Link>;

  if (result.error && !dataset) {
    return (
      <div className="page ds">
        {isApiError(result.error, "not-found") ? (
          <EmptyState title="Dataset not found">
            <p>There is no dataset “{datasetName}” in this project. Back to the {back}.</p>
          </EmptyState>
        ) : (
          <ErrorState error={result.error} onRetry={result.reload} />
        )}
      </div>
    );
  }
  if (!dataset) return <Loading label="Loading the dataset…" />;
  const select = (next: "items" | "runs") => setParams(next === "runs" ? { tab: "runs" } : {});
  return (
    <div className="page ds">
      <header className="page__header">
        <div>
          <p className="page__eyebrow">
            {project.name} · {back}
          </p>
          <h1>{dataset.name}</h1>
          {dataset.description && <p className="ds-muted">{dataset.description}</p>}
        </div>
      </header>
      <div className="ds-schemas">
        <Schema label="Input schema" schema={dataset.inputSchema} />
        <Schema label="Expected output schema" schema={dataset.expectedOutputSchema} />
      </div>
      <div className="ds-tabs" role="tablist" aria-label="Dataset">
        {(["items", "runs"] as const).map((id) => (
          <button
            key={id}
            type="button"
            role="tab"
            className="ds-tabs__tab"
            aria-selected={tab === id}
            onClick={() => select(id)}
          >
            {id === "items" ? "Items" : "Runs"}
          </button>
        ))}
      </div>
      <div role="tabpanel" aria-label={tab === "items" ? "Items" : "Runs"} className="ds-panel">
        {tab === "items" ? <ItemsTab api={api} dataset={dataset} writer={canWrite(project.role)} /> : <CompareTab api={api} dataset={dataset} />}
      </div>
    </div>
  );
}
