// One custom dashboard: its widgets in their placements on a 12-column grid, over one time range
// (in the URL, as on Home). MEMBER+ add a widget (the query builder), edit one, remove it from the
// dashboard (the widget itself goes too unless another dashboard places it) or delete the dashboard.

import { useMemo, useState } from "react";
import { Link, useNavigate, useParams, useSearchParams } from "react-router";

import { useProject } from "../../app/project";
import { projectPath } from "../../app/routes";
import { describeError, isApiError } from "../../api/client";
import { Button } from "../../components/Button";
import { EmptyState, ErrorState, InlineError, Loading } from "../../components/States";
import { TimeRangePicker } from "../observations/TimeRangePicker";
import { readRange, resolveRange, writeRange } from "../home/range";
import { useLoad } from "../../components/useLoad";
import { dashboardsApi, type Placement, type Widget } from "./api";
import { WidgetEditor } from "./WidgetEditor";
import { WidgetTile } from "./WidgetTile";

export function DashboardView() {
  const { dashboardId = "" } = useParams();
  const { project, api } = useProject();
  const calls = useMemo(() => dashboardsApi(api), [api]);
  const canWrite = project.role !== "VIEWER" && project.role !== "NONE";
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const range = readRange(params);
  const rangeKey = writeRange(range, new URLSearchParams()).toString();
  const span = useMemo(() => resolveRange(range, Date.now()), [rangeKey]); // eslint-disable-line react-hooks/exhaustive-deps
  const [editing, setEditing] = useState<Widget | "new" | null>(null);
  const [error, setError] = useState<unknown>(undefined);

  const loaded = useLoad(
    async (signal) => {
      const dashboard = await calls.get(dashboardId, signal);
      const ids = [...new Set(dashboard.definition.widgets.flatMap((p) => (p.widgetId ? [p.widgetId] : [])))];
      const widgets = await Promise.all(ids.map((id) => calls.widget(id, signal).catch(() => null)));
      return { dashboard, widgets: new Map(widgets.flatMap((w) => (w ? [[w.id, w] as const] : []))) };
    },
    [calls, dashboardId],
  );

  const act = async (work: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await work();
      loaded.reload();
    } catch (failure) {
      setError(failure);
    }
  };

  const remove = (placement: Placement) =>
    act(async () => {
      await calls.removePlacement(dashboardId, placement.id);
      // The widget goes with its last placement; one another dashboard still places stays (409).
      if (placement.widgetId) await calls.removeWidget(placement.widgetId).catch((e: unknown) => (isApiError(e, "conflict") ? undefined : Promise.reject(e)));
    });

  if (loaded.error !== undefined && !loaded.data) return <div className="page"><ErrorState error={loaded.error} onRetry={loaded.reload} /></div>;
  if (!loaded.data) return <div className="page"><Loading /></div>;
  const { dashboard, widgets } = loaded.data;
  const rows = Math.max(0, ...dashboard.definition.widgets.map((p) => p.y + p.height));

  return (
    <div className="page">
      <div className="page__header">
        <div>
          <div className="page__eyebrow">
            <Link to={projectPath(project.id, "dashboards")}>Dashboards</Link>
          </div>
          <h1>{dashboard.name}</h1>
          {dashboard.description && <p className="card__lead">{dashboard.description}</p>}
        </div>
        <div className="home__toolbar">
          <TimeRangePicker range={range} onChange={(next) => setParams(writeRange(next, params))} />
          {canWrite && (
            <>
              <Button size="sm" variant="primary" onClick={() => setEditing("new")}>
                Add widget
              </Button>
              <Button
                size="sm"
                variant="danger"
                onClick={() => {
                  if (!window.confirm(`Delete the dashboard “${dashboard.name}”? Its widgets stay.`)) return;
                  void act(async () => {
                    await calls.remove(dashboard.id);
                    void navigate(projectPath(project.id, "dashboards"));
                  });
                }}
              >
                Delete dashboard
              </Button>
            </>
          )}
        </div>
      </div>
      {error !== undefined && <InlineError>{describeError(error)}</InlineError>}
      {editing && (
        <WidgetEditor
          initial={editing === "new" ? null : editing}
          onCancel={() => setEditing(null)}
          onSave={async (spec) => {
            if (editing === "new") {
              const made = await calls.createWidget(spec);
              await calls.addPlacement(dashboard.id, made.id);
            } else {
              await calls.updateWidget(editing.id, spec);
            }
            setEditing(null);
            loaded.reload();
          }}
        />
      )}
      {dashboard.definition.widgets.length === 0 ? (
        <EmptyState title="No widgets yet">
          <p>{canWrite ? "Add a widget: a chart of a Metrics query." : "Members of the project can add widgets."}</p>
        </EmptyState>
      ) : (
        <div className="dashboard__grid" style={{ gridTemplateRows: `repeat(${rows}, 48px)` }}>
          {dashboard.definition.widgets.map((placement) => {
            const widget = placement.widgetId ? widgets.get(placement.widgetId) : undefined;
            return (
              <section
                key={placement.id}
                className="dashboard__tile"
                aria-label={widget?.name ?? "Widget"}
                style={{ gridColumn: `${placement.x + 1} / span ${placement.width}`, gridRow: `${placement.y + 1} / span ${placement.height}` }}
              >
                <header className="dashboard__tile-header">
                  <h2 className="home-card__title">{widget?.name ?? (placement.presetId ? `Preset ${placement.presetId}` : "Missing widget")}</h2>
                  {canWrite && (
                    <span className="dashboard__tile-actions">
                      {widget && (
                        <Button size="sm" variant="ghost" onClick={() => setEditing(widget)}>
                          Edit
                        </Button>
                      )}
                      <Button size="sm" variant="ghost" aria-label={`Remove ${widget?.name ?? "widget"}`} onClick={() => void remove(placement)}>
                        Remove
                      </Button>
                    </span>
                  )}
                </header>
                {widget ? (
                  <WidgetTile widget={widget} from={span.from} to={span.to} filters={dashboard.filters} />
                ) : (
                  <p className="chart chart--empty">
                    {placement.presetId ? "Managed preset widgets are not available in Loupe." : "This widget was deleted."}
                  </p>
                )}
              </section>
            );
          })}
        </div>
      )}
    </div>
  );
}
