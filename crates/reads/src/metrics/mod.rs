//! `GET /api/public/v2/metrics` and the legacy `GET /api/public/metrics` (reference/public-api.md
//! §4.2): a JSON query object (view, dimensions, metrics, filters, time dimension, order, row
//! limit) compiled to one aggregate over the newest version of each row.

mod views;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use storage::clickhouse::ClickHouse;
use storage::clickhouse::{NEWEST_BY_ID, NEWEST_BY_SPAN_ID};
use utoipa::ToSchema;

use crate::filter::{self, Column};
use crate::sql::{JsonRow, Sql, all_of, project, time_bound};
use crate::{Params, ReadError, Result};
use views::{Join, Relation, View};

/// Which API generation, and so which views and tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// `/api/public/metrics` on the v3 tables.
    V1,
    /// `/api/public/v2/metrics` on the events tables.
    V2,
}

const AGGREGATIONS: &[&str] =
    &["sum", "avg", "count", "max", "min", "p50", "p75", "p90", "p95", "p99", "histogram", "uniq"];
const DEFAULT_ROW_LIMIT: i64 = 100;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Query {
    view: String,
    #[serde(default)]
    dimensions: Vec<Field>,
    metrics: Vec<Metric>,
    #[serde(default)]
    filters: Vec<filter::Filter>,
    #[serde(default)]
    time_dimension: Option<TimeDimension>,
    from_timestamp: String,
    to_timestamp: String,
    #[serde(default)]
    order_by: Option<Vec<Order>>,
    #[serde(default)]
    config: Option<Config>,
}

#[derive(Debug, Deserialize)]
struct Field {
    field: String,
}

#[derive(Debug, Deserialize)]
struct Metric {
    measure: String,
    aggregation: String,
}

#[derive(Debug, Deserialize)]
struct TimeDimension {
    granularity: String,
}

#[derive(Debug, Deserialize)]
struct Order {
    field: String,
    direction: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    bins: Option<i64>,
    row_limit: Option<i64>,
}

/// The rows of a metrics query.
#[derive(Debug, Serialize, ToSchema)]
pub struct MetricsBody {
    /// One object per group: each requested dimension under its field name, `time_dimension` when
    /// asked for, and each metric as `<aggregation>_<measure>`. The query decides the keys, so a
    /// row is a map rather than a struct.
    #[schema(value_type = Vec<HashMap<String, Object>>)]
    pub data: Vec<JsonRow>,
}

pub async fn run(
    clickhouse: &ClickHouse,
    project_id: &str,
    params: &Params,
    version: Version,
) -> Result<MetricsBody> {
    let raw =
        params.get("query").ok_or_else(|| ReadError::bad_request("The `query` parameter is required"))?;
    let value: Value =
        serde_json::from_str(raw).map_err(|_| ReadError::bad_request("Invalid JSON in query parameter"))?;
    let query: Query =
        serde_json::from_value(value).map_err(|e| ReadError::bad_request(format!("Invalid query: {e}")))?;
    let sql = compile(&query, project_id, version)?;
    Ok(MetricsBody { data: sql.fetch_json(clickhouse).await? })
}

/// Checks a query object by the rules `run` applies (parse and compile, no execution): a custom
/// dashboard widget is refused on save with the same message its query would get when run.
pub fn validate(query: Value, version: Version) -> Result<()> {
    let query: Query =
        serde_json::from_value(query).map_err(|e| ReadError::bad_request(format!("Invalid query: {e}")))?;
    compile(&query, "validate", version).map(|_| ())
}

