//! One observation of a trace for the UI's detail panel, and its large values in full.
//!
//! Input, output and metadata can be megabytes (a 20 MB prompt is not rare); the detail carries
//! only their first `previewChars` characters with their whole size, and [`full_value`] answers one
//! of them whole when the person asks for it. Everything else about the observation comes at once:
//! timings, model and its parameters, usage and cost by key, and its scores (on a root node, the
//! trace's own scores too: spec/v4-migration-spec.md §1.4).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use storage::clickhouse::{ClickHouse, NEWEST_BY_ID, NEWEST_BY_SPAN_ID};
use utoipa::ToSchema;

use super::{Model, trace_root_id};
use crate::render::{self, Num};
use crate::scores;
use crate::scores::v3::ScoreV3;
use crate::sql::{Sql, all_of, equals, project};
use crate::{ReadError, Result};

/// The preview length unless asked otherwise: enough for nearly every value, small enough to show
/// at once.
pub const DEFAULT_PREVIEW_CHARS: usize = 64 * 1024;
/// The longest preview one may ask for (`previewChars`).
pub const MAX_PREVIEW_CHARS: usize = 1024 * 1024;
/// The most scores shown per subject (the observation, and on a root its trace).
pub const MAX_SCORES: i64 = 50;

/// One observation in full but for its large values, which are previews.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ObservationDetail {
    pub id: String,
    pub trace_id: String,
    pub parent_observation_id: Option<String>,
    /// Whether the node stands for its trace (no parent; in the v3 views the trace node
    /// `t-<trace id>`): the trace's scores and comments are shown on it.
    pub is_root: bool,
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub level: String,
    pub status_message: Option<String>,
    pub version: Option<String>,
    pub environment: String,
    pub start_time: String,
    pub end_time: Option<String>,
    pub completion_start_time: Option<String>,
    pub model: Option<String>,
    pub model_id: Option<String>,
    /// Parsed when the stored text is JSON; text (cut at the preview length) otherwise.
    #[schema(value_type = Object, nullable)]
    pub model_parameters: Value,
    pub usage_details: BTreeMap<String, u64>,
    pub cost_details: BTreeMap<String, Num>,
    pub total_cost: Option<f64>,
    pub prompt_name: Option<String>,
    pub prompt_version: Option<u64>,
    pub user_id: Option<String>,
    pub session_id: Option<String>,
    pub tags: Vec<String>,
    pub trace_name: Option<String>,
    pub release: Option<String>,
    pub input: ValuePreview,
    pub output: ValuePreview,
    pub metadata: MetadataPreview,
    /// The observation's scores, and on a root its trace's, newest first (at most 50 of each),
    /// with their comment, config and author.
    pub scores: Vec<ScoreV3>,
}

/// The beginning of a stored value (input or output) and its size.
#[derive(Debug, Serialize, ToSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ValuePreview {
    /// The stored text (JSON, or plain text), at most the preview length in characters; `null`
    /// when there is none.
    pub preview: Option<String>,
    /// The size of the whole stored text, in bytes.
    pub bytes: u64,
    /// Whether `preview` is only the beginning of the text.
    pub truncated: bool,
}

/// The metadata with each value cut to a quarter of the preview length.
#[derive(Debug, Serialize, ToSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct MetadataPreview {
    /// Key → value, each JSON value parsed (as the public API reads metadata); a cut value is the
    /// text of its beginning.
    #[schema(value_type = Object)]
    pub values: Map<String, Value>,
    /// The size of all values, in bytes.
    pub bytes: u64,
    /// Whether any value was cut.
    pub truncated: bool,
}

/// A large value of an observation (`field=input|output|metadata`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Input,
    Output,
    Metadata,
}

impl Field {
    pub fn parse(raw: &str) -> Result<Self> {
        match raw {
            "input" => Ok(Self::Input),
            "output" => Ok(Self::Output),
            "metadata" => Ok(Self::Metadata),
            other => {
                Err(ReadError::bad_request(format!("field must be input, output or metadata, got {other:?}")))
            }
        }
    }
}

