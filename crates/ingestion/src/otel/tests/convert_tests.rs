//! Field rules on hand-made spans.

use domain::event::{Level, ObservationType};
use opentelemetry_proto::tonic::trace::v1::Span;

use super::build::*;
use crate::otel::mapping::parse_datetime;

#[test]
fn a_bare_span_gets_defaults() {
    let converted = one(Span { start_time_unix_nano: 0, end_time_unix_nano: 0, ..span("bare", vec![]) });
    let event = &converted.event;
    assert_eq!((event.start_time, event.end_time), (RECEIVED_AT, Some(RECEIVED_AT)));
    assert_eq!(event.environment, "default");
    assert_eq!((event.observation_type, event.level), (ObservationType::Span, Level::Default));
    assert_eq!((event.model_parameters.as_str(), event.input.as_str()), ("{}", ""));
    assert_eq!(event.trace_id, hex::encode(TRACE_ID));
    assert_eq!(event.parent_span_id, hex::encode(PARENT_ID));
    assert_eq!((&*event.ingestion_sdk_name, &*event.ingestion_sdk_version), ("unknown", "unknown"));
    assert!(!converted.is_root && !converted.has_trace_update);
    assert_eq!(converted.trace.name, None);
    assert_eq!(event.experiment, None);
    // An end time alone stands in for the start.
    let end_only = one(Span { start_time_unix_nano: 0, ..span("s", vec![]) });
    assert_eq!(end_only.event.start_time, (START_NANOS + 1_000_000) as i64 / 1000);
}

#[test]
fn roots_are_spans_without_parent_or_forced() {
    assert!(one(root("r", vec![])).is_root);
    assert!(one(Span { parent_span_id: vec![0; 8], ..span("zero parent", vec![]) }).is_root);
    assert!(one(span("forced", vec![b("langfuse.internal.as_root", true)])).is_root);
    assert!(one(span("forced", vec![s("langfuse.internal.as_root", "true")])).is_root);
    assert!(!one(span("not", vec![s("langfuse.internal.as_root", "false")])).is_root);
    let root_span = one(root("My Root", vec![]));
    assert_eq!(root_span.event.trace_name, "My Root", "a root names its trace by default");
    assert_eq!(root_span.trace.name, None, "its own name only implies the trace's");
    assert_eq!(root_span.trace.implied.name.as_deref(), Some("My Root"));
}

#[test]
fn environment_prefers_span_then_resource_per_key() {
    let env = |span_attrs, resource| one_in(resource, "app", span("s", span_attrs)).event.environment;
    assert_eq!(env(vec![s("langfuse.environment", "a")], vec![s("langfuse.environment", "b")]), "a");
    assert_eq!(env(vec![s("deployment.environment.name", "a")], vec![s("langfuse.environment", "b")]), "b");
    assert_eq!(env(vec![], vec![s("deployment.environment", "prod")]), "prod");
    assert_eq!(env(vec![s("langfuse.environment", "")], vec![]), "default");
}

#[test]
fn level_and_status_message() {
    let error = one(Span { status: error_status("boom"), ..span("s", vec![]) }).event;
    assert_eq!((error.level, error.status_message.as_str()), (Level::Error, "boom"));
    let explicit = one(Span {
        status: error_status("boom"),
        ..span(
            "s",
            vec![
                s("langfuse.observation.level", "warning"),
                s("langfuse.observation.status_message", "mine"),
            ],
        )
    })
    .event;
    assert_eq!((explicit.level, explicit.status_message.as_str()), (Level::Warning, "mine"));
    let unknown = one(span("s", vec![s("langfuse.observation.level", "LOUD")])).event;
    assert_eq!(unknown.level, Level::Default);
    assert_eq!(one_in(vec![], "livekit-agents", span("tts_node", vec![])).event.level, Level::Debug);
}

