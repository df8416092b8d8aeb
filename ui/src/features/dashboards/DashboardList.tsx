// The project's custom dashboards, most recently updated first, and a form to make one (MEMBER+).

import { useMemo, useState, type FormEvent } from "react";
import { Link, useNavigate } from "react-router";

import { useProject } from "../../app/project";
import { projectPath } from "../../app/routes";
import { Button } from "../../components/Button";
import { EmptyState, ErrorState, InlineError, Loading } from "../../components/States";
import { describeError } from "../../api/client";
import { useLoad } from "../../components/useLoad";
import { dashboardsApi } from "./api";

export function DashboardList() {
  const { project, api } = useProject();
  const calls = useMemo(() => dashboardsApi(api), [api]);
  const canWrite = project.role !== "VIEWER" && project.role !== "NONE";
  const list = useLoad((signal) => calls.list(signal), [calls]);
  const navigate = useNavigate();
  const [name, setName] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);

  const create = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const made = await calls.create(name.trim(), "");
      void navigate(projectPath(project.id, `dashboards/${encodeURIComponent(made.id)}`));
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="page">
      <div className="page__header">
        <div>
          <div className="page__eyebrow">{project.name}</div>
          <h1>Dashboards</h1>
        </div>
        {canWrite && (
          <form className="dashboards__create" onSubmit={(e) => void create(e)}>
            <input
              className="field__input"
              aria-label="New dashboard name"
              placeholder="New dashboard name"
              maxLength={200}
              value={name}
              onChange={(e) => setName(e.target.value)}
            />
            <Button type="submit" variant="primary" busy={busy} disabled={!name.trim()}>
              Create dashboard
            </Button>
          </form>
        )}
      </div>
      {error !== undefined && <InlineError>{describeError(error)}</InlineError>}
      {list.error !== undefined && !list.data ? (
        <ErrorState error={list.error} onRetry={list.reload} />
      ) : !list.data ? (
        <Loading />
      ) : list.data.data.length === 0 ? (
        <EmptyState title="No dashboards yet">
          <p>A dashboard is a grid of widgets, each a Metrics query. {canWrite ? "Name one above to start." : "Members of the project can create them."}</p>
        </EmptyState>
      ) : (
        <ul className="dashboards__list">
          {list.data.data.map((d) => (
            <li key={d.id} className="dashboards__item">
              <Link to={projectPath(project.id, `dashboards/${encodeURIComponent(d.id)}`)}>{d.name}</Link>
              <span className="dashboards__meta">
                {d.definition.widgets.length} widget{d.definition.widgets.length === 1 ? "" : "s"} · updated {new Date(d.updatedAt).toLocaleString()}
              </span>
              {d.description && <span className="dashboards__meta">{d.description}</span>}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
