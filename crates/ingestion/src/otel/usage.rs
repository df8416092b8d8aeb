//! Provided usage and cost details (reference/public-api.md §3.6 "Usage"/"Cost", §2.3 `usageDetails`).
//! Prices are not computed here: these are the counts and amounts the client sent.

use std::collections::BTreeMap;

use domain::event::Decimal12;
use serde_json::{Map, Value};

use super::attributes::{Attributes, parse_json_text};
use super::keys;

pub type Usage = BTreeMap<String, u64>;
pub type Cost = BTreeMap<String, Decimal12>;

pub fn provided_usage(attributes: &Attributes, scope_name: &str) -> Usage {
    if let Some(explicit) = attributes.truthy(keys::OBSERVATION_USAGE_DETAILS).and_then(parse_json_text) {
        return normalise_usage(&explicit);
    }
    match scope_name {
        keys::VERCEL_AI_SCOPE => vercel_ai_usage(attributes),
        keys::PYDANTIC_AI_SCOPE => pydantic_ai_usage(attributes),
        _ => generic_usage(attributes),
    }
}

pub fn provided_cost(attributes: &Attributes) -> Cost {
    if let Some(Value::Object(explicit)) =
        attributes.truthy(keys::OBSERVATION_COST_DETAILS).and_then(parse_json_text)
    {
        // Upstream drops non-numeric, NaN and negative entries silently (reference/public-api.md §2.3).
        return explicit
            .iter()
            .filter_map(|(k, v)| Some((k.clone(), Decimal12::from_f64(number(v)?)?)))
            .collect();
    }
    attributes
        .truthy(keys::USAGE_COST)
        .and_then(number)
        .and_then(Decimal12::from_f64)
        .map(|total| Cost::from([("total".to_owned(), total)]))
        .unwrap_or_default()
}

/// A number, or a string holding one (attribute values and SDK JSON use both).
fn number(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok(),
        // `{"intValue": n}`: an OTLP value the Vercel AI SDK serialised into a string attribute.
        Value::Object(o) => o.get("intValue").and_then(number),
        _ => None,
    }
    .filter(|f| f.is_finite())
}

/// A token count: a non-negative number, fractions truncated.
fn count(value: &Value) -> Option<u64> {
    number(value).filter(|f| *f >= 0.0).map(|f| f.trunc() as u64)
}

/// Usage JSON (`langfuse.observation.usage_details`) through the union upstream validates it with
/// (reference/public-api.md §2.3): the exact OpenAI Chat Completions or Responses usage object —
/// all three counts, no other keys — is mapped to `input`/`output`/`total` plus
/// `input_<detail>`/`output_<detail>` (the details subtracted); anything else is a free-form
/// record of counts whose keys are kept as sent, so `{"prompt_tokens": 10, "completion_tokens": 5}`
/// stays under those names (issue 17) and is priced by the model's prices for those keys.
pub fn normalise_usage(value: &Value) -> Usage {
    let Value::Object(object) = value else { return Usage::new() };
    crate::batch::openai_usage(object)
        .unwrap_or_else(|| object.iter().filter_map(|(k, v)| Some((k.clone(), count(v)?))).collect())
}

/// Every `gen_ai.usage.*` (but the cost) and `llm.token_count.*` attribute, with the OpenAI-style
/// names mapped to `input`/`output`/`total`.
fn generic_usage(attributes: &Attributes) -> Usage {
    let mut usage = Usage::new();
    for prefix in keys::USAGE_PREFIXES {
        for (rest, value) in attributes.with_prefix(prefix) {
            // `<prefix>.<rest>` is the cost key (compared in place: this runs for every usage attribute).
            if keys::USAGE_COST.strip_prefix(prefix).and_then(|r| r.strip_prefix('.')) == Some(rest) {
                continue;
            }
            let Some(n) = count(value) else { continue };
            let key =
                keys::USAGE_KEY_RENAMES.iter().find(|(from, _)| *from == rest).map_or(rest, |(_, to)| *to);
            usage.insert(key.to_owned(), n);
        }
    }
    usage
}

fn pydantic_ai_usage(attributes: &Attributes) -> Usage {
    // Pydantic AI reports totals and details; only the details are used, to avoid double counting.
    let first = |keys: &[&str]| keys.iter().find_map(|k| attributes.get(k)).and_then(count);
    [
        ("input", first(&["gen_ai.usage.details.input_tokens"])),
        ("output", first(&["gen_ai.usage.details.output_tokens"])),
        (
            "input_cache_read",
            first(&[
                "gen_ai.usage.details.cache_read_input_tokens",
                "gen_ai.usage.details.cache_read_tokens",
            ]),
        ),
        (
            "input_cache_creation",
            first(&["gen_ai.usage.cache_write_tokens", "gen_ai.usage.details.cache_creation_input_tokens"]),
        ),
    ]
    .into_iter()
    .filter_map(|(k, v)| Some((k.to_owned(), v?)))
    .collect()
}