fn compile(query: &Query, project_id: &str, version: Version) -> Result<Sql> {
    let views = match version {
        Version::V1 => views::V1_VIEWS,
        Version::V2 => views::V2_VIEWS,
    };
    let view = views.iter().find(|v| v.name == query.view).ok_or_else(|| {
        let names: Vec<_> = views.iter().map(|v| v.name).collect();
        ReadError::bad_request(format!("Invalid view `{}`. Must be one of: {}", query.view, names.join(", ")))
    })?;
    let from = crate::params::parse_datetime("fromTimestamp", &query.from_timestamp)?;
    let to = crate::params::parse_datetime("toTimestamp", &query.to_timestamp)?;
    if from >= to {
        return Err(ReadError::bad_request("fromTimestamp must be before toTimestamp"));
    }
    if query.metrics.is_empty() {
        return Err(ReadError::bad_request("`metrics` needs at least one {measure, aggregation}"));
    }
    let config = query.config.as_ref();
    let row_limit = config.and_then(|c| c.row_limit);
    if row_limit.is_some_and(|l| !(1..=1000).contains(&l)) {
        return Err(ReadError::bad_request("config.row_limit must be between 1 and 1000"));
    }
    let bins = config.and_then(|c| c.bins).unwrap_or(10);
    if !(1..=100).contains(&bins) {
        return Err(ReadError::bad_request("config.bins must be between 1 and 100"));
    }

    let mut select = Vec::new();
    let mut group = Vec::new();
    let mut needs: Vec<Relation> = Vec::new();
    for Field { field } in &query.dimensions {
        let dimension = view.dimensions.iter().find(|d| d.name == field).ok_or_else(|| {
            unsupported(view, version, field).unwrap_or_else(|| {
                ReadError::bad_request(format!(
                    "Invalid dimension {field}. Must be one of {}",
                    names(view.dimensions.iter().map(|d| d.name))
                ))
            })
        })?;
        needs.extend(dimension.needs);
        select.push(format!("{} AS `{}`", dimension.sql, dimension.name));
        group.push(format!("`{}`", dimension.name));
    }
    if let Some(time) = &query.time_dimension {
        let bucket = bucket(&time.granularity, from, to)?;
        select.push(format!("{bucket}({}) AS time_dimension", view.time));
        group.push("time_dimension".to_owned());
    }
    let mut metric_keys = Vec::new();
    for Metric { measure, aggregation } in &query.metrics {
        let m = view.measures.iter().find(|m| m.name == measure).ok_or_else(|| {
            unsupported(view, version, measure).unwrap_or_else(|| {
                ReadError::bad_request(format!(
                    "Invalid metric {measure}. Must be one of {}",
                    names(view.measures.iter().map(|m| m.name))
                ))
            })
        })?;
        needs.extend(m.needs);
        let expr = aggregate(aggregation, m.sql, bins)?;
        let key = format!("{aggregation}_{measure}");
        select.push(format!("{expr} AS `{key}`"));
        metric_keys.push(key);
    }
    let order = order(query, view, &metric_keys, row_limit)?;

    for f in &query.filters {
        if let Some(error) = unsupported(view, version, &f.column) {
            return Err(error);
        }
        if let Some(dimension) = view.dimensions.iter().find(|d| d.name == f.column) {
            needs.extend(dimension.needs);
        }
    }
    let columns: Vec<Column> =
        view.dimensions.iter().map(|d| Column { name: d.name, sql: d.sql, kind: d.kind }).collect();
    let filters = filter::to_sql(&query.filters, &columns)?;
    let scope =
        all_of(&[project(project_id), time_bound(view.time, ">=", from), time_bound(view.time, "<", to)]);
    let joins: Vec<&Join> = view.joins.iter().filter(|j| needs.contains(&j.relation)).collect();
    let mut sql = Sql::new(&format!("SELECT {} FROM ", select.join(", ")));
    sql.append(&render(view.base, &scope, &project(project_id), &joins))
        .push(" WHERE ")
        .append(&all_of(&[Sql::new("is_deleted = 0"), filters]));
    if !group.is_empty() {
        sql.push(&format!(" GROUP BY {}", group.join(", ")));
    }
    if !order.is_empty() {
        sql.push(&format!(" ORDER BY {order}"));
    }
    sql.push(" LIMIT ").bind(row_limit.unwrap_or(DEFAULT_ROW_LIMIT));
    Ok(sql)
}