#[test]
fn user_session_tags_public() {
    let event = one(span(
        "s",
        vec![
            s("user.id", "u"),
            s("gen_ai.conversation.id", "conv"),
            s("langfuse.tags", "a, b"),
            b("langfuse.public", true),
        ],
    ));
    assert_eq!((event.event.user_id.as_str(), event.event.session_id.as_str()), ("u", "conv"));
    assert_eq!(event.event.tags, ["a", "b"]);
    assert!(event.event.public && event.has_trace_update);
    let tags = |value| one(span("s", vec![value])).event.tags;
    assert_eq!(tags(strings("langfuse.trace.tags", &["x", "y"])), ["x", "y"]);
    assert_eq!(tags(s("langfuse.trace.tags", r#"["x", "y"]"#)), ["x", "y"]);
    assert_eq!(tags(s("tag.tags", "single")), ["single"]);
    assert_eq!(tags(s("langfuse.trace.metadata.langfuse_tags", "[\"m\"]")), ["m"]);
    let langfuse_first = one(span("s", vec![s("user.id", "plain"), s("langfuse.user.id", "lf")]));
    assert_eq!(langfuse_first.event.user_id, "lf");
    assert!(one(span("s", vec![s("langfuse.trace.public", "true")])).event.public);
    assert_eq!(one(span("s", vec![s("langfuse.trace.public", "yes")])).trace.public, Some(false));
}

#[test]
fn names_from_framework_attributes() {
    assert_eq!(one(span("s", vec![s("gen_ai.tool.name", "search")])).event.name, "search");
    let vercel =
        one(span("s", vec![s("ai.operationId", "ai.generateText"), s("ai.telemetry.functionId", "fn")]));
    assert_eq!(vercel.event.name, "fn:ai.generateText");
}

#[test]
fn model_and_parameters() {
    let event = one(span(
        "s",
        vec![
            s("gen_ai.request.model", "req"),
            s("gen_ai.response.model", "resp"),
            d("gen_ai.request.temperature", 0.5),
            i("gen_ai.request.max_tokens", 10),
            strings("gen_ai.request.stop_sequences", &["\n"]),
        ],
    ))
    .event;
    assert_eq!(
        (event.provided_model_name.as_str(), event.observation_type),
        ("resp", ObservationType::Generation)
    );
    let parameters: serde_json::Value = serde_json::from_str(&event.model_parameters).unwrap();
    assert_eq!(
        parameters,
        serde_json::json!({"temperature": 0.5, "max_tokens": 10, "stop_sequences": "[\"\\n\"]"})
    );
    let explicit = one(span(
        "s",
        vec![
            s("langfuse.observation.model.parameters", r#"{"stream": true, "n": 1}"#),
            d("gen_ai.request.temperature", 1.0),
        ],
    ))
    .event;
    assert_eq!(explicit.model_parameters, r#"{"n":1,"stream":"true"}"#);
    let invocation = one(span("s", vec![s("llm.invocation_parameters", r#"{"top_p": 0.9}"#)])).event;
    assert_eq!(invocation.model_parameters, r#"{"top_p":0.9}"#);
}

#[test]
fn usage_and_cost_from_semantic_conventions() {
    let event = one(span(
        "s",
        vec![
            i("gen_ai.usage.prompt_tokens", 10),
            s("gen_ai.usage.completion_tokens", "5"),
            i("llm.token_count.total", 15),
            i("gen_ai.usage.cache_read_tokens", 2),
            d("gen_ai.usage.cost", 0.25),
        ],
    ))
    .event;
    let usage: Vec<_> = event.provided_usage_details.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    assert_eq!(usage, [("cache_read_tokens", 2), ("input", 10), ("output", 5), ("total", 15)]);
    assert_eq!(event.provided_cost_details.get("total").map(|c| c.to_f64()), Some(0.25));
    assert_eq!(event.provided_cost_details.len(), 1);
}

#[test]
fn completion_start_time_plain_or_quoted() {
    let expected = parse_datetime("2026-11-21T19:41:11.788770Z").unwrap();
    for raw in
        ["2026-11-21T19:41:11.788770Z", "\"2026-11-21T19:41:11.788770Z\"", "2026-11-21T19:41:11.788770"]
    {
        let event = one(span("s", vec![s("langfuse.observation.completion_start_time", raw)])).event;
        assert_eq!(event.completion_start_time, Some(expected), "{raw}");
    }
    let vercel = one(span("s", vec![d("ai.response.msToFirstChunk", 12.2)])).event;
    assert_eq!(vercel.completion_start_time, Some(vercel.start_time + 13_000));
    assert_eq!(
        one(span("s", vec![s("langfuse.observation.completion_start_time", "soon")]))
            .event
            .completion_start_time,
        None
    );
}

#[test]
fn prompt_link_sources() {
    let event = one(span("s", vec![s("langfuse.prompt.name", "p"), s("langfuse.prompt.version", "3")])).event;
    assert_eq!((event.prompt_name.as_str(), event.prompt_version), ("p", Some(3)));
    let ai =
        one(span("s", vec![s("ai.telemetry.metadata.langfusePrompt", r#"{"name": "q", "version": 2}"#)]))
            .event;
    assert_eq!((ai.prompt_name.as_str(), ai.prompt_version), ("q", Some(2)));
    assert!(!ai.metadata.contains_key("langfusePrompt"));
}

#[test]
fn metadata_merges_flattens_and_keeps_unknown_attributes() {
    let converted = one_in(
        vec![s("service.name", "svc"), s("langfuse.trace.metadata.region", "eu")],
        "app",
        span(
            "s",
            vec![
                s("langfuse.observation.metadata", r#"{"nested": {"a": 1}, "shared": "observation"}"#),
                s("langfuse.trace.metadata.shared", "trace"),
                i("langfuse.observation.metadata.count", 3),
                s("http.route", "/chat"),
                s("input.value", "in"),
            ],
        ),
    );
    let metadata = &converted.event.metadata;
    let get = |k: &str| metadata.get(k).map(String::as_str);
    assert_eq!(get("nested.a"), Some("1"));
    assert_eq!(get("shared"), Some("observation"), "the observation's own keys win");
    assert_eq!(get("count"), Some("3"));
    assert_eq!(get("region"), Some("eu"), "resource trace metadata");
    assert_eq!(get("attributes.http.route"), Some("/chat"));
    assert_eq!(get("attributes.input.value"), None);
    assert_eq!(get("resourceAttributes.service.name"), Some("svc"));
    assert_eq!(get("scope.name"), Some("app"));
    assert_eq!(converted.event.origin.service_name, "svc");
    // Trace updates on a non-root span carry the trace metadata but not the observation's.
    assert_eq!(converted.trace.metadata.get("shared").map(String::as_str), Some("trace"));
    assert!(!converted.trace.metadata.contains_key("count"));

    let sdk = one_in(vec![], "langfuse-sdk", span("s", vec![s("http.route", "/chat")]));
    assert!(!sdk.event.metadata.contains_key("attributes.http.route"));
}

#[test]
fn trace_updates_on_child_spans() {
    let converted = one(span(
        "s",
        vec![
            s("langfuse.trace.name", "t"),
            s("langfuse.trace.input", "trace in"),
            s("langfuse.observation.input", "obs in"),
            s("langfuse.observation.output", "obs out"),
        ],
    ));
    assert!(converted.has_trace_update && !converted.is_root);
    assert_eq!(converted.trace.name.as_deref(), Some("t"));
    assert_eq!(converted.trace.input.as_deref(), Some("trace in"));
    assert_eq!(converted.trace.output, None, "child spans give trace output only explicitly");
    assert_eq!((converted.event.input.as_str(), converted.event.output.as_str()), ("obs in", "obs out"));
    assert!(!one(span("s", vec![b("langfuse.trace.public", false)])).has_trace_update);
    assert!(one(span("s", vec![s("langfuse.trace.metadata.x", "")])).has_trace_update);
}

#[test]
fn experiment_fields() {
    let event = one(span(
        "s",
        vec![
            s("langfuse.experiment.id", "run-1"),
            s("langfuse.experiment.name", "exp"),
            s("langfuse.experiment.metadata", r#"{"model": {"name": "m"}}"#),
            s("langfuse.experiment.dataset.id", "ds"),
            s("langfuse.experiment.item.id", "item"),
            s("langfuse.experiment.item.version", "2026-01-02T03:04:05Z"),
            s("langfuse.experiment.item.expected_output", "{\"a\":1}"),
            s("langfuse.experiment.item.root_observation_id", "root"),
        ],
    ))
    .event;
    let experiment = event.experiment.unwrap();
    assert_eq!((experiment.id.as_str(), experiment.name.as_str()), ("run-1", "exp"));
    assert_eq!(experiment.metadata.get("model.name").map(String::as_str), Some("m"));
    assert_eq!((experiment.dataset_id.as_str(), experiment.item_id.as_str()), ("ds", "item"));
    assert_eq!(experiment.item_version, parse_datetime("2026-01-02T03:04:05Z"));
    assert_eq!(
        (experiment.item_expected_output.as_str(), experiment.item_root_span_id.as_str()),
        ("{\"a\":1}", "root")
    );
}

#[test]
fn litellm_may_choose_its_trace_id() {
    let converted = one_in(vec![], "litellm", span("s", vec![s("langfuse.trace.id", "custom-trace")]));
    assert_eq!(converted.event.trace_id, "custom-trace");
    let other_scope = one_in(vec![], "app", span("s", vec![s("langfuse.trace.id", "custom-trace")]));
    assert_eq!(other_scope.event.trace_id, hex::encode(TRACE_ID));
}

#[test]
fn inputs_and_raw_attributes_are_moved_whole_and_a_root_copies_the_full_metadata() {
    // The conversion takes inputs, outputs and raw attribute values out of the span's attributes
    // at its end; everything read from them earlier must still see them, and the root's trace
    // must still carry the complete observation metadata, raw attributes and context included.
    let attributes = vec![
        s("langfuse.observation.input", "{\"q\":1}"),
        s("langfuse.observation.output", "answer"),
        s("langfuse.observation.metadata.k", "v"),
        s("user.id", "u-1"),
        i("gen_ai.usage.input_tokens", 3),
    ];
    let converted = one_in(vec![s("service.name", "svc")], "app", root("r", attributes));
    let event = &converted.event;
    assert_eq!((event.input.as_str(), event.output.as_str()), ("{\"q\":1}", "answer"));
    assert_eq!(event.user_id, "u-1");
    let metadata: Vec<_> = event.metadata.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(
        metadata,
        [
            ("attributes.gen_ai.usage.input_tokens", "3"),
            ("attributes.langfuse.observation.metadata.k", "v"),
            ("attributes.user.id", "u-1"),
            ("k", "v"),
            ("resourceAttributes.service.name", "svc"),
            ("scope.name", "app"),
        ]
    );
    assert_eq!(converted.trace.implied.metadata, event.metadata);
    assert_eq!(
        converted.trace.input.as_deref(),
        Some("{\"q\":1}"),
        "the trace reads the input before it moves"
    );
    assert_eq!(event.origin.service_name, "svc");
}

#[test]
fn the_events_of_a_request_share_its_texts_and_those_of_their_scope() {
    use std::sync::Arc;

    let mut request =
        request(vec![s("service.name", "svc")], "scope-a", vec![span("a1", vec![]), span("a2", vec![])]);
    let mut other_scope = request.resource_spans[0].scope_spans[0].clone();
    other_scope.scope.as_mut().unwrap().name = "scope-b".into();
    request.resource_spans[0].scope_spans.push(other_scope);
    let context = crate::otel::ConvertContext {
        blob_storage_file_path: "otel/p/raw.pb".into(),
        public_key: "pk-lf-1".into(),
        ..context()
    };
    let converted = crate::otel::convert(&request, &context);
    let events: Vec<_> = converted.iter().map(|c| &c.event).collect();
    assert_eq!(events.len(), 4);
    let (first, last) = (events[0], events[3]);
    assert_eq!((&*first.blob_storage_file_path, &*first.ingestion_api_key), ("otel/p/raw.pb", "pk-lf-1"));
    assert_eq!(
        (&*first.ingestion_sdk_name, &*first.ingestion_sdk_version, first.source),
        ("unknown", "unknown", "otel")
    );
    // One copy per request (and per scope for the origin), however many spans it has.
    assert!(Arc::ptr_eq(&first.blob_storage_file_path, &last.blob_storage_file_path));
    assert!(Arc::ptr_eq(&first.ingestion_api_key, &last.ingestion_api_key));
    assert!(Arc::ptr_eq(&first.ingestion_sdk_name, &last.ingestion_sdk_name));
    assert!(Arc::ptr_eq(&first.origin, &events[1].origin));
    assert!(!Arc::ptr_eq(&first.origin, &last.origin));
    assert_eq!((first.origin.scope_name.as_str(), last.origin.scope_name.as_str()), ("scope-a", "scope-b"));
    assert_eq!(last.origin.service_name, "svc");
}