/// The Vercel AI SDK: token totals plus cache and reasoning counts from `ai.usage.*` and the
/// provider metadata; cached and reasoning tokens are subtracted from input and output.
fn vercel_ai_usage(attributes: &Attributes) -> Usage {
    let first = |keys: &[&str]| keys.iter().find_map(|k| attributes.get(k)).and_then(count);
    let mut usage = Usage::new();
    let input = first(&["gen_ai.usage.prompt_tokens", "gen_ai.usage.input_tokens"]).unwrap_or(0);
    let output = first(&["gen_ai.usage.completion_tokens", "gen_ai.usage.output_tokens"]).unwrap_or(0);
    if let Some(total) = first(&["ai.usage.tokens"]) {
        usage.insert("total".to_owned(), total);
    }
    let json_count = |key: &str| attributes.get(key).and_then(parse_json_text).as_ref().and_then(count);
    if let Some(n) = json_count("ai.usage.cachedInputTokens") {
        usage.insert("input_cached_tokens".to_owned(), n);
    }
    if let Some(n) = json_count("ai.usage.reasoningTokens") {
        usage.insert("output_reasoning_tokens".to_owned(), n);
    }
    if let Some(Value::Object(providers)) =
        attributes.get("ai.response.providerMetadata").and_then(parse_json_text)
    {
        add_provider_usage(&providers, &mut usage);
    }
    let get = |usage: &Usage, k: &str| usage.get(k).copied().unwrap_or(0);
    let input_subtracted = [
        "input_cached_tokens",
        "input_cache_creation",
        "input_cache_creation_5m",
        "input_cache_creation_1h",
        "input_cache_read",
    ]
    .iter()
    .fold(input, |left, k| left.saturating_sub(get(&usage, k)));
    let output_subtracted = output.saturating_sub(get(&usage, "output_reasoning_tokens"));
    usage.insert("input".to_owned(), input_subtracted);
    usage.insert("output".to_owned(), output_subtracted);
    usage
}

/// (provider key, usage key) pairs.
type Renames = &'static [(&'static str, &'static str)];

/// (provider, path to the usage object, renames); a usage key already set wins.
const PROVIDER_USAGE: &[(&str, &[&str], Renames)] = &[
    (
        "openai",
        &[],
        &[
            ("cachedPromptTokens", "input_cached_tokens"),
            ("acceptedPredictionTokens", "accepted_prediction_tokens"),
            ("rejectedPredictionTokens", "rejected_prediction_tokens"),
            ("reasoningTokens", "output_reasoning_tokens"),
        ],
    ),
    (
        "anthropic",
        &["usage"],
        &[
            ("cache_creation_input_tokens", "input_cache_creation"),
            ("cache_read_input_tokens", "input_cached_tokens"),
        ],
    ),
    (
        "bedrock",
        &["usage"],
        &[
            ("cacheReadInputTokens", "input_cache_read"),
            ("cacheWriteInputTokens", "input_cache_write"),
            ("cacheCreationInputTokens", "input_cache_creation"),
        ],
    ),
];

fn add_provider_usage(providers: &Map<String, Value>, usage: &mut Usage) {
    for (provider, path, mapping) in PROVIDER_USAGE {
        let Some(section) = path.iter().try_fold(providers.get(*provider), |v, p| Some(v?.get(p))).flatten()
        else {
            continue;
        };
        for (from, to) in *mapping {
            if let Some(n) = section.get(from).and_then(count) {
                usage.entry((*to).to_owned()).or_insert(n);
            }
        }
    }
    // Anthropic splits cache creation by TTL; the split parts are not also counted in the total.
    let cache_creation =
        providers.get("anthropic").and_then(|a| a.get("usage")).and_then(|u| u.get("cache_creation"));
    if let Some(Value::Object(split)) = cache_creation {
        for (from, to) in [
            ("ephemeral_5m_input_tokens", "input_cache_creation_5m"),
            ("ephemeral_1h_input_tokens", "input_cache_creation_1h"),
        ] {
            if let Some(n) = split.get(from).and_then(count) {
                usage.entry(to.to_owned()).or_insert(n);
            }
        }
        let parts = ["input_cache_creation_5m", "input_cache_creation_1h"]
            .iter()
            .map(|k| usage.get(*k).copied().unwrap_or(0))
            .sum::<u64>();
        let whole = usage.get("input_cache_creation").copied().unwrap_or(0);
        usage.insert("input_cache_creation".to_owned(), whole.saturating_sub(parts));
    }
}