fn names<'a>(names: impl Iterator<Item = &'a str>) -> String {
    names.collect::<Vec<_>>().join(", ")
}

/// A dimension, filter column or measure the reference lists for the view but this API generation
/// does not offer: a 400 that says so, instead of a wrong or empty answer.
fn unsupported(view: &View, version: Version, name: &str) -> Option<ReadError> {
    view.unsupported.contains(&name).then(|| {
        let (api, instead) = match version {
            Version::V1 => ("v1 metrics API (/api/public/metrics)", "; use /api/public/v2/metrics"),
            Version::V2 => ("v2 metrics API", ""),
        };
        ReadError::bad_request(format!(
            "`{name}` is not supported on the `{}` view of the {api}{instead}",
            view.name
        ))
    })
}

/// Fills a view or join template: `{where}` with the project and time-range conditions, `{project}`
/// with the project condition, `{joins}` with the join clauses (templates themselves), and
/// `{newest_by_id}` / `{newest_by_span_id}` with the clause that collapses versions (storage's).
fn render(template: &str, scope: &Sql, project: &Sql, joins: &[&Join]) -> Sql {
    let mut out = Sql::default();
    let mut rest = template;
    while let Some(start) = rest.find('{') {
        let end = rest[start..].find('}').map_or(rest.len(), |e| start + e + 1);
        out.push(&rest[..start]);
        match &rest[start..end] {
            "{where}" => {
                out.append(scope);
            }
            "{project}" => {
                out.append(project);
            }
            "{newest_by_id}" => {
                out.push(NEWEST_BY_ID);
            }
            "{newest_by_span_id}" => {
                out.push(NEWEST_BY_SPAN_ID);
            }
            "{joins}" => {
                for join in joins {
                    out.append(&render(join.sql, scope, project, &[]));
                }
            }
            other => {
                out.push(other);
            }
        }
        rest = &rest[end..];
    }
    out.push(rest);
    out
}

fn aggregate(aggregation: &str, expr: &str, bins: i64) -> Result<String> {
    let quantile = |q: &str| format!("quantile({q})({expr})");
    Ok(match aggregation {
        "count" => "count()".to_owned(),
        "sum" | "avg" | "max" | "min" | "uniq" => format!("{aggregation}({expr})"),
        "p50" => quantile("0.5"),
        "p75" => quantile("0.75"),
        "p90" => quantile("0.9"),
        "p95" => quantile("0.95"),
        "p99" => quantile("0.99"),
        "histogram" => format!("histogram({bins})(toFloat64({expr}))"),
        other => {
            return Err(ReadError::bad_request(format!(
                "Invalid aggregation {other}. Must be one of {}",
                AGGREGATIONS.join(", ")
            )));
        }
    })
}

/// `toStartOf…` for a granularity; `auto` picks one that gives a readable number of buckets.
fn bucket(granularity: &str, from: DateTime<Utc>, to: DateTime<Utc>) -> Result<&'static str> {
    let hours = (to - from).num_hours();
    Ok(match granularity {
        "minute" => "toStartOfMinute",
        "hour" => "toStartOfHour",
        "day" => "toStartOfDay",
        "week" => "toStartOfWeek",
        "month" => "toStartOfMonth",
        "auto" if hours <= 2 => "toStartOfMinute",
        "auto" if hours <= 72 => "toStartOfHour",
        "auto" if hours <= 24 * 90 => "toStartOfDay",
        "auto" if hours <= 24 * 365 => "toStartOfWeek",
        "auto" => "toStartOfMonth",
        other => {
            return Err(ReadError::bad_request(format!(
                "Invalid granularity {other}. Must be one of auto, minute, hour, day, week, month"
            )));
        }
    })
}

