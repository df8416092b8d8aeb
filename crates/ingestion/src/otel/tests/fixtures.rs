//! Replays every OTLP request of the SDK captures (`/work/shared/fixtures/sdk-captures`) through
//! decode and convert, and checks what a production server must store. Where a client does not
//! send something (fixtures README), the test asserts its absence instead of skipping.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use domain::event::{Decimal12, Level, ObservationType};
use domain::sdk::SdkInfo;
use flate2::Compression;
use flate2::write::GzEncoder;
use serde_json::Value;

use crate::otel::{ConvertContext, ConvertedSpan, TraceAttributes, convert, decode};

const OTLP_PATH: &str = "/api/public/otel/v1/traces";

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures/sdk-captures")
}

/// One captured OTLP request, ready to replay.
pub struct Capture {
    pub file: String,
    pub body: Vec<u8>,
    pub content_type: String,
    pub content_encoding: Option<String>,
    /// The request as OTLP/JSON (protobuf bodies decoded by the capture tool): the reference for
    /// ids, names and timestamps.
    pub json: Value,
    pub sdk: SdkInfo,
}

fn header<'a>(headers: &'a Value, name: &str) -> Option<&'a str> {
    let wanted = name.replace('-', "_");
    headers.as_object()?.iter().find(|(k, _)| k.to_ascii_lowercase().replace('-', "_") == wanted)?.1.as_str()
}

pub fn captures() -> Vec<Capture> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixtures_dir())
        .expect("the sdk-captures fixtures are readable")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let mut captures = Vec::new();
    for path in files {
        let fixture: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        for request in fixture["requests"].as_array().unwrap() {
            if request["path"] != OTLP_PATH {
                continue;
            }
            let content_encoding =
                request["content_encoding"].as_str().filter(|e| !e.is_empty()).map(str::to_owned);
            let body = match request["body_base64"].as_str() {
                Some(b64) => {
                    let raw = base64::engine::general_purpose::STANDARD.decode(b64).unwrap();
                    // The capture stores bodies decompressed; compress again to replay byte-exact.
                    if content_encoding.as_deref() == Some("gzip") { gzip(&raw) } else { raw }
                }
                None => serde_json::to_vec(&request["body"]).unwrap(),
            };
            let headers = &request["headers"];
            let sdk = SdkInfo::from_headers(
                header(headers, "x-langfuse-sdk-name"),
                header(headers, "x-langfuse-sdk-version"),
                header(headers, "x-langfuse-ingestion-version"),
            )
            .unwrap();
            captures.push(Capture {
                file: path.file_name().unwrap().to_string_lossy().into_owned(),
                body,
                content_type: request["content_type"].as_str().unwrap().to_owned(),
                content_encoding,
                json: request["body"].clone(),
                sdk,
            });
        }
    }
    captures
}

pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::default());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

fn context(sdk: SdkInfo) -> ConvertContext {
    ConvertContext {
        project_id: "project-1".into(),
        received_at: 1_800_000_000_000_000,
        blob_storage_file_path: "otel/project-1/raw.json".into(),
        sdk,
        public_key: "pk-lf-1234567890".into(),
        events_only: false,
    }
}

pub fn replay(capture: &Capture) -> Vec<ConvertedSpan> {
    let request = decode(&capture.body, Some(&capture.content_type), capture.content_encoding.as_deref())
        .unwrap_or_else(|e| panic!("{}: {e}", capture.file));
    convert(&request, &context(capture.sdk.clone()))
}

/// What each client sends, from the fixtures README.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Client {
    Python3,
    /// Python 4.x and 5.x: trace attributes propagated to every span.
    Python,
    JavaScript,
    PlainOtel,
}

fn client(file: &str) -> Client {
    match file {
        f if f.starts_with("py-langfuse-3.") => Client::Python3,
        f if f.starts_with("py-langfuse-") => Client::Python,
        f if f.starts_with("js-langfuse-otel-") => Client::JavaScript,
        f if f.starts_with("otel-python-") => Client::PlainOtel,
        other => panic!("no expectations for {other}"),
    }
}

