//! OTLP/JSON: the body is read into a JSON tree, repaired where exporters deviate from the
//! OTLP/JSON encoding (or use the wider proto3 JSON mapping), then handed to
//! opentelemetry-proto's serde support.
//!
//! Repairs: base64 (or upper-case hex) trace/span ids → lower-case hex; protobufjs `{low, high}`
//! longs and floating-point nanos → decimal strings; enum names (`SPAN_KIND_SERVER`,
//! `STATUS_CODE_ERROR`) → numbers; `snake_case` field names → `lowerCamelCase`; `null` fields →
//! absent; `arrayValue`/`kvlistValue` without `values` → empty. int64 values as strings or
//! numbers are handled by opentelemetry-proto itself.

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{InstrumentationScope, KeyValue};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::Span;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::error::DecodeError;
use crate::depth::json_error;

pub fn parse(body: &[u8]) -> Result<ExportTraceServiceRequest, DecodeError> {
    // Some Windows tooling prefixes JSON with a UTF-8 byte order mark, which JSON parsers refuse.
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(ExportTraceServiceRequest::default());
    }
    let mut tree: Value = serde_json::from_slice(body).map_err(|e| DecodeError::Json(json_error(&e)))?;
    if !tree.is_object() {
        return Err(DecodeError::Json("the body must be a JSON object with resourceSpans".to_owned()));
    }
    repair(&mut tree);
    normalise_ids(&mut tree)?;
    ExportTraceServiceRequest::deserialize(&tree)
        .map_err(|e| DecodeError::Json(locate(&tree, &e.to_string())))
}

const LONG_FIELDS: &[&str] = &["startTimeUnixNano", "endTimeUnixNano", "timeUnixNano", "intValue"];
const SPAN_KINDS: &[&str] = &[
    "SPAN_KIND_UNSPECIFIED",
    "SPAN_KIND_INTERNAL",
    "SPAN_KIND_SERVER",
    "SPAN_KIND_CLIENT",
    "SPAN_KIND_PRODUCER",
    "SPAN_KIND_CONSUMER",
];
const STATUS_CODES: &[&str] = &["STATUS_CODE_UNSET", "STATUS_CODE_OK", "STATUS_CODE_ERROR"];

/// The structural repairs, over the whole tree. Recursive: the parser's cap bounds the depth
/// (`crate::depth`).
fn repair(value: &mut Value) {
    match value {
        Value::Object(object) => {
            let mut repaired = Map::with_capacity(object.len());
            for (key, mut child) in std::mem::take(object) {
                if child.is_null() {
                    continue;
                }
                let renamed = key.contains('_');
                let key = if renamed { camel_case(&key) } else { key };
                // When both spellings are present, the OTLP/JSON (camelCase) one wins.
                if renamed && repaired.contains_key(&key) {
                    continue;
                }
                repair_field(&key, &mut child);
                repair(&mut child);
                repaired.insert(key, child);
            }
            *object = repaired;
        }
        Value::Array(items) => {
            for item in items.iter_mut() {
                if item.is_null() {
                    // A null list element decodes as an empty message.
                    *item = Value::Object(Map::new());
                }
                repair(item);
            }
        }
        _ => {}
    }
}

