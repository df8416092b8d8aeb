// Which columns the table shows, and in which order: a checkbox per column, with buttons to move
// a shown column left or right. At least one column stays.
//
// The shown columns live in the URL, which catches up a render (or more) after a change. Until it
// does, the chooser shows the latest columns asked for: a checkbox bound to the URL alone would
// spring back under the pointer after a click, and a second click must build on the first, not on
// the columns still rendered, or the first change is lost. Columns that arrive from the URL and
// are one of the changes still on their way are those changes catching up; any other columns (a
// saved view, the back button) replace what was asked.

import { useReducer, useRef } from "react";

import { COLUMN_LABELS } from "./columns";
import { COLUMN_IDS, type ColumnId } from "./state";

interface ColumnChooserProps {
  columns: readonly ColumnId[];
  onChange(columns: ColumnId[]): void;
}

/** `columns` with `id` shown (at the end) or hidden; the last shown column stays. */
export function toggleColumn(columns: readonly ColumnId[], id: ColumnId, show: boolean): ColumnId[] {
  if (show) return columns.includes(id) ? [...columns] : [...columns, id];
  const next = columns.filter((c) => c !== id);
  return next.length ? next : [...columns];
}

/** `columns` with `id` swapped with its neighbour `by` places away (unchanged at either end). */
export function moveColumn(columns: readonly ColumnId[], id: ColumnId, by: -1 | 1): ColumnId[] {
  const next = [...columns];
  const at = next.indexOf(id);
  const to = at + by;
  if (at < 0 || to < 0 || to >= next.length) return next;
  [next[at], next[to]] = [next[to] as ColumnId, id];
  return next;
}

const keyOf = (columns: readonly ColumnId[]) => columns.join(",");

export function ColumnChooser({ columns: fromUrl, onChange }: ColumnChooserProps) {
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const rendered = useRef(fromUrl);
  const latest = useRef<readonly ColumnId[]>(fromUrl);
  // The changes sent and not yet seen back from the URL, oldest first.
  const pending = useRef<string[]>([]);
  if (rendered.current !== fromUrl) {
    rendered.current = fromUrl;
    const ours = pending.current.indexOf(keyOf(fromUrl));
    if (ours >= 0) {
      pending.current = pending.current.slice(ours + 1);
    } else {
      pending.current = [];
      latest.current = fromUrl;
    }
  }
  const change = (next: (current: readonly ColumnId[]) => ColumnId[]) => {
    const value = next(latest.current);
    latest.current = value;
    pending.current.push(keyOf(value));
    rerender();
    onChange(value);
  };

  // Once nothing is on its way, `latest` holds what the URL holds.
  const columns = latest.current;
  const hidden = COLUMN_IDS.filter((id) => !columns.includes(id));
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
                  onChange={(e) => {
                    const show = e.target.checked;
                    change((current) => toggleColumn(current, id, show));
                  }}
                />
                {COLUMN_LABELS[id]}
              </label>
              {shown && (
                <span className="column-chooser__move">
                  <button
                    type="button"
                    className="icon-button"
                    aria-label={`Move ${COLUMN_LABELS[id]} earlier`}
                    onClick={() => change((current) => moveColumn(current, id, -1))}
                  >
                    ↑
                  </button>
                  <button
                    type="button"
                    className="icon-button"
                    aria-label={`Move ${COLUMN_LABELS[id]} later`}
                    onClick={() => change((current) => moveColumn(current, id, 1))}
                  >
                    ↓
                  </button>
                </span>
              )}
            </div>
          );
        })}
        <button type="button" className="button button--ghost button--sm" onClick={() => change(() => [...COLUMN_IDS])}>
          Reset columns
        </button>
      </div>
    </details>
  );
}
