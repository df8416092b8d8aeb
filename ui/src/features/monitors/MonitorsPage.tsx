// Monitors at /project/{projectId}/monitors (docs/monitors.md): the project's threshold alerts with
// their state, a form to create one, and the selected monitor's page (`?monitor=<id>`). MEMBER and
// above create and change monitors; a VIEWER sees them without the buttons (the server refuses a
// VIEWER's changes with 403 anyway).

import { useMemo, useState } from "react";
import { useSearchParams } from "react-router";

import { useProject } from "../../app/project";
import { Button } from "../../components/Button";
import { DataTable, type Column } from "../../components/DataTable";
import { formatAgo } from "../../components/format";
import { LoadedView } from "../../components/LoadedView";
import { Pager } from "../../components/Pager";
import { EmptyState } from "../../components/States";
import { useLoad } from "../../components/useLoad";
import { canWrite } from "../settings/forms";
import { monitorsApi, type Monitor } from "./api";
import { describeRule, EMPTY_FORM } from "./form";
import { MonitorDetail } from "./MonitorDetail";
import { MonitorForm } from "./MonitorForm";
import { SecretDialog, StateBadge } from "./parts";
import "../settings/settings.css";
import "./monitors.css";

export default function MonitorsPage() {
  const { project, api } = useProject();
  const client = useMemo(() => monitorsApi(api), [api]);
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number(params.get("page")) || 1);
  const selected = params.get("monitor");
  const writer = canWrite(project.role);
  const [creating, setCreating] = useState(false);
  const [secrets, setSecrets] = useState<string[]>([]);
  const result = useLoad((signal) => client.list(page, signal), [client, page]);

  const open = (id: string | null) => {
    const next = new URLSearchParams(params);
    if (id) next.set("monitor", id);
    else next.delete("monitor");
    setParams(next);
  };

  const columns: Column<Monitor>[] = [
    { id: "name", header: "Name", width: "minmax(10rem, 2fr)", render: (m) => m.name },
    { id: "state", header: "State", width: "9rem", render: (m) => <StateBadge state={m.state} muted={m.muted} /> },
    { id: "rule", header: "Rule", width: "minmax(14rem, 3fr)", render: (m) => describeRule(m) },
    { id: "value", header: "Last value", width: "7rem", align: "end", render: (m) => (m.lastValue === null ? "—" : String(m.lastValue)) },
    { id: "evaluated", header: "Evaluated", width: "8rem", render: (m) => (m.lastEvaluatedAt ? formatAgo(m.lastEvaluatedAt) : "not yet") },
    { id: "channels", header: "Channels", width: "6rem", align: "end", render: (m) => String(m.channels.length) },
  ];

  const secretDialog = secrets.length > 0 && <SecretDialog secrets={secrets} onDone={() => setSecrets([])} />;
  if (selected)
    return (
      <>
        <MonitorDetail
          client={client}
          id={selected}
          canWrite={writer}
          onBack={() => open(null)}
          onDeleted={() => {
            open(null);
            result.reload();
          }}
        />
        {secretDialog}
      </>
    );

  return (
    <div className="page monitors-page">
      <header className="page__header">
        <div>
          <p className="page__eyebrow">{project.name}</p>
          <h1>Monitors</h1>
          <p className="muted">Threshold alerts on this project's metrics, evaluated by the worker, notifying webhooks, Slack and GitHub.</p>
        </div>
        {writer && !creating && (
          <Button variant="primary" onClick={() => setCreating(true)}>
            New monitor
          </Button>
        )}
      </header>
      {secretDialog}
      {creating && (
        <MonitorForm
          initial={EMPTY_FORM}
          onSave={(request) => client.create(request)}
          onSaved={(monitor, made) => {
            setCreating(false);
            setSecrets(made);
            result.reload();
            open(monitor.id);
          }}
          onCancel={() => setCreating(false)}
        />
      )}
      <LoadedView result={result} loadingLabel="Loading monitors…">
        {(data) => (
          <>
            <div className="table-frame" aria-busy={result.loading}>
              <DataTable
                label="Monitors"
                columns={columns}
                rows={data.data}
                rowKey={(m) => m.id}
                onRowClick={(m) => open(m.id)}
                empty={
                  <EmptyState title="No monitors yet">
                    <p>
                      A monitor runs a metrics query every interval — say, the count of observations at level ERROR over the last 5 minutes — and
                      notifies its channels when the value crosses the threshold, and again when it is back.
                    </p>
                  </EmptyState>
                }
              />
            </div>
            <Pager page={page} totalPages={data.meta.totalPages} onPage={(p) => setParams({ page: String(p) })} />
          </>
        )}
      </LoadedView>
    </div>
  );
}
