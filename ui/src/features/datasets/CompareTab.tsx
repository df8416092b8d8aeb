// Runs of a dataset side by side: pick up to five runs (kept in the URL, `runs=`), see each run's
// averages over all its items at the top, then one row per item of the page with each run's
// output, scores, latency and cost. A run's cell links to its trace (`traceHref`).

import { useMemo } from "react";
import { Link, useSearchParams } from "react-router";

import { useProject } from "../../app/project";
import { dataModel } from "../../api/sessions";
import { useMe } from "../../app/session";
import { DataTable, type Column } from "../../components/DataTable";
import { Pager } from "../../components/Pager";
import { EmptyState, ErrorState, Loading } from "../../components/States";
import { formatCost, formatDateTime, formatDuration } from "../../components/format";
import { useLoad } from "../../components/useLoad";
import { MAX_COMPARED_RUNS, type Dataset, type DatasetRun, type DatasetsApi, type RunCell, type RunSummary } from "./api";
import { traceHref } from "./access";
import { compareRows, formatNumber, pickedRuns, scoreText, togglePick, type CompareRow } from "./compare";
import { preview } from "./form";

function Cell({ cell, run, traceLink }: { cell: RunCell | undefined; run: string; traceLink(traceId: string): string }) {
  if (!cell) return <span className="ds-muted">not run</span>;
  const href = traceLink(cell.traceId);
  return (
    <div className="ds-run-cell">
      <span className="ds-run-cell__output mono" title={preview(cell.output, 2_000)}>
        {preview(cell.output, 160) || <span className="ds-muted">no output</span>}
      </span>
      <span className="ds-run-cell__figures">
        {cell.latency !== null && <span>{formatDuration(cell.latency)}</span>}
        {cell.totalCost !== null && <span>{formatCost(cell.totalCost)}</span>}
        {cell.scores.map((s) => (
          <span key={`${s.name}-${s.stringValue ?? s.value ?? ""}`} className="ds-badge">
            {scoreText(s)}
          </span>
        ))}
        <Link to={href} onClick={(e) => e.stopPropagation()} aria-label={`Trace of ${cell.itemId} in ${run}`}>
          Trace
        </Link>
      </span>
    </div>
  );
}

function Averages({ runs, names }: { runs: RunSummary[]; names: Record<string, string> }) {
  const scoreNames = [...new Set(runs.flatMap((r) => r.avgScores.map((s) => s.name)))].sort();
  return (
    <table className="ds-averages" aria-label="Averages per run">
      <thead>
        <tr>
          <th scope="col">Run</th>
          <th scope="col">Items</th>
          <th scope="col">Avg latency</th>
          <th scope="col">Avg cost</th>
          {scoreNames.map((n) => (
            <th key={n} scope="col">
              {n}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {runs.map((r) => (
          <tr key={r.runId}>
            <th scope="row">{names[r.runId] ?? r.runId}</th>
            <td>{r.itemCount}</td>
            <td>{r.avgLatency === null ? "–" : formatDuration(r.avgLatency)}</td>
            <td>{r.avgTotalCost === null ? "–" : formatCost(r.avgTotalCost)}</td>
            {scoreNames.map((n) => {
              const s = r.avgScores.find((a) => a.name === n);
              return <td key={n}>{s ? formatNumber(s.value) : "–"}</td>;
            })}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function columns(picked: string[], names: Record<string, string>, traceLink: (traceId: string) => string): Column<CompareRow>[] {
  return [
    { id: "item", header: "Item", width: "minmax(6rem, 0.6fr)", render: (r) => <span className="mono">{r.item.id}</span> },
    { id: "input", header: "Input", width: "minmax(10rem, 1.2fr)", render: (r) => <span className="mono ds-cell">{preview(r.item.input)}</span> },
    {
      id: "expected",
      header: "Expected output",
      width: "minmax(8rem, 1fr)",
      render: (r) => <span className="mono ds-cell">{preview(r.item.expectedOutput)}</span>,
    },
    ...picked.map(
      (id): Column<CompareRow> => ({
        id: `run-${id}`,
        header: names[id] ?? id,
        width: "minmax(14rem, 2fr)",
        render: (r) => <Cell cell={r.cells[id]} run={names[id] ?? id} traceLink={traceLink} />,
      }),
    ),
  ];
}

export function CompareTab({ api, dataset }: { api: DatasetsApi; dataset: Dataset }) {
  const { project } = useProject();
  const model = dataModel(useMe());
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number.parseInt(params.get("page") ?? "1", 10) || 1);
  const runs = useLoad((signal) => api.runs(dataset.name, signal), [api, dataset.name]);
  const all: DatasetRun[] = useMemo(() => runs.data?.data ?? [], [runs.data]);
  const names = useMemo(() => Object.fromEntries(all.map((r) => [r.id, r.name])), [all]);
  const picked = pickedRuns(params.get("runs"), all.map((r) => r.id));
  // Until the person picks, the two newest runs are compared.
  const shown = params.has("runs") ? picked : all.slice(0, 2).map((r) => r.id);
  const key = shown.join(",");
  const comparison = useLoad(
    (signal) => (shown.length ? api.compare(dataset.name, shown, page, signal) : Promise.resolve(undefined)),
    [api, dataset.name, key, page],
  );
  const rows = useMemo(() => (comparison.data ? compareRows(comparison.data) : []), [comparison.data]);
  // `key` stands for `shown` (a new array each render).
  const table = useMemo(
    () => columns(shown, names, (traceId) => traceHref(project.id, traceId, model)),
    [key, names, project.id, model],
  );
  const update = (changes: Record<string, string>) =>
    setParams((current) => {
      const next = new URLSearchParams(current);
      for (const [k, v] of Object.entries(changes)) next.set(k, v);
      return next;
    });

  if (runs.error && !runs.data) return <ErrorState error={runs.error} onRetry={runs.reload} />;
  if (!runs.data) return <Loading label="Loading runs…" />;
  if (all.length === 0) {
    return (
      <EmptyState title="No runs yet">
        <p>
          A run is one pass of your application over the dataset's items, recorded with the SDKs (<code>item.run(…)</code> or{" "}
          <code>dataset-run-items</code>). Runs show here side by side.
        </p>
      </EmptyState>
    );
  }
  return (
    <div className="ds-compare">
      <fieldset className="ds-runs">
        <legend>Runs to compare (up to {MAX_COMPARED_RUNS})</legend>
        {all.map((run) => (
          <label key={run.id} className="ds-runs__run">
            <input
              type="checkbox"
              checked={shown.includes(run.id)}
              disabled={!shown.includes(run.id) && shown.length >= MAX_COMPARED_RUNS}
              onChange={() => update({ runs: togglePick(shown, run.id).join(","), page: "1" })}
            />
            {run.name} <span className="ds-muted">{formatDateTime(run.createdAt)}</span>
          </label>
        ))}
      </fieldset>
      {shown.length === 0 ? (
        <p className="ds-muted">Pick one or more runs.</p>
      ) : comparison.error && !comparison.data ? (
        <ErrorState error={comparison.error} onRetry={comparison.reload} />
      ) : !comparison.data ? (
        <Loading label="Loading the runs' results…" />
      ) : (
        <>
          <Averages runs={comparison.data.runs} names={names} />
          <div className="table-frame table-frame--tall" aria-busy={comparison.loading}>
            <DataTable label="Runs side by side" columns={table} rows={rows} rowKey={(r) => r.item.id} rowHeight={84} />
          </div>
          <Pager page={page} totalPages={comparison.data.items.meta.totalPages} onPage={(p) => update({ page: String(p) })} />
        </>
      )}
    </div>
  );
}