/// A value in full: the stored text of an input or output, or the metadata object.
#[derive(Debug, PartialEq)]
pub enum FullValue {
    Text(String),
    Metadata(Value),
}

/// Where one observation is read, and the column expressions of that place.
struct Source {
    /// `(…)`: the newest live version of the observation.
    from: Sql,
    /// The observation's own columns (all but the large values), under the row's keys.
    columns: String,
    input: &'static str,
    output: &'static str,
    metadata_names: &'static str,
    metadata_values: &'static str,
    root: Root,
}

enum Root {
    /// A node without a parent.
    WithoutParent,
    /// The v3 trace node.
    Always,
}

/// Total cost as the v2 observations API reads it: the stated total, else input plus output.
const EVENT_COST: &str = "if(empty(cost_details), NULL, \
    toFloat64(if(mapContains(cost_details, 'total'), cost_details['total'], calculated_total_cost)))";

fn source(model: Model, project_id: &str, trace_id: &str, observation_id: &str, chars: usize) -> Source {
    let scope = |id_column: &str, id: &str| {
        all_of(&[project(project_id), equals("trace_id", trace_id), equals(id_column, id)])
    };
    match model {
        Model::V4 => {
            let mut from = Sql::new("(SELECT *, calculated_total_cost FROM events_full WHERE ");
            from.append(&scope("span_id", observation_id)).push(NEWEST_BY_SPAN_ID).push(")");
            Source {
                from,
                columns: format!(
                    "span_id AS id, trace_id AS traceId, parent_span_id AS parentId, name, type, level, \
                     status_message AS statusMessage, version, environment, start_time AS startTime, \
                     end_time AS endTime, completion_start_time AS completionStartTime, \
                     provided_model_name AS model, model_id AS modelId, \
                     substringUTF8(model_parameters, 1, {chars}) AS modelParameters, usage_details AS usageDetails, \
                     cost_details AS costDetails, {EVENT_COST} AS totalCost, prompt_name AS promptName, \
                     prompt_version AS promptVersion, user_id AS userId, session_id AS sessionId, tags, \
                     trace_name AS traceName, release"
                ),
                input: "input",
                output: "output",
                metadata_names: "metadata_names",
                metadata_values: "metadata_values",
                root: Root::WithoutParent,
            }
        }
        Model::V3 if observation_id == trace_root_id(trace_id) => {
            let mut from = Sql::new("(SELECT * FROM traces WHERE ");
            from.append(&all_of(&[project(project_id), equals("id", trace_id)])).push(NEWEST_BY_ID).push(")");
            Source {
                from,
                columns: "concat('t-', id) AS id, id AS traceId, '' AS parentId, name, 'TRACE' AS type, \
                          'DEFAULT' AS level, '' AS statusMessage, ifNull(version, '') AS version, environment, \
                          timestamp AS startTime, NULL AS endTime, NULL AS completionStartTime, '' AS model, \
                          '' AS modelId, '' AS modelParameters, map() AS usageDetails, map() AS costDetails, \
                          NULL AS totalCost, '' AS promptName, NULL AS promptVersion, ifNull(user_id, '') AS userId, \
                          ifNull(session_id, '') AS sessionId, tags, name AS traceName, ifNull(release, '') AS release"
                    .to_owned(),
                input: "ifNull(input, '')",
                output: "ifNull(output, '')",
                metadata_names: "mapKeys(metadata)",
                metadata_values: "mapValues(metadata)",
                root: Root::Always,
            }
        }
        Model::V3 => {
            let mut from = Sql::new("(SELECT * FROM observations WHERE ");
            from.append(&scope("id", observation_id)).push(NEWEST_BY_ID).push(")");
            Source {
                from,
                columns: format!(
                    "id, trace_id AS traceId, ifNull(parent_observation_id, concat('t-', trace_id)) AS parentId, name, type, \
                     level, \
                     ifNull(status_message, '') AS statusMessage, ifNull(version, '') AS version, environment, \
                     start_time AS startTime, end_time AS endTime, completion_start_time AS completionStartTime, \
                     ifNull(provided_model_name, '') AS model, ifNull(internal_model_id, '') AS modelId, \
                     substringUTF8(ifNull(model_parameters, ''), 1, {chars}) AS modelParameters, \
                     usage_details AS usageDetails, cost_details AS costDetails, \
                     if(isNull(total_cost), NULL, toFloat64(total_cost)) AS totalCost, \
                     ifNull(prompt_name, '') AS promptName, prompt_version AS promptVersion, '' AS userId, \
                     '' AS sessionId, CAST([], 'Array(String)') AS tags, '' AS traceName, '' AS release"
                ),
                input: "ifNull(input, '')",
                output: "ifNull(output, '')",
                metadata_names: "mapKeys(metadata)",
                metadata_values: "mapValues(metadata)",
                // Its top-level observations are children of the trace node, as the backfill links them.
                root: Root::WithoutParent,
            }
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Row {
    id: String,
    trace_id: String,
    parent_id: String,
    name: String,
    #[serde(rename = "type")]
    kind: String,
    level: String,
    status_message: String,
    version: String,
    environment: String,
    start_time: String,
    end_time: Option<String>,
    completion_start_time: Option<String>,
    model: String,
    model_id: String,
    model_parameters: String,
    usage_details: BTreeMap<String, u64>,
    cost_details: BTreeMap<String, Num>,
    total_cost: Option<f64>,
    prompt_name: String,
    prompt_version: Option<u64>,
    user_id: String,
    session_id: String,
    tags: Vec<String>,
    trace_name: String,
    release: String,
    input_preview: String,
    input_bytes: u64,
    input_truncated: bool,
    output_preview: String,
    output_bytes: u64,
    output_truncated: bool,
    metadata_names: Vec<String>,
    metadata_values: Vec<String>,
    metadata_bytes: u64,
    metadata_truncated: bool,
}

fn not_found(observation_id: &str) -> ReadError {
    ReadError::not_found(format!("Observation {observation_id} not found within authorized project"))
}

/// The observation `observation_id` of `trace_id`, its values cut to `chars` characters.
pub async fn detail(
    clickhouse: &ClickHouse,
    project_id: &str,
    trace_id: &str,
    observation_id: &str,
    model: Model,
    chars: usize,
) -> Result<ObservationDetail> {
    let chars = chars.clamp(1, MAX_PREVIEW_CHARS);
    let metadata_chars = (chars / 4).max(1);
    let src = source(model, project_id, trace_id, observation_id, chars);
    let preview = |name: &str, expr: &str| {
        format!(
            "substringUTF8({expr}, 1, {chars}) AS {name}Preview, length({expr}) AS {name}Bytes, \
             toBool(lengthUTF8({expr}) > {chars}) AS {name}Truncated"
        )
    };
    let (names, values) = (src.metadata_names, src.metadata_values);
    let mut sql = Sql::new(&format!(
        "SELECT {}, {}, {}, {names} AS metadataNames, \
         arrayMap(v -> substringUTF8(v, 1, {metadata_chars}), {values}) AS metadataValues, \
         arraySum(arrayMap(v -> length(v), {values})) AS metadataBytes, \
         toBool(arrayExists(v -> lengthUTF8(v) > {metadata_chars}, {values})) AS metadataTruncated FROM ",
        src.columns,
        preview("input", src.input),
        preview("output", src.output),
    ));
    sql.append(&src.from).push(" WHERE is_deleted = 0");
    let row: Row =
        sql.fetch(clickhouse).await?.into_iter().next().ok_or_else(|| not_found(observation_id))?;
    let is_root = match src.root {
        Root::Always => true,
        Root::WithoutParent => row.parent_id.is_empty(),
    };
    let roots = if is_root { vec![row.trace_id.clone()] } else { Vec::new() };
    let groups = ["core", "subject", "details", "annotation"];
    let scores =
        scores::on_observations(clickhouse, project_id, vec![row.id.clone()], roots, MAX_SCORES, &groups)
            .await?
            .into_iter()
            .map(|(_, score)| score)
            .collect();
    Ok(into_detail(row, is_root, scores))
}

fn text(value: String) -> Option<String> {
    Some(value).filter(|v| !v.is_empty())
}

fn into_detail(row: Row, is_root: bool, scores: Vec<ScoreV3>) -> ObservationDetail {
    let value = |preview: String, bytes: u64, truncated: bool| ValuePreview {
        preview: text(preview),
        bytes,
        truncated,
    };
    let mut values: Map<String, Value> = Map::new();
    for (key, text) in row.metadata_names.into_iter().zip(row.metadata_values) {
        values.insert(key, render::metadata_value(text));
    }
    let model_parameters = match text(row.model_parameters) {
        None => Value::Null,
        Some(params) => serde_json::from_str(&params).unwrap_or(Value::String(params)),
    };
    ObservationDetail {
        id: row.id,
        trace_id: row.trace_id,
        parent_observation_id: text(row.parent_id),
        is_root,
        name: row.name,
        kind: row.kind,
        level: row.level,
        status_message: text(row.status_message),
        version: text(row.version),
        environment: row.environment,
        start_time: row.start_time,
        end_time: row.end_time,
        completion_start_time: row.completion_start_time,
        model: text(row.model),
        model_id: text(row.model_id),
        model_parameters,
        usage_details: row.usage_details,
        cost_details: row.cost_details,
        total_cost: row.total_cost,
        prompt_name: text(row.prompt_name),
        prompt_version: row.prompt_version.filter(|v| *v > 0),
        user_id: text(row.user_id),
        session_id: text(row.session_id),
        tags: row.tags,
        trace_name: text(row.trace_name),
        release: text(row.release),
        input: value(row.input_preview, row.input_bytes, row.input_truncated),
        output: value(row.output_preview, row.output_bytes, row.output_truncated),
        metadata: MetadataPreview { values, bytes: row.metadata_bytes, truncated: row.metadata_truncated },
        scores,
    }
}

/// One large value of the observation, whole. Its size is what ingestion accepted (at most
/// `LANGFUSE_INGESTION_MAX_BODY_BYTES`), read once into memory.
pub async fn full_value(
    clickhouse: &ClickHouse,
    project_id: &str,
    trace_id: &str,
    observation_id: &str,
    model: Model,
    field: Field,
) -> Result<FullValue> {
    let src = source(model, project_id, trace_id, observation_id, 1);
    match field {
        Field::Input | Field::Output => {
            #[derive(Deserialize)]
            struct Text {
                value: String,
            }
            let expr = if field == Field::Input { src.input } else { src.output };
            let mut sql = Sql::new(&format!("SELECT {expr} AS value FROM "));
            sql.append(&src.from).push(" WHERE is_deleted = 0");
            let row: Option<Text> = sql.fetch(clickhouse).await?.into_iter().next();
            Ok(FullValue::Text(row.ok_or_else(|| not_found(observation_id))?.value))
        }
        Field::Metadata => {
            #[derive(Deserialize)]
            struct Metadata {
                names: Vec<String>,
                values: Vec<String>,
            }
            let mut sql = Sql::new(&format!(
                "SELECT {} AS names, {} AS values FROM ",
                src.metadata_names, src.metadata_values
            ));
            sql.append(&src.from).push(" WHERE is_deleted = 0");
            let row: Option<Metadata> = sql.fetch(clickhouse).await?.into_iter().next();
            let row = row.ok_or_else(|| not_found(observation_id))?;
            let map =
                row.names.into_iter().zip(row.values).map(|(k, v)| (k, render::metadata_value(v))).collect();
            Ok(FullValue::Metadata(Value::Object(map)))
        }
    }
}
