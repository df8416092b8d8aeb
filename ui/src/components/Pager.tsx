// The pager under every page-numbered list: Previous, "Page N of M" (with what the list adds, such
// as a total), Next. Hidden when everything fits on one page, unless the list asks to keep it.

import type { ReactNode } from "react";

import { Button } from "./Button";
import { formatCount } from "./format";

interface PagerProps {
  page: number;
  totalPages: number;
  onPage(page: number): void;
  /** The navigation landmark's name (several pagers on one page need distinct ones). */
  label?: string;
  /** Said after "Page N of M", e.g. "(50 per page, 1,204 entries)". */
  detail?: ReactNode;
  previousLabel?: string;
  nextLabel?: string;
  /** Shows the pager on a single page too (a list whose total the person is waiting for). */
  always?: boolean;
}

export function Pager({ page, totalPages, onPage, label = "Pages", detail, previousLabel = "Previous", nextLabel = "Next", always = false }: PagerProps) {
  if (totalPages <= 1 && !always) return null;
  return (
    <nav className="pager" aria-label={label}>
      <Button size="sm" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        {previousLabel}
      </Button>
      <span>
        Page {formatCount(page)} of {formatCount(Math.max(totalPages, 1))}
        {detail ? <> {detail}</> : null}
      </span>
      <Button size="sm" disabled={page >= totalPages} onClick={() => onPage(page + 1)}>
        {nextLabel}
      </Button>
    </nav>
  );
}
