// Which columns the table shows, and in which order: a checkbox per column, with buttons to move
// a shown column left or right. At least one column stays.

import { COLUMN_LABELS } from "./columns";
import { COLUMN_IDS, type ColumnId } from "./state";

interface ColumnChooserProps {
  columns: readonly ColumnId[];
  onChange(columns: ColumnId[]): void;
}

export function ColumnChooser({ columns, onChange }: ColumnChooserProps) {
  const hidden = COLUMN_IDS.filter((id) => !columns.includes(id));
  const move = (id: ColumnId, by: -1 | 1) => {
    const next = [...columns];
    const at = next.indexOf(id);
    const to = at + by;
    if (at < 0 || to < 0 || to >= next.length) return;
    [next[at], next[to]] = [next[to] as ColumnId, id];
    onChange(next);
  };
  return (
    <details className="popover">
      <summary className="button button--secondary button--sm">Columns</summary>
      <div className="popover__body column-chooser" role="group" aria-labelledby="column-chooser-title">
        <h2 id="column-chooser-title" className="saved-views__title">
          Shown columns, in order
        </h2>
        {[...columns, ...hidden].map((id) => {
          const shown = columns.includes(id);
          return (
            <div key={id} className="column-chooser__row">
              <label className="check">
                <input
                  type="checkbox"
                  checked={shown}
                  disabled={shown && columns.length === 1}
                  onChange={(e) => onChange(e.target.checked ? [...columns, id] : columns.filter((c) => c !== id))}
                />
                {COLUMN_LABELS[id]}
              </label>
              {shown && (
                <span className="column-chooser__move">
                  <button type="button" className="icon-button" aria-label={`Move ${COLUMN_LABELS[id]} earlier`} onClick={() => move(id, -1)}>
                    ↑
                  </button>
                  <button type="button" className="icon-button" aria-label={`Move ${COLUMN_LABELS[id]} later`} onClick={() => move(id, 1)}>
                    ↓
                  </button>
                </span>
              )}
            </div>
          );
        })}
        <button type="button" className="button button--ghost button--sm" onClick={() => onChange([...COLUMN_IDS])}>
          Reset columns
        </button>
      </div>
    </details>
  );
}
