// The filter builder's rows: one per filter (column, operator, key for metadata or the score name,
// value) over a list of columns, and "+ Add filter". The Observations view's panel applies the rows
// together; a widget's or a monitor's form keeps them as its filters (over the Metrics columns of
// its view), an evaluation rule's as its filter (over the columns the rules API takes).

import { useId, type ReactNode } from "react";

import { Button } from "../../components/Button";
import { VALUELESS, blankFilter, filterColumn, operatorsOf, type FilterColumn, type ViewFilter } from "./filters";
import "./FilterBuilder.css";

interface FilterBuilderProps {
  columns: readonly FilterColumn[];
  filters: readonly ViewFilter[];
  onChange(filters: ViewFilter[]): void;
  /** The most rows the server takes. */
  max: number;
  /** What no row means. */
  emptyText: string;
  /** Suggested score names for a `score` column. */
  scoreNames?: readonly string[];
  /** Buttons after "+ Add filter" (the panel's Clear all and Apply). */
  actions?: ReactNode;
}

export function FilterBuilder({ columns, filters, onChange, max, emptyText, scoreNames = [], actions }: FilterBuilderProps) {
  const scoreList = useId();
  const first = columns[0]?.id ?? "name";
  return (
    <>
      {filters.length === 0 && <p className="muted">{emptyText}</p>}
      {scoreNames.length > 0 && (
        <datalist id={scoreList}>
          {scoreNames.map((name) => (
            <option key={name} value={name} />
          ))}
        </datalist>
      )}
      {filters.map((filter, index) => (
        <FilterRow
          key={index}
          index={index}
          filter={filter}
          columns={columns}
          scoreList={scoreList}
          onChange={(next) => onChange(filters.map((f, i) => (i === index ? next : f)))}
          onRemove={() => onChange(filters.filter((_, i) => i !== index))}
        />
      ))}
      <div className="filter-panel__actions">
        <Button size="sm" variant="ghost" disabled={filters.length >= max} onClick={() => onChange([...filters, blankFilter(first, columns)])}>
          + Add filter
        </Button>
        {actions}
      </div>
    </>
  );
}

const PLACEHOLDERS: Partial<Record<FilterColumn["kind"], string>> = {
  number: "number",
  score: "number, or a label with =",
  tags: "tag, another tag",
  list: "value, another value",
};

interface FilterRowProps {
  index: number;
  filter: ViewFilter;
  columns: readonly FilterColumn[];
  /** The id of the datalist of score names. */
  scoreList: string;
  onChange(filter: ViewFilter): void;
  onRemove(): void;
}

function FilterRow({ index, filter, columns, scoreList, onChange, onRemove }: FilterRowProps) {
  const column = filterColumn(filter.column, columns) ?? columns[0];
  const n = index + 1;
  const text = typeof filter.value === "string" ? filter.value : "";
  const chosen = Array.isArray(filter.value) ? filter.value : [];
  return (
    <div className="filter-row" role="group" aria-label={`Filter ${n}`}>
      <select
        aria-label={`Filter ${n} column`}
        className="field__input"
        value={filter.column}
        onChange={(e) => onChange(blankFilter(e.target.value, columns))}
      >
        {columns.map((c) => (
          <option key={c.id} value={c.id}>
            {c.label}
          </option>
        ))}
      </select>
      {column && column.kind === "metadata" && (
        <input
          aria-label={`Filter ${n} metadata key`}
          className="field__input"
          placeholder="key"
          value={filter.key ?? ""}
          onChange={(e) => onChange({ ...filter, key: e.target.value })}
        />
      )}
      {column?.kind === "score" && (
        <input
          aria-label={`Filter ${n} score name`}
          className="field__input"
          placeholder="score name"
          list={scoreList}
          value={filter.key ?? ""}
          onChange={(e) => onChange({ ...filter, key: e.target.value })}
        />
      )}
      <select
        aria-label={`Filter ${n} operator`}
        className="field__input"
        value={filter.operator}
        onChange={(e) => onChange({ ...filter, operator: e.target.value })}
      >
        {(column ? operatorsOf(column) : []).map((op) => (
          <option key={op} value={op}>
            {op}
          </option>
        ))}
      </select>
      {column?.kind === "null" || VALUELESS.includes(filter.operator) ? null : column?.kind === "options" ? (
        <fieldset className="filter-row__options" aria-label={`Filter ${n} values`}>
          {column.options?.map((option) => (
            <label key={option} className="check">
              <input
                type="checkbox"
                checked={chosen.includes(option)}
                onChange={(e) =>
                  onChange({
                    ...filter,
                    value: e.target.checked ? [...chosen, option] : chosen.filter((v) => v !== option),
                  })
                }
              />
              {option}
            </label>
          ))}
        </fieldset>
      ) : column?.kind === "bool" ? (
        <select
          aria-label={`Filter ${n} value`}
          className="field__input"
          value={text || "true"}
          onChange={(e) => onChange({ ...filter, value: e.target.value })}
        >
          <option value="true">yes</option>
          <option value="false">no</option>
        </select>
      ) : (
        <input
          aria-label={`Filter ${n} value`}
          className="field__input"
          inputMode={column?.kind === "number" ? "decimal" : undefined}
          placeholder={PLACEHOLDERS[column?.kind ?? "text"] ?? "value"}
          value={text}
          onChange={(e) => onChange({ ...filter, value: e.target.value })}
        />
      )}
      <button type="button" className="icon-button" aria-label={`Remove filter ${n}`} onClick={onRemove}>
        ×
      </button>
    </div>
  );
}
