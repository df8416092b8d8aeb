// A cursor-paged list as a table: the first page (its spinner and error), the empty list's words,
// the rows, and "Show more" while the server has another page. The overview's two lists and a
// rule's executions are this one list.

import type { ReactNode } from "react";

import { Button } from "../../components/Button";
import { LoadedView } from "../../components/LoadedView";
import { ListTable } from "../settings/ListTable";
import type { useCursorList } from "./useCursorList";

interface CursorListProps<T> {
  list: ReturnType<typeof useCursorList<T>>;
  /** The table's accessible name; "Show more" names it in lower case. */
  label: string;
  columns: readonly string[];
  loadingLabel: string;
  /** What shows instead of an empty table. */
  empty: ReactNode;
  /** One `<tr>` per item. */
  row(item: T): ReactNode;
}

export function CursorList<T>({ list, label, columns, loadingLabel, empty, row }: CursorListProps<T>) {
  return (
    <LoadedView result={list.result} loadingLabel={loadingLabel}>
      {(items) =>
        items.length === 0 ? (
          empty
        ) : (
          <>
            <ListTable label={label} columns={columns} scroll>
              {items.map(row)}
            </ListTable>
            {list.more && <Button onClick={list.loadMore}>Show more {label.toLowerCase()}</Button>}
          </>
        )
      }
    </LoadedView>
  );
}
