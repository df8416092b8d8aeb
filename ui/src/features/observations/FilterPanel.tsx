// The filter builder: one row per filter (column, operator, key for metadata or the score name,
// value), edited as a draft and applied together, so typing never reloads the table at every key.

import { useEffect, useId, useState, type FormEvent } from "react";

import { traceApi } from "../../api/trace";
import { Button } from "../../components/Button";
import { FILTER_COLUMNS, OPERATORS, blankFilter, filterColumn, toApiFilter, type ViewFilter } from "./filters";
import { MAX_FILTERS } from "./state";

interface FilterPanelProps {
  /** Whose score configs suggest score names. */
  projectId: string;
  filters: readonly ViewFilter[];
  onApply(filters: ViewFilter[]): void;
  onClose(): void;
}

export function FilterPanel({ projectId, filters, onApply, onClose }: FilterPanelProps) {
  const [draft, setDraft] = useState<ViewFilter[]>(() => (filters.length ? [...filters] : [blankFilter("name")]));
  const scoreNames = useScoreNames(projectId);
  const scoreList = useId();
  const change = (index: number, next: ViewFilter) => setDraft((d) => d.map((f, i) => (i === index ? next : f)));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply(draft.filter((f) => toApiFilter(f) !== null));
  };

  return (
    <form className="filter-panel" aria-label="Filters" onSubmit={submit} onKeyDown={(e) => e.key === "Escape" && onClose()}>
      {draft.length === 0 && <p className="muted">No filters: every observation in the time range is shown.</p>}
      <datalist id={scoreList}>
        {scoreNames.map((name) => (
          <option key={name} value={name} />
        ))}
      </datalist>
      {draft.map((filter, index) => (
        <FilterRow
          key={index}
          index={index}
          filter={filter}
          scoreList={scoreList}
          onChange={(next) => change(index, next)}
          onRemove={() => setDraft((d) => d.filter((_, i) => i !== index))}
        />
      ))}
      <div className="filter-panel__actions">
        <Button
          size="sm"
          variant="ghost"
          disabled={draft.length >= MAX_FILTERS}
          onClick={() => setDraft((d) => [...d, blankFilter("name")])}
        >
          + Add filter
        </Button>
        <span className="shell__spacer" />
        <Button size="sm" variant="ghost" onClick={() => onApply([])}>
          Clear all
        </Button>
        <Button size="sm" variant="primary" type="submit">
          Apply filters
        </Button>
      </div>
    </form>
  );
}

/** The names of the project's (unarchived) score configs, for suggestions; none when they cannot be
 * read — the name field takes any text, as scores need no config. */
function useScoreNames(projectId: string): string[] {
  const [names, setNames] = useState<string[]>([]);
  useEffect(() => {
    let live = true;
    traceApi(projectId)
      .scoreConfigs()
      .then(
        (page) => live && setNames([...new Set(page.data.filter((c) => !c.isArchived).map((c) => c.name))].sort()),
        () => live && setNames([]),
      );
    return () => {
      live = false;
    };
  }, [projectId]);
  return names;
}

interface FilterRowProps {
  index: number;
  filter: ViewFilter;
  /** The id of the datalist of score names. */
  scoreList: string;
  onChange(filter: ViewFilter): void;
  onRemove(): void;
}

function FilterRow({ index, filter, scoreList, onChange, onRemove }: FilterRowProps) {
  const column = filterColumn(filter.column) ?? FILTER_COLUMNS[0];
  const n = index + 1;
  const text = typeof filter.value === "string" ? filter.value : "";
  const chosen = Array.isArray(filter.value) ? filter.value : [];
  return (
    <div className="filter-row" role="group" aria-label={`Filter ${n}`}>
      <select
        aria-label={`Filter ${n} column`}
        className="field__input"
        value={filter.column}
        onChange={(e) => onChange(blankFilter(e.target.value))}
      >
        {FILTER_COLUMNS.map((c) => (
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
        {OPERATORS[column?.kind ?? "text"].map((op) => (
          <option key={op} value={op}>
            {op}
          </option>
        ))}
      </select>
      {column?.kind === "options" ? (
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
          placeholder={column?.kind === "number" ? "number" : column?.kind === "score" ? "number, or a label with =" : "value"}
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
