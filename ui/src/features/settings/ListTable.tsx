// The tables of the settings pages (and of the evaluators pages, which look the same): a labelled
// table under a row of column headings, an "Actions" column named for screen readers only when the
// rows carry buttons, the empty list's line inside the table, and a frame that scrolls when the
// list is long. The rows stay the caller's, since every list shows its cells its own way.

import type { ReactNode } from "react";

interface ListTableProps {
  /** The table's accessible name, which the browser specs find it by. */
  label: string;
  columns: readonly string[];
  /** A last, visually unnamed column for the rows' buttons. */
  actions?: boolean;
  /** Shown in one row across the table when it is given (the caller knows when the list is empty). */
  empty?: ReactNode;
  /** A frame of bounded height that scrolls, for lists that can grow long. */
  scroll?: boolean;
  children: ReactNode;
}

export function ListTable({ label, columns, actions, empty, scroll, children }: ListTableProps) {
  const table = (
    <table className="people" aria-label={label}>
      <thead>
        <tr>
          {columns.map((column) => (
            <th key={column} scope="col">
              {column}
            </th>
          ))}
          {actions && (
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          )}
        </tr>
      </thead>
      <tbody>
        {empty && (
          <tr>
            <td colSpan={columns.length + (actions ? 1 : 0)} className="muted">
              {empty}
            </td>
          </tr>
        )}
        {children}
      </tbody>
    </table>
  );
  return scroll ? <div className="settings-scroll">{table}</div> : table;
}

