"""Custom dashboards with the real Langfuse Python SDK 5 (`langfuse.api.unstable`, whose pydantic
models parse every answer): create a widget and a dashboard, place the widget (appended, then
moved), list and fetch both, update them, see a widget refused while placed (409) and a bad query
refused (400), then remove the placement, the widget and the dashboard. Prints what it saw as JSON.

Usage: python dashboards.py  (reads LOUPE_URL, LOUPE_PUBLIC_KEY, LOUPE_SECRET_KEY)
"""
import json
import os

from langfuse import Langfuse
from langfuse.api.core.api_error import ApiError
from langfuse.api.unstable.dashboard_widgets import (
    DashboardWidgetChartType,
    DashboardWidgetDimension,
    DashboardWidgetFilter,
    DashboardWidgetMetric,
    DashboardWidgetMetricAggregation,
    DashboardWidgetView,
)
from langfuse.api.unstable.dashboards import CreateDashboardPlacementRequest_Widget

langfuse = Langfuse(
    public_key=os.environ["LOUPE_PUBLIC_KEY"],
    secret_key=os.environ["LOUPE_SECRET_KEY"],
    base_url=os.environ["LOUPE_URL"],
)
unstable = langfuse.api.unstable
seen = {}


def status_of(call):
    try:
        call()
    except ApiError as error:
        body = error.body
        message = body.get("message", "") if isinstance(body, dict) else getattr(body, "message", "")
        return [error.status_code, message, type(error).__name__]
    return [200, "", ""]


widget = unstable.dashboard_widgets.create(
    name="Latency by name",
    view=DashboardWidgetView.OBSERVATIONS,
    dimensions=[DashboardWidgetDimension(field="name")],
    metrics=[DashboardWidgetMetric(measure="latency", agg=DashboardWidgetMetricAggregation.P95)],
    filters=[DashboardWidgetFilter(column="type", operator="any of", type="stringOptions", value=["GENERATION"])],
    chart_type=DashboardWidgetChartType.HORIZONTAL_BAR,
)
seen["widget"] = {
    "description": widget.description,
    "chart_config_type": widget.chart_config.type,
    "filters": [f.column for f in widget.filters],
}
dashboard = unstable.dashboards.create(name="Latency", description="p95 by name")
seen["empty_definition"] = len(dashboard.definition.widgets)
placement = unstable.dashboards.add_placement(
    dashboard.id, request=CreateDashboardPlacementRequest_Widget(widget_id=widget.id)
)
second = unstable.dashboards.add_placement(
    dashboard.id, request=CreateDashboardPlacementRequest_Widget(id="fixed", widget_id=widget.id)
)
seen["placements"] = [[p.x, p.y, p.width, p.height] for p in (placement, second)]
seen["duplicate_placement"] = status_of(
    lambda: unstable.dashboards.add_placement(
        dashboard.id, request=CreateDashboardPlacementRequest_Widget(id="fixed", widget_id=widget.id)
    )
)
moved = unstable.dashboards.update_placement(dashboard.id, "fixed", x=6, y=0)
seen["moved"] = [moved.x, moved.y, moved.width, moved.height]
fetched = unstable.dashboards.get(dashboard.id)
seen["fetched"] = [[p.type, p.widget_id] for p in fetched.definition.widgets]
seen["listed"] = [d.name for d in unstable.dashboards.list(limit=10).data]
renamed = unstable.dashboards.update(dashboard.id, name="Latency (p95)")
seen["renamed"] = [renamed.name, len(renamed.definition.widgets)]
updated = unstable.dashboard_widgets.update(widget.id, chart_type=DashboardWidgetChartType.PIE)
seen["updated_chart"] = [updated.chart_type, updated.chart_config.type]
seen["bad_query"] = status_of(
    lambda: unstable.dashboard_widgets.update(
        widget.id, metrics=[DashboardWidgetMetric(measure="vibes", agg=DashboardWidgetMetricAggregation.SUM)]
    )
)
seen["widgets"] = [w.name for w in unstable.dashboard_widgets.list().data]
seen["delete_placed"] = status_of(lambda: unstable.dashboard_widgets.delete(widget.id))
unstable.dashboards.delete_placement(dashboard.id, placement.id)
unstable.dashboards.delete_placement(dashboard.id, "fixed")
seen["deleted_widget"] = unstable.dashboard_widgets.delete(widget.id).message
seen["deleted_dashboard"] = unstable.dashboards.delete(dashboard.id).message
seen["gone"] = status_of(lambda: unstable.dashboards.get(dashboard.id))
print(json.dumps(seen))