/// The ORDER BY: explicit fields (dimensions, `time_dimension` or metric keys), else time order.
/// High-cardinality dimensions need a row limit and a descending measure order (else one group
/// per row would come back).
fn order(query: &Query, view: &View, metric_keys: &[String], row_limit: Option<i64>) -> Result<String> {
    let orders = query.order_by.as_deref().unwrap_or_default();
    let mut out = Vec::new();
    for Order { field, direction } in orders {
        let direction = match direction.as_str() {
            "asc" => "ASC",
            "desc" => "DESC",
            other => {
                return Err(ReadError::bad_request(format!("Invalid order direction {other}: asc or desc")));
            }
        };
        let known = metric_keys.contains(field)
            || (field == "time_dimension" && query.time_dimension.is_some())
            || query.dimensions.iter().any(|d| &d.field == field);
        if !known {
            return Err(ReadError::bad_request(format!(
                "Invalid orderBy field {field}: order by a requested dimension, time_dimension or a metric \
                 as <aggregation>_<measure>"
            )));
        }
        out.push(format!("`{field}` {direction}"));
    }
    let high: Vec<&str> = query
        .dimensions
        .iter()
        .filter(|d| view.dimensions.iter().any(|v| v.name == d.field && v.high_cardinality))
        .map(|d| d.field.as_str())
        .collect();
    let measure_desc = orders.iter().any(|o| o.direction == "desc" && metric_keys.contains(&o.field));
    if !high.is_empty() && (row_limit.is_none() || !measure_desc) {
        return Err(ReadError::bad_request(format!(
            "High cardinality dimension(s) '{}' require both 'config.row_limit' and 'orderBy' with direction \
             'desc' on a measure field.",
            high.join("', '")
        )));
    }
    if out.is_empty() && query.time_dimension.is_some() {
        out.push("time_dimension ASC".to_owned());
    }
    Ok(out.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn compile_json(v: Value, version: Version) -> Result<String> {
        let q: Query = serde_json::from_value(v).map_err(|e| ReadError::bad_request(e.to_string()))?;
        Ok(compile(&q, "p", version)?.text().to_owned())
    }

    fn base() -> Value {
        json!({"view": "observations", "metrics": [{"measure": "totalCost", "aggregation": "sum"}],
               "fromTimestamp": "2024-01-01T00:00:00Z", "toTimestamp": "2024-01-02T00:00:00Z"})
    }

    #[test]
    fn compiles_dimensions_time_and_metrics() {
        let mut q = base();
        q["dimensions"] = json!([{"field": "name"}]);
        q["timeDimension"] = json!({"granularity": "auto"});
        let sql = compile_json(q, Version::V2).unwrap();
        assert!(sql.starts_with("SELECT name AS `name`, toStartOfHour(start_time) AS time_dimension, sum(toFloat64(calculated_total_cost)) AS `sum_totalCost` FROM (SELECT"), "{sql}");
        assert!(sql.contains("GROUP BY `name`, time_dimension ORDER BY time_dimension ASC LIMIT ?"), "{sql}");
        assert!(sql.contains("LIMIT 1 BY span_id"), "{sql}");
    }

    #[test]
    fn rejects_what_is_not_allowed() {
        let mut q = base();
        q["dimensions"] = json!([{"field": "input"}]);
        assert!(compile_json(q, Version::V2).unwrap_err().to_string().starts_with("Invalid dimension input"));
        let mut q = base();
        q["metrics"] = json!([{"measure": "vibes", "aggregation": "sum"}]);
        assert!(compile_json(q, Version::V2).unwrap_err().to_string().starts_with("Invalid metric vibes"));
        let mut q = base();
        q["toTimestamp"] = json!("2023-01-01T00:00:00Z");
        assert_eq!(
            compile_json(q, Version::V2).unwrap_err().to_string(),
            "fromTimestamp must be before toTimestamp"
        );
        let mut q = base();
        q["view"] = json!("traces");
        q["metrics"] = json!([{"measure": "count", "aggregation": "count"}]);
        assert!(compile_json(q.clone(), Version::V2).is_err());
        assert!(compile_json(q, Version::V1).is_ok());
    }

    #[test]
    fn high_cardinality_needs_limit_and_measure_order() {
        let mut q = base();
        q["dimensions"] = json!([{"field": "traceId"}]);
        assert!(compile_json(q.clone(), Version::V2).unwrap_err().to_string().contains("High cardinality"));
        q["config"] = json!({"row_limit": 10});
        q["orderBy"] = json!([{"field": "sum_totalCost", "direction": "desc"}]);
        let sql = compile_json(q, Version::V2).unwrap();
        assert!(sql.contains("ORDER BY `sum_totalCost` DESC"), "{sql}");
    }

    fn scores(view: &str, dimension: &str) -> Value {
        json!({"view": view, "dimensions": [{"field": dimension}],
               "metrics": [{"measure": "count", "aggregation": "count"}],
               "fromTimestamp": "2024-01-01T00:00:00Z", "toTimestamp": "2024-01-02T00:00:00Z"})
    }

    #[test]
    fn joins_only_what_the_query_needs() {
        let plain = compile_json(scores("scores-numeric", "name"), Version::V2).unwrap();
        assert!(!plain.contains("JOIN"), "{plain}");
        let by_trace = compile_json(scores("scores-numeric", "traceName"), Version::V2).unwrap();
        assert!(by_trace.contains("t_name AS `traceName`") && by_trace.contains("AS tr ON"), "{by_trace}");
        assert!(!by_trace.contains("AS ob ON"), "{by_trace}");
        let by_observation =
            compile_json(scores("scores-categorical", "observationName"), Version::V2).unwrap();
        assert!(
            by_observation.contains("AS tr ON") && by_observation.contains("AS ob ON"),
            "{by_observation}"
        );
        // A filter on a joined column needs the join as much as a dimension does.
        let mut filtered = scores("scores-boolean", "name");
        filtered["filters"] =
            json!([{"type": "stringOptions", "column": "userId", "operator": "any of", "value": ["u"]}]);
        let filtered = compile_json(filtered, Version::V2).unwrap();
        assert!(filtered.contains("t_user_id IN ?") && filtered.contains("AS tr ON"), "{filtered}");
        let v1 = compile_json(scores("scores-numeric", "traceName"), Version::V1).unwrap();
        assert!(v1.contains("FROM traces WHERE"), "{v1}");
    }

    #[test]
    fn count_scores_joins_the_scores_of_the_range() {
        let mut q = base();
        q["metrics"] = json!([{"measure": "countScores", "aggregation": "sum"}]);
        let sql = compile_json(q, Version::V2).unwrap();
        assert!(sql.contains("sum(sc_n + if(parent_span_id = '', st_n, 0)) AS `sum_countScores`"), "{sql}");
        assert!(sql.contains("AS so ON so.sc_span_id = o.span_id") && sql.contains("AS st ON"), "{sql}");
        assert!(!sql.contains(" FINAL") && !sql.contains('{'), "{sql}");
    }

    #[test]
    fn listed_but_unsupported_names_say_so() {
        let mut q = base();
        q["dimensions"] = json!([{"field": "traceName"}]);
        let error = compile_json(q, Version::V1).unwrap_err().to_string();
        assert!(error.contains("`traceName` is not supported on the `observations` view"), "{error}");
        assert!(error.contains("/api/public/v2/metrics"), "{error}");
        let mut q = base();
        q["filters"] = json!([{"type": "string", "column": "userId", "operator": "=", "value": "u"}]);
        assert!(compile_json(q, Version::V1).unwrap_err().to_string().contains("`userId` is not supported"));
    }
}
