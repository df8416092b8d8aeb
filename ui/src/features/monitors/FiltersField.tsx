// A monitor's filters: the Observations view's filter builder over the Metrics columns of the
// monitor's view, or the filter JSON for what the builder cannot express (a stored monitor with
// such a filter opens as JSON; "Use the filter builder" goes back when every filter fits it).

import { useState } from "react";

import { Button } from "../../components/Button";
import { FilterBuilder } from "../observations/FilterBuilder";
import { toApiFilters } from "../observations/filters";
import { FILTERS_MAX, parseFilters, type MonitorForm } from "./form";
import { builderRows, filterColumnsOf } from "./filters";

interface FiltersFieldProps {
  form: MonitorForm;
  set(patch: Partial<MonitorForm>): void;
  problem?: string;
}

export function FiltersField({ form, set, problem }: FiltersFieldProps) {
  const [note, setNote] = useState<string | null>(null);
  const columns = filterColumnsOf(form.view);
  if (form.filtersJson === null) {
    return (
      <div className="field">
        <span className="field__label" id="monitor-filters-label">
          Filters
        </span>
        <div className="filter-panel" role="group" aria-labelledby="monitor-filters-label">
          <FilterBuilder
            columns={columns}
            filters={form.filters}
            onChange={(filters) => set({ filters })}
            max={FILTERS_MAX}
            emptyText={`No filters: all ${form.view === "observations" ? "observations" : "scores"} in the window count.`}
            actions={
              <>
                <span className="shell__spacer" />
                <Button size="sm" variant="ghost" onClick={() => set({ filtersJson: JSON.stringify(toApiFilters(form.filters, columns), null, 2) })}>
                  Edit as JSON
                </Button>
              </>
            }
          />
        </div>
        {problem && <p className="field__error">{problem}</p>}
      </div>
    );
  }
  const toBuilder = () => {
    const parsed = parseFilters(form.filtersJson ?? "");
    const rows = typeof parsed === "string" ? null : builderRows(parsed, form.view);
    if (rows) {
      setNote(null);
      set({ filters: rows, filtersJson: null });
    } else {
      setNote(typeof parsed === "string" ? parsed : "The builder cannot show every one of these filters (a column, type or operator it does not offer): edit them here.");
    }
  };
  return (
    <div className="field">
      <label className="field__label" htmlFor="monitor-filters">
        Filters (JSON)
      </label>
      <textarea
        id="monitor-filters"
        className="field__input monitor-form__filters"
        rows={4}
        maxLength={20_000}
        value={form.filtersJson}
        aria-invalid={problem ? true : undefined}
        onChange={(e) => set({ filtersJson: e.target.value })}
      />
      <p className="field__hint">
        As the metrics API takes them, e.g. <code>{'[{"column":"level","operator":"=","value":"ERROR","type":"string"}]'}</code>
      </p>
      {problem && <p className="field__error">{problem}</p>}
      {note && (
        <p className="muted" role="status">
          {note}
        </p>
      )}
      <div>
        <Button size="sm" variant="ghost" onClick={toBuilder}>
          Use the filter builder
        </Button>
      </div>
    </div>
  );
}
