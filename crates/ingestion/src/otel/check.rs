//! Web's check of a protobuf export, without building it.
//!
//! Web keeps a protobuf export as sent (`parse_owned`): it decodes it only to know that the worker
//! will decode it too, to count its spans, check their ids and weigh its resources. Building every
//! key and value as a `String` for that, then dropping them all, was most of web's CPU per span.
//! Here the same messages are mirrored field for field (same tags, same wire types, so prost
//! accepts and refuses exactly the same bytes, nesting limit included), except that strings are
//! slices of the body (`Bytes`, no copy) whose UTF-8 is checked afterwards, as prost checks a
//! `String`'s.
//!
//! One difference needs care: prost checks a string's UTF-8 at each occurrence of its field, while
//! a field sent twice leaves only its last value here to check. So only an export in canonical form
//! is answered: it must encode back to exactly its own length, which a repeated field (or an
//! unknown one, an explicit default, an overlong number) makes shorter. The exporters of the SDKs
//! send that form (the captures' test checks each one is answered here).
//!
//! Only the plain case is answered here: an export that decodes, in canonical form, has spans, all
//! of them with valid ids, within the resource budget. Anything else gets `None`, and the caller
//! takes the full path, which says what is wrong (or which spans it drops) in its own words.

use bytes::Bytes;
use prost::Message;

use super::budget::copied_resource_bytes;

#[derive(Clone, PartialEq, Message)]
struct Export {
    #[prost(message, repeated, tag = "1")]
    resource_spans: Vec<ResourceSpans>,
}

#[derive(Clone, PartialEq, Message)]
struct ResourceSpans {
    #[prost(message, optional, tag = "1")]
    resource: Option<Resource>,
    #[prost(message, repeated, tag = "2")]
    scope_spans: Vec<ScopeSpans>,
    #[prost(bytes = "bytes", tag = "3")]
    schema_url: Bytes,
}

#[derive(Clone, PartialEq, Message)]
struct Resource {
    #[prost(message, repeated, tag = "1")]
    attributes: Vec<KeyValue>,
    #[prost(uint32, tag = "2")]
    dropped_attributes_count: u32,
    #[prost(message, repeated, tag = "3")]
    entity_refs: Vec<EntityRef>,
}

#[derive(Clone, PartialEq, Message)]
struct EntityRef {
    #[prost(bytes = "bytes", tag = "1")]
    schema_url: Bytes,
    #[prost(bytes = "bytes", tag = "2")]
    r#type: Bytes,
    #[prost(bytes = "bytes", repeated, tag = "3")]
    id_keys: Vec<Bytes>,
    #[prost(bytes = "bytes", repeated, tag = "4")]
    description_keys: Vec<Bytes>,
}

#[derive(Clone, PartialEq, Message)]
struct ScopeSpans {
    #[prost(message, optional, tag = "1")]
    scope: Option<Scope>,
    #[prost(message, repeated, tag = "2")]
    spans: Vec<Span>,
    #[prost(bytes = "bytes", tag = "3")]
    schema_url: Bytes,
}

#[derive(Clone, PartialEq, Message)]
struct Scope {
    #[prost(bytes = "bytes", tag = "1")]
    name: Bytes,
    #[prost(bytes = "bytes", tag = "2")]
    version: Bytes,
    #[prost(message, repeated, tag = "3")]
    attributes: Vec<KeyValue>,
    #[prost(uint32, tag = "4")]
    dropped_attributes_count: u32,
}

#[derive(Clone, PartialEq, Message)]
struct Span {
    #[prost(bytes = "bytes", tag = "1")]
    trace_id: Bytes,
    #[prost(bytes = "bytes", tag = "2")]
    span_id: Bytes,
    #[prost(bytes = "bytes", tag = "3")]
    trace_state: Bytes,
    #[prost(bytes = "bytes", tag = "4")]
    parent_span_id: Bytes,
    #[prost(fixed32, tag = "16")]
    flags: u32,
    #[prost(bytes = "bytes", tag = "5")]
    name: Bytes,
    #[prost(int32, tag = "6")]
    kind: i32,
    #[prost(fixed64, tag = "7")]
    start_time_unix_nano: u64,
    #[prost(fixed64, tag = "8")]
    end_time_unix_nano: u64,
    #[prost(message, repeated, tag = "9")]
    attributes: Vec<KeyValue>,
    #[prost(uint32, tag = "10")]
    dropped_attributes_count: u32,
    #[prost(message, repeated, tag = "11")]
    events: Vec<Event>,
    #[prost(uint32, tag = "12")]
    dropped_events_count: u32,
    #[prost(message, repeated, tag = "13")]
    links: Vec<Link>,
    #[prost(uint32, tag = "14")]
    dropped_links_count: u32,
    #[prost(message, optional, tag = "15")]
    status: Option<Status>,
}

#[derive(Clone, PartialEq, Message)]
struct Event {
    #[prost(fixed64, tag = "1")]
    time_unix_nano: u64,
    #[prost(bytes = "bytes", tag = "2")]
    name: Bytes,
    #[prost(message, repeated, tag = "3")]
    attributes: Vec<KeyValue>,
    #[prost(uint32, tag = "4")]
    dropped_attributes_count: u32,
}

