// The query builder of a widget: name, view, metrics (measure and aggregation), a dimension,
// filters (the filter builder over the view's columns, JSON for what it cannot express, as a
// monitor's) and chart type. The server checks the query with the metrics
// parser on save; its 400 is shown here, next to the form.

import { useState, type FormEvent } from "react";

import { describeError } from "../../api/client";
import { Button } from "../../components/Button";
import { InlineError } from "../../components/States";
import type { Widget, WidgetSpec } from "./api";
import { filtersState, rowsForView, stateFilters, type FiltersState } from "./filters";
import { FiltersField } from "./FiltersField";
import { AGGREGATIONS, CHART_TYPES, DIMENSIONS, MEASURES, VIEWS } from "./query";

interface WidgetEditorProps {
  initial: Widget | null;
  onSave(spec: WidgetSpec): Promise<void>;
  onCancel(): void;
}

const MAX_METRICS = 10;
/** The server's bound (resources::dashboards). */
export const MAX_FILTERS = 50;

export function WidgetEditor({ initial, onSave, onCancel }: WidgetEditorProps) {
  const [name, setName] = useState(initial?.name ?? "");
  const [view, setView] = useState(initial?.view ?? "observations");
  const [metrics, setMetrics] = useState(initial?.metrics ?? [{ measure: "count", agg: "count" }]);
  const [dimension, setDimension] = useState(initial?.dimensions[0]?.field ?? "");
  const [filters, setFilters] = useState<FiltersState>(() => filtersState(initial?.filters ?? [], initial?.view ?? "observations"));
  const [chartType, setChartType] = useState(initial?.chartType ?? "LINE_TIME_SERIES");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const measures = MEASURES[view] ?? ["count"];

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const parsed = stateFilters(filters, view, MAX_FILTERS);
    if (typeof parsed === "string") {
      setError(parsed);
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await onSave({
        name: name.trim(),
        description: initial?.description ?? "",
        view,
        metrics,
        dimensions: dimension ? [{ field: dimension }] : [],
        filters: parsed,
        chartType,
        // A changed chart type starts from its plain config.
        ...(initial && initial.chartType === chartType ? { chartConfig: initial.chartConfig } : {}),
      });
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="widget-editor" aria-label={initial ? `Edit ${initial.name}` : "New widget"} onSubmit={(e) => void submit(e)}>
      <div className="widget-editor__row">
        <label className="field">
          <span className="field__label">Name</span>
          <input className="field__input" aria-label="Widget name" required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <label className="field">
          <span className="field__label">View</span>
          <select
            className="field__input"
            aria-label="View"
            value={view}
            onChange={(e) => {
              const next = e.target.value;
              setView(next);
              setFilters((f) => ({ ...f, filters: rowsForView(f.filters, view, next) }));
              const allowed = MEASURES[next] ?? [];
              setMetrics((ms) => ms.map((m) => (allowed.includes(m.measure) ? m : { ...m, measure: "count" })));
              if (!(DIMENSIONS[next] ?? []).includes(dimension)) setDimension("");
            }}
          >
            {VIEWS.map((v) => (
              <option key={v}>{v}</option>
            ))}
          </select>
        </label>
        <label className="field">
          <span className="field__label">Chart</span>
          <select className="field__input" aria-label="Chart type" value={chartType} onChange={(e) => setChartType(e.target.value)}>
            {CHART_TYPES.map((c) => (
              <option key={c}>{c}</option>
            ))}
          </select>
        </label>
        <label className="field">
          <span className="field__label">Dimension</span>
          <select className="field__input" aria-label="Dimension" value={dimension} onChange={(e) => setDimension(e.target.value)}>
            <option value="">(none)</option>
            {(DIMENSIONS[view] ?? []).map((d) => (
              <option key={d}>{d}</option>
            ))}
          </select>
        </label>
      </div>
      <fieldset className="widget-editor__metrics">
        <legend>Metrics</legend>
        {metrics.map((m, i) => (
          <div key={i} className="widget-editor__row">
            <select
              className="field__input"
              aria-label={`Measure ${i + 1}`}
              value={m.measure}
              onChange={(e) => setMetrics(metrics.map((x, j) => (j === i ? { ...x, measure: e.target.value } : x)))}
            >
              {measures.map((v) => (
                <option key={v}>{v}</option>
              ))}
            </select>
            <select
              className="field__input"
              aria-label={`Aggregation ${i + 1}`}
              value={m.agg}
              onChange={(e) => setMetrics(metrics.map((x, j) => (j === i ? { ...x, agg: e.target.value } : x)))}
            >
              {AGGREGATIONS.map((a) => (
                <option key={a}>{a}</option>
              ))}
            </select>
            {metrics.length > 1 && (
              <Button size="sm" variant="ghost" onClick={() => setMetrics(metrics.filter((_, j) => j !== i))}>
                Remove
              </Button>
            )}
          </div>
        ))}
        {metrics.length < MAX_METRICS && (
          <Button size="sm" onClick={() => setMetrics([...metrics, { measure: "count", agg: "count" }])}>
            Add metric
          </Button>
        )}
      </fieldset>
      <FiltersField
        view={view}
        {...filters}
        set={(patch) => setFilters((f) => ({ ...f, ...patch }))}
        max={MAX_FILTERS}
        emptyText={`No filters: all ${view === "observations" ? "observations" : "scores"} in the dashboard's time range count.`}
      />
      {error && <InlineError>{error}</InlineError>}
      <div className="widget-editor__row">
        <Button type="submit" variant="primary" busy={busy}>
          {initial ? "Save widget" : "Add to dashboard"}
        </Button>
        <Button onClick={onCancel}>Cancel</Button>
      </div>
    </form>
  );
}
