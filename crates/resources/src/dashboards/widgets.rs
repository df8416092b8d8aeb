//! Dashboard widgets (`/api/public/unstable/dashboard-widgets`): a named chart defined by a
//! Metrics v2 query. A widget is saved only when `reads::metrics::validate` accepts the query it
//! runs ([`query`]), so a widget that saves is a widget that renders; the 400 names the problem.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sqlx::PgPool;
use sqlx::types::Json;
use utoipa::ToSchema;

use reads::Params;
use reads::metrics::{self, Version};
use reads::params::PageRequest;

use super::{WidgetFilter, check_description, check_filters, check_name};
use crate::page::{count_in_project, project_page};
use crate::{Error, Message, Page, Result, timestamp};

/// Views a widget may be created with (the SDK's `DashboardWidgetView`).
pub const VIEWS: &[&str] = &["observations", "scores-numeric", "scores-boolean", "scores-categorical"];
/// The SDK's `DashboardWidgetChartType`.
pub const CHART_TYPES: &[&str] = &[
    "LINE_TIME_SERIES",
    "AREA_TIME_SERIES",
    "BAR_TIME_SERIES",
    "HORIZONTAL_BAR",
    "VERTICAL_BAR",
    "PIE",
    "NUMBER",
    "HISTOGRAM",
    "PIVOT_TABLE",
];
const MAX_DIMENSIONS: usize = 2;
const MAX_METRICS: usize = 10;
/// Rows a chart over dimensions shows when its config names no `row_limit`.
const DEFAULT_ROW_LIMIT: i64 = 100;
/// Widgets one project may keep.
const MAX_WIDGETS: i64 = 1000;

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(as = DashboardWidgetDimension)]
pub struct Dimension {
    pub field: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(as = DashboardWidgetMetric)]
pub struct WidgetMetric {
    pub measure: String,
    /// sum, avg, count, max, min, p50, p75, p90, p95, p99, histogram or uniq.
    pub agg: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(as = DashboardWidgetDefaultSort)]
pub struct DefaultSort {
    pub column: String,
    /// `ASC` or `DESC`.
    pub order: String,
}

/// The SDK's `DashboardWidgetChartConfig` (stored and answered with `type` set) and
/// `DashboardWidgetChartConfigInput` (`type` optional, must match `chartType` when given).
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[schema(as = DashboardWidgetChartConfig)]
pub struct ChartConfig {
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub row_limit: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub show_value_labels: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bins: Option<i64>,
    #[serde(rename = "defaultSort", default, skip_serializing_if = "Option::is_none")]
    pub default_sort: Option<DefaultSort>,
}

/// What a widget shows; stored as the `definition` column.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Spec {
    pub view: String,
    pub dimensions: Vec<Dimension>,
    pub metrics: Vec<WidgetMetric>,
    pub filters: Vec<WidgetFilter>,
    pub chart_type: String,
    pub chart_config: ChartConfig,
}

/// The SDK's `DashboardWidget`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = DashboardWidget)]
pub struct WidgetBody {
    pub id: String,
    pub created_at: String,
    pub updated_at: String,
    pub name: String,
    pub description: String,
    pub view: String,
    pub dimensions: Vec<Dimension>,
    pub metrics: Vec<WidgetMetric>,
    pub filters: Vec<WidgetFilter>,
    pub chart_type: String,
    pub chart_config: ChartConfig,
}

/// The body of `POST /api/public/unstable/dashboard-widgets` (`CreateDashboardWidgetRequest`).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = CreateDashboardWidgetRequest)]
pub struct NewWidget {
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    pub view: String,
    pub dimensions: Vec<Dimension>,
    pub metrics: Vec<WidgetMetric>,
    pub filters: Vec<WidgetFilter>,
    pub chart_type: String,
    #[serde(default)]
    pub chart_config: Option<ChartConfig>,
}

/// The body of `PATCH /api/public/unstable/dashboard-widgets/{widgetId}`: absent fields keep
/// their value; at least one is required.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = UpdateDashboardWidgetRequest)]
pub struct WidgetPatch {
    pub name: Option<String>,
    pub description: Option<String>,
    pub view: Option<String>,
    pub dimensions: Option<Vec<Dimension>>,
    pub metrics: Option<Vec<WidgetMetric>>,
    pub filters: Option<Vec<WidgetFilter>>,
    pub chart_type: Option<String>,
    pub chart_config: Option<ChartConfig>,
}