#[derive(Clone, PartialEq, Message)]
struct Link {
    #[prost(bytes = "bytes", tag = "1")]
    trace_id: Bytes,
    #[prost(bytes = "bytes", tag = "2")]
    span_id: Bytes,
    #[prost(bytes = "bytes", tag = "3")]
    trace_state: Bytes,
    #[prost(message, repeated, tag = "4")]
    attributes: Vec<KeyValue>,
    #[prost(uint32, tag = "5")]
    dropped_attributes_count: u32,
    #[prost(fixed32, tag = "6")]
    flags: u32,
}

#[derive(Clone, PartialEq, Message)]
struct Status {
    #[prost(bytes = "bytes", tag = "2")]
    message: Bytes,
    #[prost(int32, tag = "3")]
    code: i32,
}

#[derive(Clone, PartialEq, Message)]
struct KeyValue {
    #[prost(bytes = "bytes", tag = "1")]
    key: Bytes,
    #[prost(message, optional, tag = "2")]
    value: Option<AnyValue>,
    #[prost(int32, tag = "3")]
    key_strindex: i32,
}

#[derive(Clone, PartialEq, Message)]
struct AnyValue {
    #[prost(oneof = "Any", tags = "1, 2, 3, 4, 5, 6, 7, 8")]
    value: Option<Any>,
}

#[derive(Clone, PartialEq, prost::Oneof)]
enum Any {
    #[prost(bytes = "bytes", tag = "1")]
    String(Bytes),
    #[prost(bool, tag = "2")]
    Bool(bool),
    #[prost(int64, tag = "3")]
    Int(i64),
    #[prost(double, tag = "4")]
    Double(f64),
    #[prost(message, tag = "5")]
    Array(ArrayValue),
    #[prost(message, tag = "6")]
    Kvlist(KeyValueList),
    #[prost(bytes = "bytes", tag = "7")]
    Bytes(Bytes),
    #[prost(int32, tag = "8")]
    Strindex(i32),
}

#[derive(Clone, PartialEq, Message)]
struct ArrayValue {
    #[prost(message, repeated, tag = "1")]
    values: Vec<AnyValue>,
}

#[derive(Clone, PartialEq, Message)]
struct KeyValueList {
    #[prost(message, repeated, tag = "1")]
    values: Vec<KeyValue>,
}

/// The number of spans of `protobuf` when the export is accepted whole as sent: it decodes (every
/// string valid UTF-8), has spans, every one with valid ids (`ids`), and its
/// resources fit `max_resource_copied_bytes`. `None` otherwise: decode it to find out why.
pub fn plain_export_spans(protobuf: &Bytes, max_resource_copied_bytes: usize) -> Option<usize> {
    // Decoding from `Bytes` makes every string a slice of the body rather than a copy.
    let export = Export::decode(protobuf.clone()).ok()?;
    if export.encoded_len() != protobuf.len() {
        return None;
    }
    let mut spans = 0usize;
    let mut resources = Vec::with_capacity(export.resource_spans.len());
    for resource_spans in &export.resource_spans {
        utf8(&resource_spans.schema_url)?;
        let resource_attributes = match &resource_spans.resource {
            Some(resource) => {
                resource.entity_refs.iter().try_for_each(entity_ref)?;
                key_values(&resource.attributes)?;
                resource.attributes.iter().map(Message::encoded_len).sum()
            }
            None => 0,
        };
        let mut resource_span_count = 0usize;
        for scope_spans in &resource_spans.scope_spans {
            utf8(&scope_spans.schema_url)?;
            if let Some(scope) = &scope_spans.scope {
                utf8(&scope.name)?;
                utf8(&scope.version)?;
                key_values(&scope.attributes)?;
            }
            for span in &scope_spans.spans {
                self::span(span)?;
            }
            resource_span_count += scope_spans.spans.len();
        }
        resources.push((resource_attributes, resource_span_count));
        spans += resource_span_count;
    }
    (spans > 0 && copied_resource_bytes(resources.into_iter()).0 <= max_resource_copied_bytes)
        .then_some(spans)
}

fn span(span: &Span) -> Option<()> {
    super::ids::ids_are_valid(&span.trace_id, &span.span_id, &span.parent_span_id).then_some(())?;
    utf8(&span.trace_state)?;
    utf8(&span.name)?;
    key_values(&span.attributes)?;
    for event in &span.events {
        utf8(&event.name)?;
        key_values(&event.attributes)?;
    }
    for link in &span.links {
        utf8(&link.trace_state)?;
        key_values(&link.attributes)?;
    }
    span.status.as_ref().map_or(Some(()), |status| utf8(&status.message))
}

fn entity_ref(entity: &EntityRef) -> Option<()> {
    utf8(&entity.schema_url)?;
    utf8(&entity.r#type)?;
    entity.id_keys.iter().chain(&entity.description_keys).try_for_each(|key| utf8(key))
}

fn key_values(list: &[KeyValue]) -> Option<()> {
    for kv in list {
        utf8(&kv.key)?;
        if let Some(value) = &kv.value {
            any_value(value)?;
        }
    }
    Some(())
}

/// Nested no deeper than prost let it decode (`depth::MAX_PROTOBUF_DEPTH`).
fn any_value(value: &AnyValue) -> Option<()> {
    match &value.value {
        Some(Any::String(text)) => utf8(text),
        Some(Any::Array(array)) => array.values.iter().try_for_each(any_value),
        Some(Any::Kvlist(list)) => key_values(&list.values),
        _ => Some(()),
    }
}

fn utf8(text: &[u8]) -> Option<()> {
    std::str::from_utf8(text).ok().map(|_| ())
}
