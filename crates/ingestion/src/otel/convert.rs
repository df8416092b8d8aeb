//! OTel span → v4 event (one `events_full` row per span), plus the trace-level attributes each
//! span carried for the v3 `traces` table in the dual and legacy write modes (reference/storage.md §7.3,
//! reference/public-api.md §3.3–3.6).

use std::sync::Arc;

use domain::event::{Event, Metadata, Micros, OtelOrigin, SharedText};
use domain::sdk::SdkInfo;
use domain::v3::ImpliedTrace;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::InstrumentationScope;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;
use serde_json::{Map, Value};

use super::attributes::{Attributes, into_text, to_text};
use super::io::{Io, IoDomain, IoSource};
use super::metadata::{Domain, Leaves, flatten_attributes, flatten_into, raw_attributes, user_metadata};
use super::types::{TypeInputs, observation_type};
use super::{io, keys, mapping, usage};

/// Request-level facts the spans do not carry.
#[derive(Debug, Clone, Default)]
pub struct ConvertContext {
    pub project_id: String,
    /// When the request was accepted: `created_at`, `updated_at` and `event_ts` of every event.
    pub received_at: Micros,
    /// Where the raw request was stored.
    pub blob_storage_file_path: String,
    pub sdk: SdkInfo,
    /// The project key the request authenticated with (`ingestion_api_key`).
    pub public_key: String,
    /// Only the events are wanted (`events_only`): the trace attributes, which only the v3
    /// tables use, are left at their defaults instead of being worked out for every span.
    pub events_only: bool,
}

/// The trace-level attributes one span carried, shaped like upstream's `trace-create` body:
/// full for a root span, trace-attribute fields only for a non-root span with trace updates,
/// and just environment and timestamp otherwise (a "shallow" trace). `None`: the span did not say.
/// The named fields are what the span states; `implied` what it only implies (its own name on a
/// root span, the resource's version and release, a root's other metadata), which never replaces
/// a stated value, so a child's `langfuse.trace.name` wins whichever of the two arrives first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TraceAttributes {
    pub name: Option<String>,
    pub user_id: Option<String>,
    pub session_id: Option<String>,
    pub release: Option<String>,
    pub version: Option<String>,
    /// Always resolved (falls back to `default`): upstream writes it on every trace event.
    pub environment: String,
    pub tags: Option<Vec<String>>,
    pub public: Option<bool>,
    /// The user's trace metadata (`langfuse.trace.metadata*`, also from the resource).
    pub metadata: Metadata,
    pub input: Option<String>,
    pub output: Option<String>,
    /// The span's start.
    pub timestamp: Micros,
    pub implied: ImpliedTrace,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ConvertedSpan {
    /// Complete for a direct write to `events_full`, trace attributes taken from the span itself.
    pub event: Event,
    pub trace: TraceAttributes,
    /// No parent, or `langfuse.internal.as_root`.
    pub is_root: bool,
    /// Carries trace-level attributes (reference/public-api.md §3.3).
    pub has_trace_update: bool,
}

/// Converts every span of a decoded request, in request order. Conversion never fails: a
/// value that cannot be read is left out of its field, and unknown attributes are kept as
/// metadata.
pub fn convert(request: &ExportTraceServiceRequest, context: &ConvertContext) -> Vec<ConvertedSpan> {
    convert_owned(request.clone(), context)
}

/// [`convert`] for a request no longer needed (the worker's): its strings are moved into the
/// events instead of copied.
pub fn convert_owned(request: ExportTraceServiceRequest, context: &ConvertContext) -> Vec<ConvertedSpan> {
    let spans = request.resource_spans.iter().flat_map(|r| &r.scope_spans).map(|s| s.spans.len()).sum();
    let mut converted = Vec::with_capacity(spans);
    let request_view = RequestView::new(context);
    for resource_spans in request.resource_spans {
        let resource = ResourceView::new(resource_spans.resource.map(|r| r.attributes).unwrap_or_default());
        for scope_spans in resource_spans.scope_spans {
            let scope = ScopeView::new(scope_spans.scope, &resource);
            for span in scope_spans.spans {
                converted.push(convert_span(span, &resource, &scope, &request_view));
            }
        }
    }
    converted
}

/// What every span of a request shares, worked out once per request rather than once per span;
/// the events share its texts rather than each holding a copy.
struct RequestView<'a> {
    context: &'a ConvertContext,
    sdk_name: SharedText,
    sdk_version: SharedText,
    blob_storage_file_path: SharedText,
    public_key: SharedText,
}

