//! `GET /api/public/observations[/{id}]`, and the `spans` / `generations` lists, from the v3
//! `observations` table (reference/public-api.md §4.6).

use serde_json::{Map, Value, json};
use storage::clickhouse::ClickHouse;

use crate::filter::{self, Column, Kind, col};
use crate::latest;
use crate::params::PageRequest;
use crate::render::{self, take};
use crate::sql::{self, JsonRow, Sql, and, equals, one_of, project, time_bound};
use crate::{Params, ReadError, Result};

/// Every column of an ObservationsView, under its API key.
pub(crate) const VIEW_COLUMNS: &str = "id, trace_id AS traceId, project_id AS projectId, type, environment, \
    parent_observation_id AS parentObservationId, toDateTime64(start_time, 3) AS startTime, \
    toDateTime64(end_time, 3) AS endTime, name, metadata, level, status_message AS statusMessage, version, \
    input, output, provided_model_name AS model, internal_model_id AS modelId, \
    model_parameters AS modelParameters, usage_details AS usageDetails, cost_details AS costDetails, \
    toDateTime64(completion_start_time, 3) AS completionStartTime, prompt_id AS promptId, \
    prompt_name AS promptName, prompt_version AS promptVersion, toDateTime64(created_at, 3) AS createdAt, \
    toDateTime64(updated_at, 3) AS updatedAt, usage_pricing_tier_id AS usagePricingTierId, \
    usage_pricing_tier_name AS usagePricingTierName, \
    toFloat64(arraySum(mapValues(mapFilter((k, v) -> positionCaseInsensitive(k, 'input') > 0, cost_details)))) AS calculatedInputCost, \
    toFloat64(arraySum(mapValues(mapFilter((k, v) -> positionCaseInsensitive(k, 'output') > 0, cost_details)))) AS calculatedOutputCost, \
    toFloat64(ifNull(total_cost, 0)) AS calculatedTotalCost, \
    if(isNull(end_time), NULL, date_diff('millisecond', start_time, end_time) / 1000) AS latency, \
    if(isNull(completion_start_time), NULL, date_diff('millisecond', start_time, completion_start_time) / 1000) AS timeToFirstToken, \
    is_deleted AS _deleted";

const COLUMNS: &[Column] = &[
    col("id", "id", Kind::Text),
    col("type", "type", Kind::Text),
    col("name", "name", Kind::Text),
    col("traceId", "trace_id", Kind::Text),
    col("startTime", "start_time", Kind::DateTime),
    col("endTime", "end_time", Kind::DateTime),
    col("environment", "environment", Kind::Text),
    col("level", "level", Kind::Text),
    col("statusMessage", "ifNull(status_message, '')", Kind::Text),
    col("version", "ifNull(version, '')", Kind::Text),
    col("parentObservationId", "ifNull(parent_observation_id, '')", Kind::Text),
    col("model", "ifNull(provided_model_name, '')", Kind::Text),
    col("providedModelName", "ifNull(provided_model_name, '')", Kind::Text),
    col("promptName", "ifNull(prompt_name, '')", Kind::Text),
    col("inputTokens", "usage_details['input']", Kind::Number),
    col("outputTokens", "usage_details['output']", Kind::Number),
    col("totalTokens", "usage_details['total']", Kind::Number),
    col("totalCost", "toFloat64(ifNull(total_cost, 0))", Kind::Number),
    col("latency", "(date_diff('millisecond', start_time, end_time) / 1000)", Kind::Number),
    col("metadata", "metadata", Kind::MetadataMap),
];

