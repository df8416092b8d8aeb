-- Custom dashboards (`/api/public/unstable/dashboards`, `…/dashboard-widgets`; resources::dashboards).

-- A chart defined by a Metrics v2 query. `definition` is {view, dimensions, metrics, filters,
-- chartType, chartConfig} as the API takes it, checked on save by the metrics query parser.
CREATE TABLE dashboard_widgets (
    id          TEXT PRIMARY KEY,
    project_id  TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    definition  JSONB NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX dashboard_widgets_project_idx ON dashboard_widgets (project_id, updated_at DESC);

-- A grid of placements: `definition` is {"widgets": [placement…]} where a placement is
-- {type: "widget", id, widgetId, x, y, width, height} or {type: "preset", id, presetId, …}.
-- `filters` apply to every widget of the dashboard.
CREATE TABLE dashboards (
    id          TEXT PRIMARY KEY,
    project_id  TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    definition  JSONB NOT NULL DEFAULT '{"widgets": []}',
    filters     JSONB NOT NULL DEFAULT '[]',
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX dashboards_project_idx ON dashboards (project_id, updated_at DESC);
