//! `GET /api/public/observations[/{id}]`, and the `spans` / `generations` lists, from the v3
//! `observations` table (reference/public-api.md §4.6).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use storage::clickhouse::ClickHouse;
use utoipa::ToSchema;

use crate::filter::{self, Column, Kind, col};
use crate::latest;
use crate::page::Paged;
use crate::params::PageRequest;
use crate::render::{self, Num};
use crate::sql::{self, Sql, and, equals, one_of, project, time_bound};
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

/// An ObservationsView: a row of [`VIEW_COLUMNS`] with stored JSON parsed back, and usage in both
/// the old and the new shape.
#[derive(Debug, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ObservationView {
    pub id: String,
    pub trace_id: String,
    pub project_id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub environment: String,
    pub parent_observation_id: Option<String>,
    pub start_time: String,
    pub end_time: Option<String>,
    pub name: String,
    /// Each value parsed when it is JSON (`"0"` → 0), else the text it is (`render::metadata_value`).
    #[serde(deserialize_with = "render::de_metadata")]
    #[schema(value_type = Object)]
    pub metadata: Value,
    pub level: String,
    pub status_message: Option<String>,
    pub version: Option<String>,
    #[serde(deserialize_with = "render::de_json_text")]
    #[schema(value_type = Object, nullable)]
    pub input: Value,
    #[serde(deserialize_with = "render::de_json_text")]
    #[schema(value_type = Object, nullable)]
    pub output: Value,
    pub model: Option<String>,
    pub model_id: Option<String>,
    /// `{}` when none were sent.
    #[serde(deserialize_with = "de_model_parameters")]
    #[schema(value_type = Object)]
    pub model_parameters: Value,
    pub usage_details: BTreeMap<String, u64>,
    pub cost_details: BTreeMap<String, Num>,
    pub completion_start_time: Option<String>,
    pub prompt_id: Option<String>,
    pub prompt_name: Option<String>,
    pub prompt_version: Option<u64>,
    pub created_at: String,
    pub updated_at: String,
    pub usage_pricing_tier_id: Option<String>,
    pub usage_pricing_tier_name: Option<String>,
    pub calculated_input_cost: Num,
    pub calculated_output_cost: Num,
    pub calculated_total_cost: Num,
    /// Seconds.
    pub latency: Option<Num>,
    /// Seconds.
    pub time_to_first_token: Option<Num>,
    #[serde(rename = "_deleted", skip_serializing)]
    deleted: u8,
    /// The old shape of `usageDetails`: input, output and total tokens.
    #[serde(skip_deserializing)]
    pub usage: TokenUsage,
    #[serde(skip_deserializing)]
    pub unit: &'static str,
    #[serde(skip_deserializing)]
    pub prompt_tokens: u64,
    #[serde(skip_deserializing)]
    pub completion_tokens: u64,
    #[serde(skip_deserializing)]
    pub total_tokens: u64,
    /// The prices of the model definition it was priced with (`modelId`), filled by web.
    #[serde(skip_deserializing)]
    pub input_price: Option<f64>,
    #[serde(skip_deserializing)]
    pub output_price: Option<f64>,
    #[serde(skip_deserializing)]
    pub total_price: Option<f64>,
    /// The media its input, output and metadata reference, filled by web.
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Vec<Object>>)]
    pub media_references: Option<Vec<Value>>,
}

/// Token usage in the shape of the first SDKs.
#[derive(Debug, Default, Serialize, ToSchema)]
pub struct TokenUsage {
    pub input: u64,
    pub output: u64,
    pub total: u64,
    pub unit: &'static str,
}

fn de_model_parameters<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
    Ok(match render::de_json_text(deserializer)? {
        Value::Null => Value::Object(serde_json::Map::new()),
        parameters => parameters,
    })
}

pub async fn list(
    clickhouse: &ClickHouse,
    project_id: &str,
    params: &Params,
    fixed_type: Option<&str>,
) -> Result<Paged<ObservationView>> {
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
    let rows: Vec<ObservationView> = sql.fetch(clickhouse).await?;
    let total = sql::count_rows(clickhouse, &latest).await?;
    Ok(page.page(rows.into_iter().filter_map(render_view).collect(), total))
}

pub async fn get(clickhouse: &ClickHouse, project_id: &str, id: &str) -> Result<ObservationView> {
    let mut sql = Sql::new(&format!("SELECT {VIEW_COLUMNS} FROM observations WHERE project_id = "));
    sql.bind(project_id).push(" AND id = ").bind(id).push(" ORDER BY event_ts DESC LIMIT 1");
    sql.fetch::<ObservationView>(clickhouse)
        .await?
        .into_iter()
        .next()
        .and_then(render_view)
        .ok_or_else(|| ReadError::not_found("Observation not found within authorized project"))
}

/// The view of a row, with the old usage shape derived from `usageDetails`; `None` when deleted.
pub(crate) fn render_view(mut view: ObservationView) -> Option<ObservationView> {
    if render::is_deleted(&view.deleted) {
        return None;
    }
    let n = |k: &str| view.usage_details.get(k).copied().unwrap_or(0);
    let (input, output, total) = (n("input"), n("output"), n("total"));
    view.usage = TokenUsage { input, output, total, unit: TOKENS };
    view.unit = TOKENS;
    (view.prompt_tokens, view.completion_tokens, view.total_tokens) = (input, output, total);
    Some(view)
}

const TOKENS: &str = "TOKENS";

impl render::MediaFields for ObservationView {
    fn media_field(&self, name: &str) -> Option<&Value> {
        match name {
            "input" => Some(&self.input),
            "output" => Some(&self.output),
            "metadata" => Some(&self.metadata),
            _ => None,
        }
    }

    fn set_media_references(&mut self, references: Vec<Value>) {
        self.media_references = Some(references);
    }
}

impl crate::model_prices::Priced for ObservationView {
    fn model_id(&self) -> Option<&str> {
        self.model_id.as_deref()
    }

    fn set_prices(&mut self, prices: crate::model_prices::Prices) {
        (self.input_price, self.output_price, self.total_price) = (prices.input, prices.output, prices.total);
    }
}