impl<'a> RequestView<'a> {
    fn new(context: &'a ConvertContext) -> Self {
        let sdk = &context.sdk;
        Self {
            context,
            sdk_name: sdk.family().map_or_else(|| "unknown".into(), |f| f.as_str().into()),
            sdk_version: sdk.version.as_deref().unwrap_or("unknown").into(),
            blob_storage_file_path: context.blob_storage_file_path.as_str().into(),
            public_key: context.public_key.as_str().into(),
        }
    }
}

struct ResourceView {
    attributes: Attributes,
    /// `langfuse.trace.metadata*` set on the resource.
    trace_metadata: Map<String, Value>,
    /// `resourceAttributes.*`.
    metadata: Metadata,
}

impl ResourceView {
    fn new(attributes: Vec<opentelemetry_proto::tonic::common::v1::KeyValue>) -> Self {
        let attributes = Attributes::from_owned(attributes);
        let mut metadata = Metadata::new();
        flatten_attributes(&mut metadata, "resourceAttributes", &attributes);
        Self { trace_metadata: user_metadata(&attributes, Domain::Trace), metadata, attributes }
    }

    fn text(&self, key: &str) -> String {
        self.attributes.get(key).map(to_text).unwrap_or_default()
    }
}

struct ScopeView {
    name: String,
    version: String,
    is_langfuse_sdk: bool,
    /// The resource's metadata and the scope's (`scope.name`, `scope.version`,
    /// `scope.attributes.*`), merged once for all the scope's spans. Their keys never collide
    /// (`resourceAttributes.` against `scope.`), nor with the raw attributes (`attributes.`), so
    /// the order they are added to a span's metadata does not matter.
    context: Metadata,
    /// The event's `OtelOrigin`, the same for every span of the scope.
    origin: Arc<OtelOrigin>,
}

impl ScopeView {
    fn new(scope: Option<InstrumentationScope>, resource: &ResourceView) -> Self {
        let InstrumentationScope { name, version, attributes, .. } = scope.unwrap_or_default();
        let attributes = Attributes::from_owned(attributes);
        let mut metadata = Metadata::new();
        for (key, value) in [("scope.name", &name), ("scope.version", &version)] {
            if !value.is_empty() {
                metadata.insert(key.to_owned(), value.clone());
            }
        }
        flatten_attributes(&mut metadata, "scope.attributes", &attributes);
        let mut context = resource.metadata.clone();
        context.extend(metadata);
        let origin = Arc::new(OtelOrigin {
            service_name: resource.text(keys::SERVICE_NAME),
            service_version: resource.text(keys::SERVICE_VERSION),
            scope_name: name.clone(),
            scope_version: version.clone(),
            telemetry_sdk_language: resource.text(keys::TELEMETRY_SDK_LANGUAGE),
            telemetry_sdk_name: resource.text(keys::TELEMETRY_SDK_NAME),
            telemetry_sdk_version: resource.text(keys::TELEMETRY_SDK_VERSION),
        });
        Self {
            is_langfuse_sdk: name.starts_with(keys::LANGFUSE_SDK_SCOPE_PREFIX),
            name,
            version,
            context,
            origin,
        }
    }
}

fn nanos_to_micros(nanos: u64) -> Option<Micros> {
    // u64::MAX / 1000 fits in an i64.
    (nanos != 0).then_some((nanos / 1000) as Micros)
}

/// Lower-case hex; an all-zero id (some exporters' "no parent") is no id.
fn hex_id(bytes: &[u8]) -> String {
    if bytes.iter().all(|b| *b == 0) { String::new() } else { lower_hex(bytes) }
}

/// `hex::encode`, sized once (three ids a span; the crate collects its output char by char).
fn lower_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut text = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        text.push(char::from(DIGITS[usize::from(byte >> 4)]));
        text.push(char::from(DIGITS[usize::from(byte & 0x0f)]));
    }
    text
}

