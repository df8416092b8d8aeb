//! Usage and cost of generation-like bodies (reference/public-api.md §2.3): the legacy `usage` object
//! (including the OpenAI `promptTokens` style), the `usageDetails` union and `costDetails`, combined
//! the way upstream's `mapObservationEventsToRecords` combines them. These are the counts and
//! amounts the client provided; prices are applied later.

use std::collections::BTreeMap;

use domain::event::Decimal12;
use serde_json::{Map, Value};

use super::check::Check;
use super::values::{integer, parse_int_prefix};

pub type Usage = BTreeMap<String, u64>;
pub type Cost = BTreeMap<String, Decimal12>;

const UNITS: [&str; 6] = ["CHARACTERS", "TOKENS", "MILLISECONDS", "SECONDS", "IMAGES", "REQUESTS"];
const CHAT_COMPLETIONS: [&str; 3] = ["prompt_tokens", "completion_tokens", "total_tokens"];
const RESPONSES: [&str; 3] = ["input_tokens", "output_tokens", "total_tokens"];

/// What a body says about usage and cost; both empty when it says nothing.
#[derive(Debug, Default, PartialEq)]
pub struct Provided {
    pub usage: Usage,
    pub cost: Cost,
}

/// Reads `usage`, `usageDetails` and `costDetails`, recording shape errors on `check`.
pub fn provided(check: &mut Check<'_>) -> Provided {
    let legacy = legacy_usage(check).unwrap_or_default();
    let details = check.nested("usageDetails").map(usage_details).unwrap_or_default();
    let cost_details = check.nested("costDetails").map(cost_details).unwrap_or_default();

    let mut usage = Usage::new();
    let input = legacy.input.and_then(non_negative);
    let output = legacy.output.and_then(non_negative);
    insert(&mut usage, "input", input);
    insert(&mut usage, "output", output);
    // Upstream derives a total from input and output only when no usageDetails were sent.
    let derived_total = match (input, output) {
        _ if !details.is_empty() => None,
        (Some(i), Some(o)) => Some(i.saturating_add(o)),
        (i, o) => i.or(o),
    };
    insert(&mut usage, "total", legacy.total.and_then(non_negative).or(derived_total));
    usage.extend(details);

    let mut cost = Cost::new();
    for (key, amount) in
        [("input", legacy.input_cost), ("output", legacy.output_cost), ("total", legacy.total_cost)]
    {
        if let Some(amount) = amount.and_then(Decimal12::from_f64) {
            cost.insert(key.to_owned(), amount);
        }
    }
    cost.extend(cost_details);
    Provided { usage, cost }
}

#[derive(Debug, Default)]
struct Legacy {
    input: Option<i64>,
    output: Option<i64>,
    total: Option<i64>,
    input_cost: Option<f64>,
    output_cost: Option<f64>,
    total_cost: Option<f64>,
}

/// Upstream `usage` (MixedUsage): integer counts, a unit, optional costs; when any OpenAI-style
/// key is present (even as null) the counts come from those and the costs are dropped.
fn legacy_usage(check: &mut Check<'_>) -> Option<Legacy> {
    let object = check.nested("usage")?;
    let mut usage = Check::new(object, check.path_of("usage"));
    let legacy = Legacy {
        input: usage.integer("input"),
        output: usage.integer("output"),
        total: usage.integer("total"),
        input_cost: usage.number("inputCost"),
        output_cost: usage.number("outputCost"),
        total_cost: usage.number("totalCost"),
    };
    // The unit is validated but not stored: the v3 and v4 tables have no column for it.
    usage.one_of("unit", &UNITS);
    let prompt = usage.integer("promptTokens");
    let completion = usage.integer("completionTokens");
    let total = usage.integer("totalTokens");
    let openai = ["promptTokens", "completionTokens", "totalTokens"].iter().any(|k| usage.has_key(k));
    check.absorb(usage);
    if openai {
        return Some(Legacy { input: prompt, output: completion, total, ..Legacy::default() });
    }
    Some(legacy)
}

/// The union upstream validates `usageDetails` with, first match wins: the strict OpenAI Chat
/// Completions shape, the strict OpenAI Responses shape, then a free-form record of counts.
pub fn usage_details(object: &Map<String, Value>) -> Usage {
    openai_usage(object).unwrap_or_else(|| free_form(object))
}

/// The usage of an exact OpenAI Chat Completions or Responses usage object, `None` for anything
/// else (whose keys are then kept as sent). OTLP's `langfuse.observation.usage_details` goes
/// through the same union upstream, so the OTel mapping uses this too.
pub(crate) fn openai_usage(object: &Map<String, Value>) -> Option<Usage> {
    openai_shape(object, CHAT_COMPLETIONS).or_else(|| openai_shape(object, RESPONSES))
}

/// `{<in>, <out>, total_tokens, <in>_details?, <out>_details?}` and nothing else, all counts
/// present → `input`/`output`/`total` plus `input_<detail>`/`output_<detail>`, the details
/// subtracted from `input`/`output` (floored at 0).
fn openai_shape(object: &Map<String, Value>, [input, output, total]: [&str; 3]) -> Option<Usage> {
    let input_details = format!("{input}_details");
    let output_details = format!("{output}_details");
    let allowed = [input, output, total, input_details.as_str(), output_details.as_str()];
    if !object.keys().all(|k| allowed.contains(&k.as_str())) {
        return None;
    }
    let count_of = |key: &str| object.get(key).and_then(count);
    let mut usage = Usage::from([
        ("input".to_owned(), count_of(input)?),
        ("output".to_owned(), count_of(output)?),
        ("total".to_owned(), count_of(total)?),
    ]);
    for (side, details_key) in [("input", &input_details), ("output", &output_details)] {
        let details = match object.get(details_key.as_str()) {
            None | Some(Value::Null) => continue,
            Some(Value::Object(details)) => details,
            Some(_) => return None,
        };
        for (detail, value) in details {
            if value.is_null() {
                continue;
            }
            let n = count(value)?;
            usage.insert(format!("{side}_{detail}"), n);
            if let Some(remaining) = usage.get_mut(side) {
                *remaining = remaining.saturating_sub(n);
            }
        }
    }
    Some(usage)
}

/// Any other record: non-negative integers, and numeric strings read like JavaScript `parseInt`;
/// every other value is dropped.
fn free_form(object: &Map<String, Value>) -> Usage {
    object
        .iter()
        .filter_map(|(key, value)| {
            let n = match value {
                Value::String(text) => parse_int_prefix(text),
                other => integer(other),
            };
            Some((key.clone(), n.and_then(non_negative)?))
        })
        .collect()
}

/// `costDetails`: numeric amounts; non-numeric, negative and out-of-range entries are dropped.
fn cost_details(object: &Map<String, Value>) -> Cost {
    object
        .iter()
        .filter_map(|(key, value)| Some((key.clone(), Decimal12::from_f64(value.as_f64()?)?)))
        .collect()
}

fn count(value: &Value) -> Option<u64> {
    integer(value).and_then(non_negative)
}

/// Stored counts are unsigned; upstream accepts a negative count and ClickHouse then refuses or
/// wraps it, so a negative count is dropped here.
fn non_negative(n: i64) -> Option<u64> {
    u64::try_from(n).ok()
}

fn insert(usage: &mut Usage, key: &str, value: Option<u64>) {
    if let Some(value) = value {
        usage.insert(key.to_owned(), value);
    }
}