#[derive(sqlx::FromRow)]
struct Row {
    id: String,
    name: String,
    description: String,
    definition: Json<Spec>,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
}

impl From<Row> for WidgetBody {
    fn from(row: Row) -> Self {
        let Spec { view, dimensions, metrics, filters, chart_type, chart_config } = row.definition.0;
        Self {
            id: row.id,
            created_at: timestamp(&row.created_at),
            updated_at: timestamp(&row.updated_at),
            name: row.name,
            description: row.description,
            view,
            dimensions,
            metrics,
            filters,
            chart_type,
            chart_config,
        }
    }
}

const COLUMNS: &str = "id, name, description, definition, created_at, updated_at";

fn is_time_series(chart_type: &str) -> bool {
    chart_type.ends_with("_TIME_SERIES")
}

/// The Metrics v2 query a widget runs over `[from, to)`: time series bucket by time, charts over
/// dimensions keep the `row_limit` largest groups of the first metric. The UI builds the same
/// object (`ui/src/features/dashboards/query.ts`).
pub fn query(spec: &Spec, from: &str, to: &str) -> Value {
    let metrics: Vec<Value> =
        spec.metrics.iter().map(|m| json!({"measure": m.measure, "aggregation": m.agg})).collect();
    let mut query = json!({
        "view": spec.view, "dimensions": spec.dimensions, "metrics": metrics, "filters": spec.filters,
        "fromTimestamp": from, "toTimestamp": to,
    });
    let mut config = serde_json::Map::new();
    if let Some(bins) = spec.chart_config.bins {
        config.insert("bins".into(), bins.into());
    }
    if is_time_series(&spec.chart_type) {
        query["timeDimension"] = json!({"granularity": "auto"});
    } else if !spec.dimensions.is_empty() {
        let row_limit = spec.chart_config.row_limit.unwrap_or(DEFAULT_ROW_LIMIT);
        config.insert("row_limit".into(), row_limit.into());
        if let Some(first) = spec.metrics.first() {
            query["orderBy"] =
                json!([{"field": format!("{}_{}", first.agg, first.measure), "direction": "desc"}]);
        }
    }
    if !config.is_empty() {
        query["config"] = Value::Object(config);
    }
    query
}

/// The rules of a widget's definition, then its query through the metrics parser.
fn check(spec: &mut Spec) -> Result<()> {
    if !VIEWS.contains(&spec.view.as_str()) {
        return Err(Error::bad_request(format!(
            "Invalid view `{}`. Must be one of: {}",
            spec.view,
            VIEWS.join(", ")
        )));
    }
    if !CHART_TYPES.contains(&spec.chart_type.as_str()) {
        return Err(Error::bad_request(format!(
            "Invalid chartType `{}`. Must be one of: {}",
            spec.chart_type,
            CHART_TYPES.join(", ")
        )));
    }
    match &spec.chart_config.kind {
        Some(kind) if kind != &spec.chart_type => {
            return Err(Error::bad_request(format!(
                "chartConfig.type `{kind}` must match chartType `{}`",
                spec.chart_type
            )));
        }
        _ => spec.chart_config.kind = Some(spec.chart_type.clone()),
    }
    if spec.dimensions.len() > MAX_DIMENSIONS {
        return Err(Error::bad_request(format!("A widget takes at most {MAX_DIMENSIONS} dimensions")));
    }
    if spec.metrics.is_empty() || spec.metrics.len() > MAX_METRICS {
        return Err(Error::bad_request(format!("A widget takes between 1 and {MAX_METRICS} metrics")));
    }
    check_filters(&spec.filters)?;
    if let Some(sort) = &spec.chart_config.default_sort
        && !matches!(sort.order.as_str(), "ASC" | "DESC")
    {
        return Err(Error::bad_request("chartConfig.defaultSort.order must be ASC or DESC"));
    }
    let probe = query(spec, "2024-01-01T00:00:00Z", "2024-01-02T00:00:00Z");
    metrics::validate(probe, Version::V2)
        .map_err(|e| Error::bad_request(format!("Invalid widget query: {e}")))
}

