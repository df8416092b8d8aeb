//! The query strings of the read routes, for the OpenAPI document only: the handlers take the
//! raw query (`reads::Params`, which keeps repeated keys and comma-separated lists as the SDKs
//! send both), so these structs are never built. Names and types are as the Langfuse SDKs'
//! generated clients send them.

#![allow(dead_code)] // documentation of the query strings; `reads::Params` parses them

use chrono::{DateTime, Utc};
use utoipa::IntoParams;

/// `page` (from 1) and `limit` (1–100, default 50) of the legacy lists.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageQuery {
    page: Option<i64>,
    limit: Option<i64>,
}

#[derive(IntoParams)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct ObservationsV2Query {
    /// Field groups, comma-separated: core, basic, time, io, metadata, model, usage, prompt,
    /// metrics, trace_context, scores (default `core,basic`).
    fields: Option<String>,
    /// Metadata keys whose values are not cut to 200 characters.
    expand_metadata: Option<String>,
    /// 1–1000, default 50.
    limit: Option<i64>,
    cursor: Option<String>,
    /// Only `false`: parse input and output on the client.
    parse_io_as_json: Option<bool>,
    /// With `fields=scores`: at most this many scores per observation (1–50, default 50).
    score_limit: Option<i64>,
    name: Option<String>,
    user_id: Option<String>,
    session_id: Option<String>,
    #[param(rename = "type")]
    kind: Option<String>,
    trace_id: Option<String>,
    level: Option<String>,
    parent_observation_id: Option<String>,
    is_root_observation: Option<bool>,
    environment: Option<Vec<String>>,
    from_start_time: Option<DateTime<Utc>>,
    to_start_time: Option<DateTime<Utc>>,
    version: Option<String>,
    /// A JSON array of `{type, column, operator, value}` filters.
    filter: Option<String>,
}

#[derive(IntoParams)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct ScoresV3Query {
    /// 1–100, default 50.
    limit: Option<i64>,
    cursor: Option<String>,
    /// Field groups, comma-separated: core, details, subject, annotation.
    fields: Option<String>,
    id: Option<String>,
    name: Option<String>,
    source: Option<String>,
    data_type: Option<String>,
    environment: Option<String>,
    config_id: Option<String>,
    queue_id: Option<String>,
    author_user_id: Option<String>,
    value: Option<String>,
    value_min: Option<f64>,
    value_max: Option<f64>,
    trace_id: Option<String>,
    session_id: Option<String>,
    observation_id: Option<String>,
    experiment_id: Option<String>,
    from_timestamp: Option<DateTime<Utc>>,
    to_timestamp: Option<DateTime<Utc>>,
}

#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
pub struct MetricsQuery {
    /// The JSON query object: view, dimensions, metrics, filters, timeDimension, fromTimestamp,
    /// toTimestamp, orderBy, config.
    query: String,
}

#[derive(IntoParams)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct ExperimentsQuery {
    /// Field groups, comma-separated: core, metadata, scores.
    fields: Option<String>,
    limit: Option<i64>,
    score_limit: Option<i64>,
    cursor: Option<String>,
    from_start_time: DateTime<Utc>,
    to_start_time: Option<DateTime<Utc>>,
    id: Option<String>,
    name: Option<String>,
    dataset_id: Option<String>,
    filter: Option<String>,
}

#[derive(IntoParams)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct ExperimentItemsQuery {
    /// Field groups, comma-separated: core, dataset, io, metadata, itemMetadata,
    /// experimentMetadata, scores.
    fields: Option<String>,
    limit: Option<i64>,
    score_limit: Option<i64>,
    cursor: Option<String>,
    from_start_time: DateTime<Utc>,
    to_start_time: Option<DateTime<Utc>>,
    experiment_id: Option<String>,
    experiment_name: Option<String>,
    experiment_item_id: Option<String>,
    dataset_id: Option<String>,
    filter: Option<String>,
}

#[derive(IntoParams)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct TracesQuery {
    user_id: Option<String>,
    name: Option<String>,
    session_id: Option<String>,
    from_timestamp: Option<DateTime<Utc>>,
    to_timestamp: Option<DateTime<Utc>>,
    /// `<field>.<asc|desc>`.
    order_by: Option<String>,
    tags: Option<Vec<String>>,
    version: Option<String>,
    release: Option<String>,
    environment: Option<Vec<String>>,
    /// Field groups, comma-separated: core, io, scores, observations, metrics (default all).
    fields: Option<String>,
    filter: Option<String>,
}

#[derive(IntoParams)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct ObservationsQuery {
    name: Option<String>,
    user_id: Option<String>,
    /// Not on `/spans` and `/generations`, whose type is fixed.
    #[param(rename = "type")]
    kind: Option<String>,
    trace_id: Option<String>,
    level: Option<String>,
    parent_observation_id: Option<String>,
    environment: Option<Vec<String>>,
    from_start_time: Option<DateTime<Utc>>,
    to_start_time: Option<DateTime<Utc>>,
    version: Option<String>,
    filter: Option<String>,
}

#[derive(IntoParams)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct SessionsQuery {
    from_timestamp: Option<DateTime<Utc>>,
    to_timestamp: Option<DateTime<Utc>>,
    environment: Option<Vec<String>>,
}

#[derive(IntoParams)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct ScoresQuery {
    user_id: Option<String>,
    name: Option<String>,
    from_timestamp: Option<DateTime<Utc>>,
    to_timestamp: Option<DateTime<Utc>>,
    environment: Option<Vec<String>>,
    source: Option<String>,
    /// Compares `value`: one of <, >, <=, >=, !=, = (default =).
    operator: Option<String>,
    value: Option<f64>,
    score_ids: Option<String>,
    config_id: Option<String>,
    queue_id: Option<String>,
    data_type: Option<String>,
    trace_tags: Option<Vec<String>>,
    /// v2 only.
    session_id: Option<String>,
    /// v2 only.
    dataset_run_id: Option<String>,
    /// v2 only.
    trace_id: Option<String>,
    /// v2 only.
    observation_id: Option<String>,
    /// Leave out `trace` to get no `trace` object.
    fields: Option<String>,
    filter: Option<String>,
}

#[derive(IntoParams)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct DailyMetricsQuery {
    trace_name: Option<String>,
    user_id: Option<String>,
    tags: Option<Vec<String>>,
    environment: Option<Vec<String>>,
    from_timestamp: Option<DateTime<Utc>>,
    to_timestamp: Option<DateTime<Utc>>,
}
