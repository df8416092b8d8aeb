// The filters of a Metrics v2 query (a widget's, a monitor's): the Observations view's filter
// builder over the columns of the query's view, or the filter JSON for what the builder cannot
// express (stored filters with such a condition open as JSON; "Use the filter builder" goes back
// when every filter fits it).

import { useId, useState } from "react";

import { Button } from "../../components/Button";
import { FilterBuilder } from "../observations/FilterBuilder";
import { toApiFilters } from "../observations/filters";
import { builderRows, filterColumnsOf, parseFilters, type FiltersState } from "./filters";
import "./FiltersField.css";

interface FiltersFieldProps extends FiltersState {
  view: string;
  set(patch: Partial<FiltersState>): void;
  /** The most filters the server takes. */
  max: number;
  /** What no filter means. */
  emptyText: string;
  problem?: string | undefined;
}

export function FiltersField({ view, filters, filtersJson, set, max, emptyText, problem }: FiltersFieldProps) {
  const [note, setNote] = useState<string | null>(null);
  const id = useId();
  const columns = filterColumnsOf(view);
  if (filtersJson === null) {
    return (
      <div className="field">
        <span className="field__label" id={`${id}-label`}>
          Filters
        </span>
        <div className="filter-panel" role="group" aria-labelledby={`${id}-label`}>
          <FilterBuilder
            columns={columns}
            filters={filters}
            onChange={(next) => set({ filters: next })}
            max={max}
            emptyText={emptyText}
            actions={
              <>
                <span className="shell__spacer" />
                <Button size="sm" variant="ghost" onClick={() => set({ filtersJson: JSON.stringify(toApiFilters(filters, columns), null, 2) })}>
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
    const parsed = parseFilters(filtersJson);
    const rows = typeof parsed === "string" ? null : builderRows(parsed, view);
    if (rows) {
      setNote(null);
      set({ filters: rows, filtersJson: null });
    } else {
      setNote(typeof parsed === "string" ? parsed : "The builder cannot show every one of these filters (a column, type or operator it does not offer): edit them here.");
    }
  };
  return (
    <div className="field">
      <label className="field__label" htmlFor={`${id}-json`}>
        Filters (JSON)
      </label>
      <textarea
        id={`${id}-json`}
        className="field__input filters-json"
        rows={4}
        maxLength={20_000}
        value={filtersJson}
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