fn not_found() -> Error {
    Error::not_found("Dashboard widget not found")
}

/// `POST /api/public/unstable/dashboard-widgets`.
pub async fn create(pool: &PgPool, project: &str, new: NewWidget) -> Result<WidgetBody> {
    check_name(&new.name)?;
    let description = new.description.unwrap_or_default();
    check_description(&description)?;
    let mut spec = Spec {
        view: new.view,
        dimensions: new.dimensions,
        metrics: new.metrics,
        filters: new.filters,
        chart_type: new.chart_type,
        chart_config: new.chart_config.unwrap_or_default(),
    };
    check(&mut spec)?;
    let count = count_in_project(pool, "dashboard_widgets", project).await?;
    if count >= MAX_WIDGETS {
        return Err(Error::bad_request(format!("A project keeps at most {MAX_WIDGETS} dashboard widgets")));
    }
    let sql = format!(
        "INSERT INTO dashboard_widgets (id, project_id, name, description, definition) \
         VALUES ($1, $2, $3, $4, $5) RETURNING {COLUMNS}"
    );
    let row: Row = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(uuid::Uuid::now_v7().to_string())
        .bind(project)
        .bind(new.name.trim())
        .bind(&description)
        .bind(Json(&spec))
        .fetch_one(pool)
        .await?;
    Ok(row.into())
}

async fn find<'e>(db: impl sqlx::PgExecutor<'e>, project: &str, id: &str, lock: &str) -> Result<Row> {
    let sql = format!("SELECT {COLUMNS} FROM dashboard_widgets WHERE project_id = $1 AND id = $2{lock}");
    let row: Option<Row> =
        sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(project).bind(id).fetch_optional(db).await?;
    row.ok_or_else(not_found)
}

/// Whether `id` is a widget of `project`; holds a share lock on it until the transaction ends, so
/// the widget cannot be deleted while a placement of it is being added.
pub(super) async fn exists(tx: &mut sqlx::PgConnection, project: &str, id: &str) -> Result<bool> {
    let row: Option<(i32,)> =
        sqlx::query_as("SELECT 1 FROM dashboard_widgets WHERE project_id = $1 AND id = $2 FOR SHARE")
            .bind(project)
            .bind(id)
            .fetch_optional(tx)
            .await?;
    Ok(row.is_some())
}

/// `GET /api/public/unstable/dashboard-widgets/{widgetId}`.
pub async fn get(pool: &PgPool, project: &str, id: &str) -> Result<WidgetBody> {
    Ok(find(pool, project, id, "").await?.into())
}

/// `GET /api/public/unstable/dashboard-widgets?page=&limit=`, most recently updated first.
pub async fn list(pool: &PgPool, project: &str, params: &Params) -> Result<Page<WidgetBody>> {
    let page = PageRequest::parse(params)?;
    let (rows, total): (Vec<Row>, _) =
        project_page(pool, "dashboard_widgets", COLUMNS, "updated_at DESC, id", project, &page).await?;
    Ok(Page::new(rows.into_iter().map(WidgetBody::from).collect(), &page, total))
}