#[test]
fn every_otlp_capture_is_replayed() {
    let files: Vec<String> = captures().into_iter().map(|c| c.file).collect();
    assert_eq!(files.len(), 11, "{files:?}");
    for capture in captures() {
        check_capture(&capture);
    }
}

fn by_name<'a>(spans: &'a [ConvertedSpan], name: &str) -> &'a ConvertedSpan {
    spans.iter().find(|s| s.event.name == name).unwrap_or_else(|| panic!("no span named {name}"))
}

fn check_capture(capture: &Capture) {
    let file = capture.file.as_str();
    let kind = client(file);
    let spans = replay(capture);
    check_against_wire(capture, &spans);

    // The tree: one root `chat-request`, every other span its child, one trace.
    let root = by_name(&spans, "chat-request");
    assert!(root.is_root && root.event.parent_span_id.is_empty(), "{file}");
    for span in &spans {
        assert_eq!(span.event.trace_id, root.event.trace_id, "{file}");
        if span.event.span_id != root.event.span_id {
            assert_eq!(span.event.parent_span_id, root.event.span_id, "{file} {}", span.event.name);
            assert!(!span.is_root, "{file}");
        }
    }
    let tool_name = match kind {
        Client::Python3 | Client::Python => "decorated-tool",
        Client::JavaScript => "lookup-weather",
        Client::PlainOtel => "failing-tool",
    };
    let generation_name = if kind == Client::PlainOtel { "chat gpt-4o-mini" } else { "llm-call" };
    let mut names: Vec<&str> = spans.iter().map(|s| s.event.name.as_str()).collect();
    names.sort_unstable();
    let mut expected = vec!["chat-request", "retrieve-docs", tool_name, generation_name];
    if kind != Client::PlainOtel {
        // Plain OTel records the feedback as a span event, and has no guard span.
        expected.extend(["guard", "user-feedback-received"]);
    }
    expected.sort_unstable();
    assert_eq!(names, expected, "{file}");

    // Types and levels.
    assert_eq!(root.event.observation_type, ObservationType::Span, "{file}");
    assert_eq!(by_name(&spans, "retrieve-docs").event.observation_type, ObservationType::Retriever, "{file}");
    let tool = by_name(&spans, tool_name);
    assert_eq!(tool.event.observation_type, ObservationType::Tool, "{file}");
    if kind == Client::PlainOtel {
        assert_eq!(tool.event.level, Level::Error, "{file}: OTel ERROR status");
        assert_eq!(tool.event.status_message, "weather API timeout", "{file}");
    } else {
        assert_eq!(tool.event.level, Level::Default, "{file}");
        let guard = by_name(&spans, "guard");
        // Python 3 has no guardrail type: the capture sends `span`.
        let guard_type =
            if kind == Client::Python3 { ObservationType::Span } else { ObservationType::Guardrail };
        assert_eq!(guard.event.observation_type, guard_type, "{file}");
        assert_eq!(guard.event.level, Level::Warning, "{file}");
        assert_eq!(guard.event.status_message, "borderline content", "{file}");
        assert!(!guard.event.output.is_empty(), "{file}");
        let feedback = by_name(&spans, "user-feedback-received");
        assert_eq!(feedback.event.observation_type, ObservationType::Event, "{file}");
        assert_eq!(feedback.event.input, input_of(capture, "user-feedback-received"), "{file}");
        assert_eq!(feedback.event.metadata.get("source").map(String::as_str), Some("ui"), "{file}");
    }
    for span in &spans {
        if span.event.name != tool_name && span.event.name != "guard" {
            assert_eq!(span.event.level, Level::Default, "{file} {}", span.event.name);
        }
    }

    check_generation(file, kind, by_name(&spans, generation_name));
    check_trace_attributes(file, kind, &spans, root);

    // Input and output where the client sends them.
    for span in [root, by_name(&spans, "retrieve-docs"), tool] {
        let expect_io = !(kind == Client::PlainOtel && span.event.name == tool_name);
        assert_eq!(!span.event.input.is_empty(), expect_io, "{file} {} input", span.event.name);
        if span.event.name != tool_name || kind != Client::PlainOtel {
            assert!(!span.event.output.is_empty(), "{file} {} output", span.event.name);
        }
    }
}