pub async fn list(
    clickhouse: &ClickHouse,
    project_id: &str,
    params: &Params,
    fixed_type: Option<&str>,
) -> Result<Value> {
    let page = PageRequest::parse(params)?;
    let mut conditions = Vec::new();
    if let Some(raw) = params.get("filter") {
        conditions.push(filter::to_sql(&filter::parse(raw)?, COLUMNS)?);
    }
    for (param, column) in [
        ("name", "name"),
        ("traceId", "trace_id"),
        ("level", "level"),
        ("parentObservationId", "parent_observation_id"),
        ("version", "version"),
    ] {
        if let Some(value) = params.get(param) {
            conditions.push(equals(column, value));
        }
    }
    match (fixed_type, params.get("type")) {
        (Some(t), _) | (None, Some(t)) => conditions.push(equals("type", t)),
        (None, None) => {}
    }
    let environments = params.list("environment");
    if !environments.is_empty() {
        conditions.push(one_of("environment", environments));
    }
    if let Some(user) = params.get("userId") {
        let mut sql = Sql::new("trace_id IN (SELECT id FROM traces WHERE project_id = ");
        sql.bind(project_id).push(" AND user_id = ").bind(user).push(")");
        conditions.push(sql);
    }
    for (param, op) in [("fromStartTime", ">="), ("toStartTime", "<")] {
        if let Some(at) = params.datetime(param)? {
            conditions.push(time_bound("start_time", op, at));
        }
    }
    let latest = latest::OBSERVATIONS.newest_matching(&project(project_id), &and(&conditions));
    let mut sql = Sql::new(&format!("SELECT {VIEW_COLUMNS} FROM "));
    sql.append(&latest)
        .push(" ORDER BY start_time DESC, id DESC LIMIT ")
        .bind(page.limit)
        .push(" OFFSET ")
        .bind(page.offset());
    let rows = sql.fetch_json(clickhouse).await?;
    let total = sql::count_rows(clickhouse, &latest).await?;
    let data: Vec<Value> = rows.into_iter().filter_map(render_view).collect();
    Ok(json!({ "data": data, "meta": page.meta(total) }))
}

pub async fn get(clickhouse: &ClickHouse, project_id: &str, id: &str) -> Result<Value> {
    let mut sql = Sql::new(&format!("SELECT {VIEW_COLUMNS} FROM observations WHERE project_id = "));
    sql.bind(project_id).push(" AND id = ").bind(id).push(" ORDER BY event_ts DESC LIMIT 1");
    sql.fetch_json(clickhouse)
        .await?
        .into_iter()
        .next()
        .and_then(render_view)
        .ok_or_else(|| ReadError::not_found("Observation not found within authorized project"))
}

/// The observations of some traces, newest version of each, oldest first.
pub(crate) async fn of_traces(
    clickhouse: &ClickHouse,
    project_id: &str,
    trace_ids: Vec<String>,
) -> Result<Vec<Value>> {
    let mut sql = Sql::new(&format!("SELECT {VIEW_COLUMNS} FROM observations WHERE project_id = "));
    sql.bind(project_id)
        .push(" AND trace_id IN ")
        .bind(trace_ids)
        .push(" ORDER BY event_ts DESC LIMIT 1 BY id");
    let mut views: Vec<Value> =
        sql.fetch_json(clickhouse).await?.into_iter().filter_map(render_view).collect();
    views.sort_by(|a, b| a["startTime"].as_str().cmp(&b["startTime"].as_str()));
    Ok(views)
}

/// An ObservationsView: stored JSON parsed back, usage in both the old and the new shape.
pub(crate) fn render_view(mut row: JsonRow) -> Option<Value> {
    if take(&mut row, "_deleted").as_u64() == Some(1) {
        return None;
    }
    render::parse_json_keys(&mut row, &["input", "output", "modelParameters"]);
    if row.get("modelParameters").is_none_or(Value::is_null) {
        row.insert("modelParameters".into(), json!({}));
    }
    let metadata = render::metadata_values(take(&mut row, "metadata"));
    row.insert("metadata".into(), metadata);
    let usage = row.get("usageDetails").cloned().unwrap_or_else(|| json!({}));
    let n = |k: &str| usage.get(k).and_then(Value::as_u64).unwrap_or(0);
    row.insert(
        "usage".into(),
        json!({"input": n("input"), "output": n("output"), "total": n("total"), "unit": "TOKENS"}),
    );
    row.insert("unit".into(), json!("TOKENS"));
    row.insert("promptTokens".into(), json!(n("input")));
    row.insert("completionTokens".into(), json!(n("output")));
    row.insert("totalTokens".into(), json!(n("total")));
    for key in ["inputPrice", "outputPrice", "totalPrice"] {
        row.insert(key.into(), Value::Null);
    }
    Some(Value::Object(Map::from_iter(row)))
}
