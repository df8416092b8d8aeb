// A table of any length: only the rows in view are in the DOM (@tanstack/react-virtual), so 100 k
// rows scroll as smoothly as 100. Columns are CSS grid tracks; the header stays in place.

import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useRef, type CSSProperties, type KeyboardEvent, type ReactNode } from "react";

export interface Column<T> {
  id: string;
  header: string;
  /** A CSS grid track: `"12rem"`, `"minmax(8rem, 2fr)"`. Default `minmax(6rem, 1fr)`. */
  width?: string;
  align?: "start" | "end";
  render(row: T): ReactNode;
}

interface DataTableProps<T> {
  /** The table's accessible name. */
  label: string;
  columns: readonly Column<T>[];
  rows: readonly T[];
  rowKey(row: T): string;
  onRowClick?(row: T): void;
  selectedKey?: string | null;
  /** Shown instead of rows when there are none. */
  empty?: ReactNode;
  /** Called when the last rows come into view: load the next page here. */
  onEndReached?(): void;
  rowHeight?: number;
  /** Keeps this row in view (keyboard navigation that moves the selection without focusing). */
  scrollToIndex?: number | undefined;
  /** For tests (jsdom has no layout): the viewport size to assume. */
  initialRect?: { width: number; height: number };
}

export function DataTable<T>({
  label,
  columns,
  rows,
  rowKey,
  onRowClick,
  selectedKey,
  empty,
  onEndReached,
  rowHeight = 36,
  scrollToIndex,
  initialRect,
}: DataTableProps<T>) {
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => rowHeight,
    overscan: 12,
    ...(initialRect ? { initialRect } : {}),
  });
  const items = virtualizer.getVirtualItems();
  const lastIndex = items.at(-1)?.index ?? -1;

  useEffect(() => {
    if (onEndReached && rows.length > 0 && lastIndex >= rows.length - 5) onEndReached();
  }, [lastIndex, rows.length, onEndReached]);

  useEffect(() => {
    if (scrollToIndex !== undefined && scrollToIndex >= 0 && scrollToIndex < rows.length) {
      virtualizer.scrollToIndex(scrollToIndex, { align: "auto" });
    }
  }, [scrollToIndex, rows.length, virtualizer]);

  const template: CSSProperties = {
    gridTemplateColumns: columns.map((c) => c.width ?? "minmax(6rem, 1fr)").join(" "),
  };
  const activate = (row: T) => (event: KeyboardEvent) => {
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      onRowClick?.(row);
    }
  };

  return (
    <div className="table" role="table" aria-label={label} aria-rowcount={rows.length + 1}>
      <div className="table__head" role="rowgroup">
        <div className="table__row table__row--head" role="row" aria-rowindex={1} style={template}>
          {columns.map((column) => (
            <div key={column.id} role="columnheader" className={`table__cell table__cell--${column.align ?? "start"}`}>
              {column.header}
            </div>
          ))}
        </div>
      </div>
      {rows.length === 0 ? (
        <div className="table__empty">{empty ?? "Nothing to show"}</div>
      ) : (
        <div ref={scroller} className="table__body" role="rowgroup">
          <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
            {items.map((item) => {
              const row = rows[item.index] as T;
              const key = rowKey(row);
              const selected = key === selectedKey;
              return (
                <div
                  key={key}
                  role="row"
                  aria-rowindex={item.index + 2}
                  aria-selected={onRowClick ? selected : undefined}
                  tabIndex={onRowClick ? 0 : undefined}
                  className={`table__row${selected ? " table__row--selected" : ""}${onRowClick ? " table__row--clickable" : ""}`}
                  style={{ ...template, height: rowHeight, transform: `translateY(${item.start}px)` }}
                  onClick={onRowClick ? () => onRowClick(row) : undefined}
                  onKeyDown={onRowClick ? activate(row) : undefined}
                >
                  {columns.map((column) => (
                    <div key={column.id} role="cell" className={`table__cell table__cell--${column.align ?? "start"}`}>
                      {column.render(row)}
                    </div>
                  ))}
                </div>
              );
            })}
          </div>
        </div>
      )}
    </div>
  );
}