fn camel_case(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    let mut upper = false;
    for c in key.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

fn repair_field(key: &str, value: &mut Value) {
    if LONG_FIELDS.contains(&key)
        && let Some(text) = long_as_text(value, key != "intValue")
    {
        *value = Value::String(text);
    }
    match key {
        "kind" => enum_number(value, SPAN_KINDS),
        "code" => enum_number(value, STATUS_CODES),
        "arrayValue" | "kvlistValue" => {
            if let Value::Object(object) = value {
                object.entry("values").or_insert_with(|| Value::Array(Vec::new()));
            }
        }
        _ => {}
    }
}

/// protobufjs `{low, high}` longs and float-typed integers (`1.7e18`) as decimal text.
/// Timestamps are unsigned (fixed64); `intValue` is signed unless the long says otherwise.
fn long_as_text(value: &Value, unsigned_field: bool) -> Option<String> {
    match value {
        Value::Object(object) => {
            let low = object.get("low")?.as_i64()?;
            let high = object.get("high")?.as_i64()?;
            let unsigned = unsigned_field || object.get("unsigned").and_then(Value::as_bool).unwrap_or(false);
            let bits = ((high as u64) << 32) | (low as u64 & 0xffff_ffff);
            Some(if unsigned { bits.to_string() } else { (bits as i64).to_string() })
        }
        Value::Number(n) if n.is_f64() => {
            let f = n.as_f64()?;
            (f.is_finite() && f.fract() == 0.0 && f.abs() < 1.8e19).then(|| format!("{f:.0}"))
        }
        _ => None,
    }
}

fn enum_number(value: &mut Value, names: &[&str]) {
    let Some(name) = value.as_str() else { return };
    let number = names.iter().position(|n| n.eq_ignore_ascii_case(name)).or_else(|| name.parse().ok());
    if let Some(number) = number {
        *value = Value::from(number);
    }
}

/// Rewrites the ids of every span and link to lower-case hex, accepting base64 from exporters
/// that encode ids like other `bytes` fields. An id that is neither is an error with its path.
fn normalise_ids(tree: &mut Value) -> Result<(), DecodeError> {
    let mut index = 0;
    for (r, resource) in children(tree, "resourceSpans").enumerate() {
        for (s, scope) in children(resource, "scopeSpans").enumerate() {
            for (p, span) in children(scope, "spans").enumerate() {
                let path = format!("resourceSpans[{r}].scopeSpans[{s}].spans[{p}]");
                let invalid = |reason: String| DecodeError::InvalidSpan { index, path: path.clone(), reason };
                normalise_id(span, "traceId", 16).map_err(&invalid)?;
                normalise_id(span, "spanId", 8).map_err(&invalid)?;
                normalise_id(span, "parentSpanId", 8).map_err(&invalid)?;
                for (l, link) in children(span, "links").enumerate() {
                    normalise_id(link, "traceId", 16)
                        .map_err(|reason| invalid(format!("links[{l}]: {reason}")))?;
                    normalise_id(link, "spanId", 8)
                        .map_err(|reason| invalid(format!("links[{l}]: {reason}")))?;
                }
                index += 1;
            }
        }
    }
    Ok(())
}

fn children<'a>(parent: &'a mut Value, key: &str) -> impl Iterator<Item = &'a mut Value> {
    parent.get_mut(key).and_then(Value::as_array_mut).into_iter().flatten()
}

fn normalise_id(object: &mut Value, key: &str, bytes: usize) -> Result<(), String> {
    let Some(value) = object.get_mut(key) else { return Ok(()) };
    let Some(text) = value.as_str() else {
        return Err(format!("{key} must be a string, got {value}"));
    };
    if text.is_empty() {
        return Ok(());
    }
    let is_hex = text.len() == bytes * 2 && text.bytes().all(|b| b.is_ascii_hexdigit());
    let hex = if is_hex {
        text.to_ascii_lowercase()
    } else {
        [&STANDARD, &STANDARD_NO_PAD, &URL_SAFE, &URL_SAFE_NO_PAD]
            .iter()
            .find_map(|engine| engine.decode(text).ok().filter(|d| d.len() == bytes))
            .map(hex::encode)
            .ok_or_else(|| {
                format!("{key} {text:?} is neither {} hex digits nor base64 of {bytes} bytes", bytes * 2)
            })?
    };
    *value = Value::String(hex);
    Ok(())
}

/// Finds the first resource, scope, span or attribute that fails to deserialise, so the error says
/// where the problem is (`serde` on a tree reports no position).
fn locate(tree: &Value, error: &str) -> String {
    for (r, resource_spans) in items(tree, "resourceSpans").iter().enumerate() {
        let at = format!("resourceSpans[{r}]");
        if let Some(resource) = resource_spans.get("resource")
            && let Some(e) = first_error::<Resource>(resource, "attributes")
        {
            return format!("{at}.resource{e}");
        }
        for (s, scope_spans) in items(resource_spans, "scopeSpans").iter().enumerate() {
            let at = format!("{at}.scopeSpans[{s}]");
            if let Some(scope) = scope_spans.get("scope")
                && let Some(e) = first_error::<InstrumentationScope>(scope, "attributes")
            {
                return format!("{at}.scope{e}");
            }
            for (p, span) in items(scope_spans, "spans").iter().enumerate() {
                if let Some(e) = first_error::<Span>(span, "attributes") {
                    return format!("{at}.spans[{p}]{e}");
                }
            }
        }
    }
    error.to_owned()
}

fn items<'a>(parent: &'a Value, key: &str) -> &'a [Value] {
    parent.get(key).and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

/// The error of one message, narrowed to the attribute at fault when there is one.
fn first_error<'de, T: Deserialize<'de>>(value: &'de Value, attributes_key: &str) -> Option<String> {
    let error = T::deserialize(value).err()?;
    let attributes = value.get(attributes_key).and_then(Value::as_array);
    for (a, attribute) in attributes.into_iter().flatten().enumerate() {
        if let Err(e) = KeyValue::deserialize(attribute) {
            let key = attribute.get("key").and_then(Value::as_str).unwrap_or_default();
            return Some(format!(".{attributes_key}[{a}] (key {key:?}): {e}"));
        }
    }
    Some(format!(": {error}"))
}
