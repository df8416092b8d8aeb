//! What every recorded client's spans become in `events_full`, field by field, through the whole
//! path (HTTP or gRPC, blob, stream, worker, ClickHouse): the span tree, trace attributes, types,
//! levels, times, usage and cost, metadata, prompt link, input and output. The expected rows are the
//! span mapping's own output for the same export (`ingestion::otel::convert`, whose rules the unit
//! tests pin per capture), so what this checks is that nothing on the way loses or alters a field.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use domain::event::Event;
use domain::sdk::SdkInfo;
use ingestion::otel::{ConvertContext, convert, parse_with_limit};

use crate::apps::Stack;
use crate::fixtures::Recorded;

/// The compared fields of an event, as the query below renders them.
fn expected_row(event: &Event) -> Value {
    let micros = |at: Option<i64>| at.map_or(Value::Null, Value::from);
    let costs: Map<String, Value> = event
        .provided_cost_details
        .iter()
        .map(|(k, v)| (k.clone(), json!(format!("{:.9}", v.0 as f64 / 1e12))))
        .collect();
    json!({
        "trace_id": event.trace_id,
        "parent_span_id": event.parent_span_id,
        "name": event.name,
        "type": event.observation_type.as_str(),
        "level": event.level.as_str(),
        "status_message": event.status_message,
        "environment": event.environment,
        "version": event.version,
        "release": event.release,
        "trace_name": event.trace_name,
        "user_id": event.user_id,
        "session_id": event.session_id,
        "tags": event.tags,
        "start_time": event.start_time,
        "end_time": micros(event.end_time),
        "completion_start_time": micros(event.completion_start_time),
        "input": event.input,
        "output": event.output,
        "metadata": event.metadata,
        "usage": event.provided_usage_details,
        "costs": costs,
        "model": event.provided_model_name,
        "prompt_name": event.prompt_name,
        "prompt_version": event.prompt_version,
        "experiment_id": event.experiment.as_ref().map(|e| e.id.clone()).unwrap_or_default(),
        "experiment_item_root": event.experiment.as_ref().map(|e| e.item_root_span_id.clone()).unwrap_or_default(),
    })
}

const STORED: &str = "SELECT span_id, trace_id, parent_span_id, name, toString(type) AS type, toString(level) AS level, \
    status_message, toString(environment) AS environment, version, release, trace_name, user_id, session_id, tags, \
    toUnixTimestamp64Micro(start_time) AS start_time, toUnixTimestamp64Micro(end_time) AS end_time, \
    toUnixTimestamp64Micro(completion_start_time) AS completion_start_time, input, output, \
    mapFromArrays(metadata_names, metadata_values) AS metadata, provided_usage_details AS usage, \
    mapApply((k, v) -> (k, toString(round(toFloat64(v), 9))), provided_cost_details) AS costs, \
    provided_model_name AS model, prompt_name, prompt_version, experiment_id, \
    experiment_item_root_span_id AS experiment_item_root \
    FROM events_full FINAL WHERE project_id = 'project-blackbox'";

/// Every stored event by span id, with the compared fields.
pub async fn stored_rows(stack: &Stack) -> BTreeMap<String, Value> {
    let mut cursor = stack
        .ch
        .client()
        .query(STORED)
        .with_setting("output_format_json_quote_64bit_integers", "0")
        .fetch_bytes("JSONEachRow")
        .unwrap();
    let bytes = cursor.collect().await.unwrap();
    bytes
        .split(|b| *b == b'\n')
        .filter(|line| !line.is_empty())
        .map(|line| {
            let mut row: Map<String, Value> = serde_json::from_slice(line).unwrap();
            let id = row.remove("span_id").and_then(|v| v.as_str().map(str::to_owned)).unwrap();
            // The engine prints costs as `0.00123`; the expectation as `0.001230000`.
            if let Some(Value::Object(costs)) = row.get_mut("costs") {
                for cost in costs.values_mut() {
                    let parsed: f64 = cost.as_str().unwrap().parse().unwrap();
                    *cost = json!(format!("{parsed:.9}"));
                }
            }
            (id, Value::Object(row))
        })
        .collect()
}

/// What the span mapping makes of a recorded request, by span id.
pub fn expected_rows(request: &Recorded) -> BTreeMap<String, Value> {
    let export = parse_with_limit(&request.body, Some(&request.content_type), None, usize::MAX).unwrap();
    let context = ConvertContext {
        project_id: "project-blackbox".into(),
        received_at: 0,
        blob_storage_file_path: String::new(),
        sdk: SdkInfo::default(),
        public_key: String::new(),
        events_only: false,
    };
    convert(&export, &context)
        .into_iter()
        .map(|span| (span.event.span_id.clone(), expected_row(&span.event)))
        .collect()
}

/// Asserts that every expected span is stored with exactly the expected fields.
pub fn assert_stored(label: &str, expected: &BTreeMap<String, Value>, stored: &BTreeMap<String, Value>) {
    for (span_id, want) in expected {
        let got = stored.get(span_id).unwrap_or_else(|| panic!("{label}: span {span_id} is not stored"));
        for (field, value) in want.as_object().unwrap() {
            assert_eq!(&got[field], value, "{label}: span {span_id}, field `{field}`\nstored: {got}");
        }
    }
}
