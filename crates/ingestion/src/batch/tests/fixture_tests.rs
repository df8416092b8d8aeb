//! Replays the batch requests of the legacy SDK captures (Python 2.60.10 and JS 3.39.2 send
//! everything through `/api/public/ingestion`) and checks what a production server must store,
//! applying each batch onto the records of the previous ones as a writer would.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use domain::config::WriteMode;
use domain::event::{Decimal12, Level, ObservationType};
use domain::sdk::SdkInfo;
use domain::v3::{ObservationRecord, ScoreDataType, ScoreRecord, TraceRecord};
use serde_json::Value;

use super::support::RECEIVED;
use crate::batch::{BatchContext, parse_batch};

const INGESTION_PATH: &str = "/api/public/ingestion";

pub fn fixture(name: &str) -> Value {
    let path: PathBuf =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures/sdk-captures").join(name);
    serde_json::from_slice(&std::fs::read(&path).expect("the sdk-captures fixtures are readable")).unwrap()
}

pub fn header<'a>(request: &'a Value, name: &str) -> Option<&'a str> {
    let wanted = name.replace('-', "_");
    let headers = request["headers"].as_object()?;
    headers.iter().find(|(k, _)| k.to_ascii_lowercase().replace('-', "_") == wanted)?.1.as_str()
}

pub fn context_for(request: &Value, received_at_millis: i64) -> BatchContext {
    let sdk = SdkInfo::from_headers(
        header(request, "x-langfuse-sdk-name"),
        header(request, "x-langfuse-sdk-version"),
        header(request, "x-langfuse-ingestion-version"),
    )
    .unwrap();
    BatchContext {
        project_id: "project-1".to_owned(),
        received_at_millis,
        write_mode: WriteMode::Dual,
        scores_only: false,
        public_key: header(request, "x-langfuse-public-key").unwrap_or_default().to_owned(),
        sdk,
    }
}

/// What a writer would hold after applying every batch of one capture in order.
#[derive(Default)]
struct Store {
    traces: BTreeMap<String, TraceRecord>,
    observations: BTreeMap<String, ObservationRecord>,
    scores: BTreeMap<String, ScoreRecord>,
    accounted: usize,
}

impl Store {
    fn observation(&self, name: &str) -> &ObservationRecord {
        self.observations.values().find(|o| o.name == name).unwrap_or_else(|| panic!("no observation {name}"))
    }

    fn score(&self, name: &str) -> &ScoreRecord {
        self.scores.values().find(|s| s.name == name).unwrap_or_else(|| panic!("no score {name}"))
    }

    fn trace(&self, name: &str) -> &TraceRecord {
        self.traces
            .values()
            .find(|t| t.name.as_deref() == Some(name))
            .unwrap_or_else(|| panic!("no trace {name}"))
    }
}

fn replay(file: &str) -> Store {
    let capture = fixture(file);
    let mut store = Store::default();
    let requests = capture["requests"].as_array().unwrap();
    for (seq, request) in requests.iter().enumerate() {
        assert_eq!(request["path"], INGESTION_PATH, "{file}: everything goes through the batch API");
        let body = serde_json::to_vec(&request["body"]).unwrap();
        let context = context_for(request, RECEIVED + seq as i64);
        let parsed = parse_batch(&body, &context).unwrap();
        // Every event is accounted for, and every one succeeds (the capture server said 201).
        let sent: Vec<&str> =
            request["body"]["batch"].as_array().unwrap().iter().map(|e| e["id"].as_str().unwrap()).collect();
        let ok: Vec<&str> = parsed.successes.iter().map(|r| r.id.as_str()).collect();
        assert!(parsed.errors.is_empty(), "{file} request {seq}: {:?}", parsed.errors);
        assert_eq!(ok, sent, "{file} request {seq}");
        assert_eq!(
            serde_json::to_value(parsed.response()).unwrap(),
            request["response_body"],
            "{file} request {seq}"
        );
        store.accounted += ok.len();
        for trace in parsed.traces {
            match store.traces.get_mut(&trace.id) {
                Some(record) => record.merge(&trace),
                None => {
                    store.traces.insert(trace.id.clone(), trace.into_record());
                }
            }
        }
        for observation in parsed.observations {
            match store.observations.get_mut(&observation.id) {
                Some(record) => record.merge(&observation),
                None => {
                    store.observations.insert(observation.id.clone(), observation.into_record());
                }
            }
        }
        for score in parsed.scores {
            store.scores.insert(score.id.clone(), score);
        }
    }
    store
}