/// Ids, names and timestamps equal what the client put on the wire.
fn check_against_wire(capture: &Capture, spans: &[ConvertedSpan]) {
    let wire: Vec<&Value> = capture.json["resourceSpans"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["scopeSpans"].as_array().unwrap())
        .flat_map(|s| s["spans"].as_array().unwrap())
        .collect();
    assert_eq!(wire.len(), spans.len(), "{}", capture.file);
    let micros = |v: &Value| v.as_str().unwrap().parse::<i64>().unwrap() / 1000;
    for (span, wire) in spans.iter().zip(wire) {
        let event = &span.event;
        assert_eq!(event.span_id, wire["spanId"].as_str().unwrap());
        assert_eq!(event.trace_id, wire["traceId"].as_str().unwrap());
        assert_eq!(event.parent_span_id, wire["parentSpanId"].as_str().unwrap_or_default());
        assert_eq!(event.name, wire["name"].as_str().unwrap());
        assert_eq!(event.start_time, micros(&wire["startTimeUnixNano"]), "{}", capture.file);
        assert_eq!(event.end_time, Some(micros(&wire["endTimeUnixNano"])));
        assert_eq!((event.project_id.as_str(), event.source), ("project-1", "otel"));
        assert_eq!(event.created_at, 1_800_000_000_000_000);
        assert_eq!(&*event.ingestion_api_key, "pk-lf-1234567890");
        assert!(event.event_bytes > 0);
    }
}

fn input_of(capture: &Capture, span_name: &str) -> String {
    let spans = capture.json["resourceSpans"][0]["scopeSpans"][0]["spans"].as_array().unwrap();
    let span = spans.iter().find(|s| s["name"] == span_name).unwrap();
    let attribute =
        span["attributes"].as_array().unwrap().iter().find(|a| a["key"] == "langfuse.observation.input");
    attribute.unwrap()["value"]["stringValue"].as_str().unwrap().to_owned()
}

fn check_generation(file: &str, kind: Client, generation: &ConvertedSpan) {
    let event = &generation.event;
    assert_eq!(event.observation_type, ObservationType::Generation, "{file}");
    assert_eq!(event.provided_model_name, "gpt-4o-mini", "{file}");
    let parameters: Value = serde_json::from_str(&event.model_parameters).unwrap();
    assert_eq!(parameters, serde_json::json!({"temperature": 0.2, "max_tokens": 256}), "{file}");
    let usage =
        BTreeMap::from([("input".to_owned(), 42), ("output".to_owned(), 9), ("total".to_owned(), 51)]);
    assert_eq!(event.provided_usage_details, usage, "{file}");
    assert_eq!(event.usage_details, usage, "{file}");
    let cost: BTreeMap<String, Decimal12> = [("input", 2.1e-5), ("output", 1.8e-5), ("total", 3.9e-5)]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), Decimal12::from_f64(v).unwrap()))
        .collect();
    assert_eq!(event.provided_cost_details, cost, "{file}");
    assert_eq!(event.cost_details, cost, "{file}");
    assert!(!event.input.is_empty() && !event.output.is_empty(), "{file}");
    assert_eq!(event.metadata.get("provider").map(String::as_str), Some("openai"), "{file}");
    if kind == Client::PlainOtel {
        // No prompt link or completion start in plain OTel; I/O from GenAI conventions.
        assert_eq!((event.prompt_name.as_str(), event.prompt_version), ("", None), "{file}");
        assert_eq!(event.completion_start_time, None, "{file}");
        let input: Value = serde_json::from_str(&event.input).unwrap();
        assert_eq!(input[0]["content"], "What is the weather in Berlin?", "{file}");
        let output: Value = serde_json::from_str(&event.output).unwrap();
        assert_eq!(output, serde_json::json!([{"role": "assistant", "content": "It is 21C in Berlin."}]));
        assert_eq!(event.metadata.get("attributes.gen_ai.system").map(String::as_str), Some("openai"));
        return;
    }
    assert_eq!((event.prompt_name.as_str(), event.prompt_version), ("capture-prompt", Some(1)), "{file}");
    let completion_start = event.completion_start_time.expect("completion start time");
    assert!(completion_start > event.start_time, "{file}");
    assert!(completion_start <= event.end_time.unwrap() + 1_000, "{file}");
    let input: Value = serde_json::from_str(&event.input).unwrap();
    assert_eq!(input[1]["content"], "What is the weather in Berlin?", "{file}");
    assert!(
        !event.metadata.keys().any(|k| k.starts_with("attributes.")),
        "{file}: SDK spans keep no raw attributes"
    );
}