/// `PATCH /api/public/unstable/dashboard-widgets/{widgetId}`: the patch merged onto the stored
/// widget, checked as a new one. A new `chartType` without a `chartConfig` resets the config.
pub async fn update(pool: &PgPool, project: &str, id: &str, patch: WidgetPatch) -> Result<WidgetBody> {
    let WidgetPatch { name, description, view, dimensions, metrics, filters, chart_type, chart_config } =
        patch;
    if name.is_none()
        && description.is_none()
        && view.is_none()
        && dimensions.is_none()
        && metrics.is_none()
        && filters.is_none()
        && chart_type.is_none()
        && chart_config.is_none()
    {
        return Err(Error::bad_request("At least one field to update is required"));
    }
    let mut tx = pool.begin().await?;
    let row = find(&mut *tx, project, id, " FOR UPDATE").await?;
    let stored = row.definition.0;
    let type_changed = chart_type.as_ref().is_some_and(|t| t != &stored.chart_type);
    let chart_config = match chart_config {
        Some(config) => config,
        None if type_changed => ChartConfig::default(),
        None => stored.chart_config,
    };
    let mut spec = Spec {
        view: view.unwrap_or(stored.view),
        dimensions: dimensions.unwrap_or(stored.dimensions),
        metrics: metrics.unwrap_or(stored.metrics),
        filters: filters.unwrap_or(stored.filters),
        chart_type: chart_type.unwrap_or(stored.chart_type),
        chart_config,
    };
    if let Some(name) = &name {
        check_name(name)?;
    }
    if let Some(description) = &description {
        check_description(description)?;
    }
    check(&mut spec)?;
    let sql = format!(
        "UPDATE dashboard_widgets SET name = $3, description = $4, definition = $5, updated_at = now() \
         WHERE project_id = $1 AND id = $2 RETURNING {COLUMNS}"
    );
    let row: Row = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(project)
        .bind(id)
        .bind(name.as_deref().map_or(row.name.as_str(), str::trim))
        .bind(description.as_deref().unwrap_or(&row.description))
        .bind(Json(&spec))
        .fetch_one(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(row.into())
}

/// `DELETE /api/public/unstable/dashboard-widgets/{widgetId}`: a 409 while a dashboard places it.
pub async fn delete(pool: &PgPool, project: &str, id: &str) -> Result<Message> {
    let mut tx = pool.begin().await?;
    find(&mut *tx, project, id, " FOR UPDATE").await?;
    let placed: Option<(String,)> = sqlx::query_as(
        "SELECT name FROM dashboards WHERE project_id = $1 \
         AND definition -> 'widgets' @> jsonb_build_array(jsonb_build_object('widgetId', $2::text)) LIMIT 1",
    )
    .bind(project)
    .bind(id)
    .fetch_optional(&mut *tx)
    .await?;
    if let Some((dashboard,)) = placed {
        return Err(Error::Conflict(format!(
            "The widget is placed on dashboard `{dashboard}`; remove its placements first"
        )));
    }
    sqlx::query("DELETE FROM dashboard_widgets WHERE project_id = $1 AND id = $2")
        .bind(project)
        .bind(id)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(Message { message: "Dashboard widget successfully deleted" })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(chart_type: &str, dimensions: &[&str]) -> Spec {
        Spec {
            view: "observations".into(),
            dimensions: dimensions.iter().map(|d| Dimension { field: (*d).into() }).collect(),
            metrics: vec![WidgetMetric { measure: "latency".into(), agg: "p95".into() }],
            filters: vec![],
            chart_type: chart_type.into(),
            chart_config: ChartConfig::default(),
        }
    }

    #[test]
    fn time_series_bucket_by_time_and_bars_keep_the_largest_groups() {
        let q = query(&spec("LINE_TIME_SERIES", &["name"]), "a", "b");
        assert_eq!(q["timeDimension"]["granularity"], "auto");
        assert!(q.get("orderBy").is_none());
        let q = query(&spec("HORIZONTAL_BAR", &["name"]), "a", "b");
        assert_eq!(q["orderBy"][0]["field"], "p95_latency");
        assert_eq!(q["config"]["row_limit"], 100);
    }

    #[test]
    fn check_names_the_problem() {
        let mut bad = spec("NUMBER", &["vibes"]);
        assert!(check(&mut bad).unwrap_err().to_string().contains("Invalid dimension vibes"));
        let mut bad = spec("NUMBER", &[]);
        bad.metrics[0].agg = "median".into();
        assert!(check(&mut bad).unwrap_err().to_string().contains("Invalid aggregation median"));
        let mut bad = spec("PIE", &[]);
        bad.chart_config.kind = Some("NUMBER".into());
        assert!(check(&mut bad).unwrap_err().to_string().contains("must match chartType"));
        let mut good = spec("VERTICAL_BAR", &["traceId"]);
        check(&mut good).unwrap();
        assert_eq!(good.chart_config.kind.as_deref(), Some("VERTICAL_BAR"));
    }
}