fn cost(amount: f64) -> Decimal12 {
    Decimal12::from_f64(amount).unwrap()
}

fn usage(store: &Store, name: &str) -> Vec<(String, u64)> {
    store.observation(name).provided_usage_details.clone().into_iter().collect()
}

/// The trace and observations both legacy SDKs record (fixtures README).
fn assert_capture_trace(store: &Store, sdk_tag: &str) {
    let trace = store.trace("capture-trace");
    assert_eq!(trace.user_id.as_deref(), Some("user-123"));
    assert_eq!(trace.session_id.as_deref(), Some("session-abc"));
    assert_eq!(trace.tags, vec!["capture".to_owned(), sdk_tag.to_owned()]);
    assert_eq!(trace.release.as_deref(), Some("capture-release-1.0"));
    assert_eq!(trace.version.as_deref(), Some("trace-v1"));
    assert_eq!(trace.environment, "capture-env");
    assert_eq!(trace.metadata.get("tenant").map(String::as_str), Some("acme"));
    assert_eq!(trace.input.as_deref(), Some(r#"{"question":"What is the weather in Berlin?"}"#));
    assert_eq!(trace.output.as_deref(), Some(r#"{"answer":"It is 21C in Berlin."}"#));

    let root = store.observation("chat-request");
    assert_eq!(root.observation_type, Some(ObservationType::Span));
    assert_eq!(root.trace_id, trace.id);
    assert_eq!(root.parent_observation_id, None);
    assert_eq!(root.version.as_deref(), Some("app-v1"));
    assert_eq!(root.metadata.get("route").map(String::as_str), Some("/chat"));
    assert_eq!(root.output.as_deref(), Some(r#"{"answer":"It is 21C in Berlin."}"#));
    assert!(root.end_time.is_some());

    let retrieve = store.observation("retrieve-docs");
    assert_eq!(retrieve.parent_observation_id.as_deref(), Some(root.id.as_str()));
    assert_eq!(retrieve.output.as_deref(), Some(r#"[{"doc":"berlin-weather.md","score":0.87}]"#));

    let generation = store.observation("llm-call");
    assert_eq!(generation.observation_type, Some(ObservationType::Generation));
    assert_eq!(generation.provided_model_name.as_deref(), Some("gpt-4o-mini"));
    assert!(generation.model_parameters.as_deref().unwrap().contains("temperature"));
    assert_eq!(usage(store, "llm-call"), [("input".into(), 42), ("output".into(), 9), ("total".into(), 51)]);
    assert_eq!(generation.provided_cost_details.get("input"), Some(&cost(2.1e-5)));
    assert_eq!(generation.provided_cost_details.get("output"), Some(&cost(1.8e-5)));
    assert_eq!(generation.provided_cost_details.get("total"), Some(&cost(3.9e-5)));
    assert!(generation.completion_start_time.is_some_and(|t| t >= generation.start_time));
    assert_eq!(generation.metadata.get("provider").map(String::as_str), Some("openai"));
    // Compared as JSON: without serde_json's `preserve_order` the stored text has sorted keys.
    let output: Value = serde_json::from_str(generation.output.as_deref().unwrap()).unwrap();
    assert_eq!(output, serde_json::json!({"role": "assistant", "content": "It is 21C in Berlin."}));
    // Neither legacy SDK links the prompt in these captures (README: "where the SDK can link").
    assert_eq!((generation.prompt_name.as_ref(), generation.prompt_version), (None, None));

    let legacy = store.observation("llm-call-legacy-usage");
    assert_eq!(
        usage(store, "llm-call-legacy-usage"),
        [("input".into(), 3), ("output".into(), 1), ("total".into(), 4)]
    );
    assert_eq!(legacy.provided_cost_details.get("total"), Some(&cost(5e-6)));
    assert_eq!(legacy.input.as_deref(), Some("ping"));
    assert_eq!(legacy.output.as_deref(), Some("pong"));

    let guard = store.observation("guard");
    assert_eq!(guard.level, Level::Warning);
    assert_eq!(guard.status_message.as_deref(), Some("borderline content"));

    let feedback = store.observation("user-feedback-received");
    assert_eq!(feedback.observation_type, Some(ObservationType::Event));
    assert_eq!(feedback.metadata.get("source").map(String::as_str), Some("ui"));

    for observation in store.observations.values().filter(|o| o.trace_id == trace.id) {
        assert_eq!(observation.environment, "capture-env", "{}", observation.name);
        assert_eq!(observation.project_id, "project-1");
    }
}

fn assert_scores(store: &Store, trace_id: &str, sdk_name: &str, sdk_version: &str) {
    let root = store.observation("chat-request").id.clone();
    let generation = store.observation("llm-call").id.clone();
    for (name, data_type, value, string_value, observation) in [
        ("relevance", ScoreDataType::Numeric, 0.9, None, Some(root.as_str())),
        ("quality", ScoreDataType::Numeric, 0.85, None, Some(generation.as_str())),
        ("sentiment", ScoreDataType::Categorical, 0.0, Some("positive"), None),
        ("is-correct", ScoreDataType::Boolean, 1.0, Some("True"), None),
    ] {
        let score = store.score(name);
        assert_eq!(score.data_type, data_type, "{name}");
        assert_eq!(score.value, value, "{name}");
        assert_eq!(score.string_value.as_deref(), string_value, "{name}");
        assert_eq!(score.trace_id.as_deref(), Some(trace_id), "{name}");
        assert_eq!(score.observation_id.as_deref(), observation, "{name}");
        assert_eq!(score.environment, "capture-env", "{name}");
        assert_eq!(score.source, "API");
        assert_eq!(score.ingestion_api_key, "pk-lf-1234567890");
        assert_eq!(
            (score.ingestion_sdk_name.as_str(), score.ingestion_sdk_version.as_str()),
            (sdk_name, sdk_version)
        );
    }
    assert_eq!(store.score("quality").comment.as_deref(), Some("good answer"));
}

#[test]
fn python_2_60_10() {
    let store = replay("py-langfuse-2.60.10.json");
    assert_eq!(store.accounted, 22);
    assert_capture_trace(&store, "python-sdk");
    let trace_id = store.trace("capture-trace").id.clone();
    assert_scores(&store, &trace_id, "python", "2.60.10");
    assert_eq!(store.scores.len(), 4);

    // The decorator trace: three trace-create events for one trace, merged.
    let decorated = store.trace("decorated-root");
    assert_eq!(decorated.tags, vec!["decorated".to_owned()]);
    assert_eq!(decorated.user_id.as_deref(), Some("user-123"));
    assert_eq!(decorated.session_id.as_deref(), Some("session-abc"));
    assert_eq!(decorated.output.as_deref(), Some("ok"));
    assert_eq!(decorated.environment, "default");
    assert_eq!(decorated.timestamp, super::support::ms("2026-11-21T19:41:27.075Z"), "its first timestamp");
    let generation = store.observation("decorated-generation");
    assert_eq!(generation.provided_model_name.as_deref(), Some("gpt-4o-mini"));
    assert_eq!(usage(&store, "decorated-generation"), [("input".into(), 5), ("output".into(), 2)]);
    assert_eq!(store.traces.len(), 2, "no wrapper traces: every observation names its trace");
}

#[test]
fn javascript_3_39_2() {
    let store = replay("js-langfuse-3.39.2.json");
    assert_eq!(store.accounted, 17);
    assert_capture_trace(&store, "js-sdk");
    let trace = store.trace("capture-trace");
    // The second batch re-sends the trace with a later body timestamp: the first one stays.
    assert_eq!(trace.timestamp, super::support::ms("2026-11-21T19:41:34.057Z"));
    let trace_id = trace.id.clone();
    assert_scores(&store, &trace_id, "langfuse-js", "3.39.2");
    assert_eq!(store.scores.len(), 4);
    assert_eq!(store.traces.len(), 1);
    assert_eq!(store.observations.len(), 6);
}