fn check_trace_attributes(file: &str, kind: Client, spans: &[ConvertedSpan], root: &ConvertedSpan) {
    let second_tag = match kind {
        Client::Python3 | Client::Python => "python-sdk",
        Client::JavaScript => "js-sdk",
        Client::PlainOtel => "plain-otel",
    };
    let tags = vec!["capture".to_owned(), second_tag.to_owned()];
    let propagated = matches!(kind, Client::Python | Client::JavaScript);
    for span in spans {
        let (event, name) = (&span.event, span.event.name.as_str());
        let carries = propagated || span.is_root;
        assert_eq!(event.environment, "capture-env", "{file} {name}");
        assert_eq!(event.user_id == "user-123", carries, "{file} {name}");
        assert_eq!(event.session_id == "session-abc", carries, "{file} {name}");
        assert_eq!(event.trace_name == "capture-trace", carries, "{file} {name}");
        assert_eq!(event.tags == tags, carries, "{file} {name}");
        assert_eq!(
            event.metadata.get("tenant").map(String::as_str) == Some("acme"),
            carries,
            "{file} {name}"
        );
        assert_eq!(span.has_trace_update, carries, "{file} {name}");
        // Release: the Python SDK sets it on the resource; JS and plain OTel only on spans.
        let has_release = kind != Client::PlainOtel || span.is_root;
        assert_eq!(event.release == "capture-release-1.0", has_release, "{file} {name}");
        let version = if kind == Client::PlainOtel {
            "1.2.3"
        } else if carries {
            "trace-v1"
        } else {
            ""
        };
        assert_eq!(event.version, version, "{file} {name}");
        assert!(!event.public, "{file} {name}");
        let scope = if kind == Client::PlainOtel { "capture.manual" } else { "langfuse-sdk" };
        assert_eq!(event.metadata.get("scope.name").map(String::as_str), Some(scope), "{file}");
        assert_eq!(event.origin.scope_name, scope, "{file}");
        assert!(event.metadata.contains_key("resourceAttributes.service.name"), "{file}");
        assert!(!event.origin.service_name.is_empty() && !event.origin.telemetry_sdk_language.is_empty());
        if !carries {
            assert_eq!(span.trace.name, None, "{file} {name}: shallow trace");
            assert_eq!(span.trace.user_id, None, "{file} {name}");
        }
    }

    let trace = &root.trace;
    assert_eq!(trace.name.as_deref(), Some("capture-trace"), "{file}");
    assert_eq!(trace.user_id.as_deref(), Some("user-123"), "{file}");
    assert_eq!(trace.session_id.as_deref(), Some("session-abc"), "{file}");
    assert_eq!(trace.tags.as_ref(), Some(&tags), "{file}");
    assert_eq!(trace.environment, "capture-env", "{file}");
    // Stated on the span, or only on the resource (Python 3), which implies it.
    let release = trace.release.as_ref().or(trace.implied.release.as_ref());
    assert_eq!(release.map(String::as_str), Some("capture-release-1.0"), "{file}");
    assert_eq!(trace.metadata.get("tenant").map(String::as_str), Some("acme"), "{file}");
    assert_eq!(trace.timestamp, root.event.start_time, "{file}");
    // Python 3 and plain OTel set `public` (false); the others do not send it.
    let public = matches!(kind, Client::Python3 | Client::PlainOtel).then_some(false);
    assert_eq!(trace.public, public, "{file}");
    // Trace input: `langfuse.trace.input` where sent, else the root observation's (Python 5).
    let trace_input: Value = serde_json::from_str(trace.input.as_deref().unwrap()).unwrap();
    assert_eq!(trace_input["question"], "What is the weather in Berlin?", "{file}");
    let trace_output: Value = serde_json::from_str(trace.output.as_deref().unwrap()).unwrap();
    assert_eq!(trace_output["answer"], "It is 21C in Berlin.", "{file}");
    assert_eq!(
        root.event.metadata.get("route").map(String::as_str),
        (kind != Client::PlainOtel).then_some("/chat")
    );
    if kind != Client::PlainOtel {
        assert_eq!(root.event.metadata.get("attempt").map(String::as_str), Some("1"), "{file}");
    }
    // `is_app_root` is sent by Python ≥ 4.14 and JS 5 (fixtures README).
    let app_root = matches!(kind, Client::Python) || file.starts_with("js-langfuse-otel-5");
    assert_eq!(root.event.is_app_root, app_root, "{file}");
    assert!(spans.iter().filter(|s| !s.is_root).all(|s| !s.event.is_app_root), "{file}");
}