fn convert_span(
    span: Span,
    resource: &ResourceView,
    scope: &ScopeView,
    request: &RequestView<'_>,
) -> ConvertedSpan {
    let context = request.context;
    // The span's encoded size: a cheap, stable measure (upstream measures the span's JSON).
    let event_bytes = span.encoded_len() as u64;
    let Span {
        trace_id,
        span_id,
        parent_span_id,
        name: span_name,
        attributes,
        events,
        status,
        start_time_unix_nano,
        end_time_unix_nano,
        ..
    } = span;
    let mut attributes = Attributes::from_owned(attributes);
    let io_source = IoSource { attributes: &attributes, events: &events, scope_name: &scope.name };

    let litellm_trace_id =
        (scope.name == keys::LITELLM_SCOPE).then(|| attributes.truthy(keys::LITELLM_TRACE_ID).map(to_text));
    let trace_id = litellm_trace_id.flatten().unwrap_or_else(|| hex_id(&trace_id));
    let parent_span_id = hex_id(&parent_span_id);
    let start = nanos_to_micros(start_time_unix_nano);
    let end = nanos_to_micros(end_time_unix_nano);
    let start_time = start.or(end).unwrap_or(context.received_at);
    let end_time = end.unwrap_or(start_time);

    let is_root = mapping::is_root(&parent_span_id, &attributes);
    let has_trace_update = mapping::has_trace_update(&attributes);
    let level = mapping::level(&attributes, status.as_ref(), &scope.name, &span_name);
    let name = mapping::observation_name(span_name, &attributes);
    let environment = mapping::environment(&attributes, &resource.attributes);
    let version = mapping::version(&attributes, &resource.attributes);
    let release = mapping::release(&attributes, &resource.attributes);
    let explicit_trace_name = attributes.get(keys::TRACE_NAME).map(to_text);
    // A root span names its trace when no trace name is given (as the v3 trace record does). On
    // the event row it stands as the trace name; the reads tell it from a stated one by its
    // being the root's own name (reads::observations::trace_context).
    let trace_name = explicit_trace_name.clone().or_else(|| is_root.then(|| name.clone()));
    let user_id = mapping::user_id(&attributes);
    let session_id = mapping::session_id(&attributes);
    let tags = mapping::tags(&attributes);
    let public = mapping::public(&attributes);
    let (prompt_name, prompt_version) = mapping::prompt(&attributes);
    // A side stated in `langfuse.observation.input`/`output` (the Langfuse SDKs' way) is what
    // extraction would pick; it is moved out of the attributes at the end instead of copied here.
    let stated_input = attributes.get(keys::OBSERVATION_INPUT).is_some();
    let stated_output = attributes.get(keys::OBSERVATION_OUTPUT).is_some();
    let observation_io = if stated_input && stated_output {
        Io::default()
    } else {
        io::extract(&io_source, IoDomain::Observation)
    };

    let user = |domains: &[Domain]| {
        let mut merged = resource.trace_metadata.clone();
        for domain in domains {
            merged.extend(user_metadata(&attributes, *domain));
        }
        let mut metadata = Metadata::new();
        flatten_into(&mut metadata, "", &Value::Object(merged), Leaves::UnwrapJsonStrings);
        metadata
    };
    // The observation's own metadata keys win over the trace's; the raw attributes are added at
    // the end, moved out of the attributes.
    let mut metadata = user(&[Domain::Trace, Domain::Observation]);
    metadata.extend(scope.context.iter().map(|(k, v)| (k.clone(), v.clone())));

    // What a trace-carrying span says about its trace without stating it.
    let implied = |name: Option<String>, metadata: Metadata| ImpliedTrace {
        name,
        version: resource.attributes.get(keys::SERVICE_VERSION).map(to_text),
        release: resource.attributes.get(keys::RELEASE).map(to_text),
        metadata,
    };
    let mut trace = if context.events_only {
        TraceAttributes::default()
    } else if is_root {
        let trace_io = io::extract(&io_source, IoDomain::Trace);
        TraceAttributes {
            name: explicit_trace_name,
            metadata: user(&[Domain::Trace]),
            input: trace_io.input.map(into_text),
            output: trace_io.output.map(into_text),
            // Its observation metadata and context, as upstream copies them onto the trace (filled
            // in below, once the metadata is complete).
            implied: implied(Some(name.clone()), Metadata::new()),
            ..trace_fields(&attributes, &environment, start_time)
        }
    } else if has_trace_update {
        TraceAttributes {
            name: explicit_trace_name,
            metadata: user(&[Domain::Trace]),
            input: attributes.get(keys::TRACE_INPUT).map(to_text),
            output: attributes.get(keys::TRACE_OUTPUT).map(to_text),
            implied: implied(None, scope.context.clone()),
            ..trace_fields(&attributes, &environment, start_time)
        }
    } else {
        TraceAttributes { environment: environment.clone(), timestamp: start_time, ..Default::default() }
    };

    let provided_usage_details = usage::provided_usage(&attributes, &scope.name);
    let provided_cost_details = usage::provided_cost(&attributes);
    let observation_type = observation_type(&TypeInputs {
        attributes: &attributes,
        resource: &resource.attributes,
        scope_name: &scope.name,
        scope_version: &scope.version,
    });
    let status_message = mapping::status_message(&attributes, status.as_ref());
    let completion_start_time = mapping::completion_start_time(&attributes, start_time);
    let is_app_root = mapping::is_app_root(&attributes);
    let provided_model_name = mapping::model_name(&attributes).unwrap_or_default();
    let model_parameters = mapping::model_parameters(&attributes, &scope.name);
    let experiment = mapping::experiment(&attributes).map(Box::new);

    // No rule reads the attributes past this point: their largest values are moved, not copied.
    let take = |attributes: &mut Attributes, stated: bool, key: &str, found: Option<Value>| {
        let value = if stated { attributes.take(key) } else { found };
        value.map(into_text).unwrap_or_default()
    };
    let input = take(&mut attributes, stated_input, keys::OBSERVATION_INPUT, observation_io.input);
    let output = take(&mut attributes, stated_output, keys::OBSERVATION_OUTPUT, observation_io.output);
    if !scope.is_langfuse_sdk {
        raw_attributes(&mut metadata, attributes);
    }
    if is_root && !context.events_only {
        trace.implied.metadata = metadata.clone();
    }
    let tools = crate::tools::extract(Some(&input), Some(&output));
    let event = Event {
        project_id: context.project_id.clone(),
        trace_id,
        span_id: lower_hex(&span_id),
        parent_span_id,
        start_time,
        end_time: Some(end_time),
        observation_type,
        level,
        status_message,
        name,
        environment,
        version: version.unwrap_or_default(),
        release: release.unwrap_or_default(),
        trace_name: trace_name.unwrap_or_default(),
        user_id: user_id.unwrap_or_default(),
        session_id: session_id.unwrap_or_default(),
        tags: tags.unwrap_or_default(),
        completion_start_time,
        is_app_root,
        bookmarked: false,
        public: public.unwrap_or(false),
        prompt_id: String::new(),
        prompt_name: prompt_name.unwrap_or_default(),
        prompt_version,
        model_id: String::new(),
        provided_model_name,
        model_parameters,
        usage_details: domain::usage::usage_units(&provided_usage_details),
        provided_usage_details,
        cost_details: provided_cost_details.clone(),
        provided_cost_details,
        usage_pricing_tier_id: None,
        usage_pricing_tier_name: None,
        tool_definitions: tools.definitions,
        tool_calls: tools.calls,
        tool_call_names: tools.call_names,
        input,
        output,
        metadata,
        experiment,
        source: "otel",
        origin: Arc::clone(&scope.origin),
        blob_storage_file_path: Arc::clone(&request.blob_storage_file_path),
        event_bytes,
        created_at: context.received_at,
        updated_at: context.received_at,
        event_ts: context.received_at,
        is_deleted: false,
        ingestion_api_key: Arc::clone(&request.public_key),
        ingestion_sdk_name: Arc::clone(&request.sdk_name),
        ingestion_sdk_version: Arc::clone(&request.sdk_version),
    };
    ConvertedSpan { event, trace, is_root, has_trace_update }
}

/// The trace fields shared by root spans and trace updates: what the span itself states (the
/// resource's version and release are only implied).
fn trace_fields(attributes: &Attributes, environment: &str, timestamp: Micros) -> TraceAttributes {
    TraceAttributes {
        user_id: mapping::user_id(attributes),
        session_id: mapping::session_id(attributes),
        release: attributes.get(keys::RELEASE).map(to_text),
        version: attributes.get(keys::VERSION).map(to_text),
        environment: environment.to_owned(),
        tags: mapping::tags(attributes),
        public: mapping::public(attributes),
        timestamp,
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn ids_are_written_as_the_hex_crate_writes_them() {
        let every_byte: Vec<u8> = (0..=255).collect();
        for bytes in [&[][..], &[0, 1, 0xab, 0xff], &every_byte] {
            assert_eq!(super::lower_hex(bytes), hex::encode(bytes));
        }
    }
}
