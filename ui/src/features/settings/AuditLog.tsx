// The organization's audit log, newest first, a page at a time (owners only; the server says 403
// to anyone else).

import { useState } from "react";

import { ErrorState, Loading } from "../../components/States";
import { Pager } from "../../components/Pager";
import { formatDateTime } from "../../components/format";
import { useLoad } from "../../components/useLoad";
import { AUDIT_PAGE_SIZE, settings, type AuditEntry } from "./api";
import { ListTable } from "./ListTable";

/** What changed, in a few words, from the entry's details. */
export function describeDetails(entry: AuditEntry): string {
  const details = entry.details ?? {};
  const parts = Object.entries(details)
    .filter(([, value]) => value !== null && value !== undefined && typeof value !== "object")
    .map(([key, value]) => `${key}: ${String(value)}`);
  return parts.join(", ");
}

export function AuditLog({ orgId }: { orgId: string }) {
  const [page, setPage] = useState(1);
  const loaded = useLoad((signal) => settings.auditLog(orgId, page, signal), [orgId, page]);
  if (loaded.error !== undefined && !loaded.data) return <ErrorState error={loaded.error} onRetry={loaded.reload} />;
  if (!loaded.data) return <Loading label="Loading the audit log…" />;
  const { data, meta } = loaded.data;
  return (
    <div className="settings-block">
      <ListTable
        label="Audit log"
        columns={["When", "Action", "Target", "By", "Details"]}
        empty={data.length === 0 && "Nothing recorded yet."}
        scroll
      >
        {data.map((entry) => (
          <tr key={entry.id}>
            <td>{formatDateTime(entry.createdAt, { year: true })}</td>
            <td>
              <code>{entry.action}</code>
            </td>
            <td>
              {entry.targetType} <code>{entry.targetId}</code>
            </td>
            <td>
              {entry.actorType.toLowerCase().replace(/_/g, " ")} <code>{entry.actorId}</code>
            </td>
            <td>{describeDetails(entry)}</td>
          </tr>
        ))}
      </ListTable>
      <Pager
        page={meta.page}
        totalPages={meta.totalPages}
        onPage={setPage}
        label="Audit log pages"
        previousLabel="Newer"
        nextLabel="Older"
        detail={`(${AUDIT_PAGE_SIZE} per page, ${meta.totalItems} entries)`}
        always
      />
    </div>
  );
}