#[test]
fn sdk_headers_are_attributed() {
    for capture in captures() {
        let spans = replay(&capture);
        let expected_name = match client(&capture.file) {
            Client::Python3 | Client::Python => "python",
            Client::JavaScript => "javascript",
            Client::PlainOtel => "unknown",
        };
        for span in &spans {
            assert_eq!(&*span.event.ingestion_sdk_name, expected_name, "{}", capture.file);
            let version = capture.sdk.version.clone().unwrap_or_else(|| "unknown".into());
            assert_eq!(*span.event.ingestion_sdk_version, *version, "{}", capture.file);
        }
    }
}

#[test]
fn plain_otel_root_keeps_unknown_attributes_and_trace_io() {
    let capture = captures().into_iter().find(|c| c.file == "otel-python-json-0.66b1.json").unwrap();
    let spans = replay(&capture);
    let root = by_name(&spans, "chat-request");
    let metadata = &root.event.metadata;
    assert_eq!(metadata.get("attributes.langfuse.user.id").map(String::as_str), Some("user-123"));
    assert!(!metadata.contains_key("attributes.input.value"), "input/output keys are stored as input/output");
    assert_eq!(root.event.input, r#"{"question": "What is the weather in Berlin?"}"#);
    assert_eq!(
        metadata.get("resourceAttributes.deployment.environment").map(String::as_str),
        Some("capture-env")
    );
}

/// The captures hold protobuf requests also in their OTLP/JSON form (int64 as strings, hex ids):
/// decoding that JSON must give the very same events as the protobuf bytes.
#[test]
fn json_and_protobuf_encodings_convert_identically() {
    let mut compared = 0;
    for capture in captures().into_iter().filter(|c| c.content_type.contains("protobuf")) {
        let json_body = serde_json::to_vec(&capture.json).unwrap();
        let from_json = decode(&json_body, Some("application/json"), None).unwrap();
        let from_protobuf =
            decode(&capture.body, Some(&capture.content_type), capture.content_encoding.as_deref()).unwrap();
        assert_eq!(from_json, from_protobuf, "{}", capture.file);
        let context = context(capture.sdk.clone());
        assert_eq!(convert(&from_json, &context), convert(&from_protobuf, &context), "{}", capture.file);
        compared += 1;
    }
    assert_eq!(compared, 8);
}

/// The worker skips the trace attributes when only events are written: the events must be the
/// very same as when they are worked out, for every captured SDK request.
#[test]
fn events_only_conversion_gives_the_same_events() {
    let mut spans = 0;
    for capture in captures() {
        let request =
            decode(&capture.body, Some(&capture.content_type), capture.content_encoding.as_deref()).unwrap();
        let full = convert(&request, &context(capture.sdk.clone()));
        let events_only =
            convert(&request, &ConvertContext { events_only: true, ..context(capture.sdk.clone()) });
        assert_eq!(full.len(), events_only.len(), "{}", capture.file);
        for (full, events_only) in full.iter().zip(&events_only) {
            assert_eq!(full.event, events_only.event, "{}", capture.file);
            assert_eq!(events_only.trace, TraceAttributes::default(), "{}", capture.file);
        }
        spans += full.len();
    }
    assert!(spans > 20, "only {spans} captured spans");
}
