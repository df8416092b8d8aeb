//! What each metrics view offers: its deduplicated base rows, time column, dimensions and measures
//! (reference/public-api.md §4.2, storage.md §8.2).

use crate::filter::Kind;

pub struct Dimension {
    pub name: &'static str,
    pub sql: &'static str,
    pub kind: Kind,
    /// One group per row id: needs an explicit row limit and a measure ordering.
    pub high_cardinality: bool,
}

pub struct Measure {
    pub name: &'static str,
    /// The value aggregated; `count` aggregates rows.
    pub sql: &'static str,
}

pub struct View {
    pub name: &'static str,
    /// The newest version of each row in the project and time range: `{where}` is replaced by the
    /// bound conditions. Ends with the alias `base`.
    pub base: &'static str,
    pub time: &'static str,
    pub dimensions: &'static [Dimension],
    pub measures: &'static [Measure],
}

const fn dim(name: &'static str, sql: &'static str) -> Dimension {
    Dimension { name, sql, kind: Kind::Text, high_cardinality: false }
}
const fn high(name: &'static str, sql: &'static str) -> Dimension {
    Dimension { name, sql, kind: Kind::Text, high_cardinality: true }
}
const fn tags(name: &'static str, sql: &'static str) -> Dimension {
    Dimension { name, sql, kind: Kind::Tags, high_cardinality: false }
}
const fn num(name: &'static str, sql: &'static str) -> Dimension {
    Dimension { name, sql, kind: Kind::Number, high_cardinality: false }
}
const fn measure(name: &'static str, sql: &'static str) -> Measure {
    Measure { name, sql }
}

const OBSERVATION_MEASURES: &[Measure] = &[
    measure("count", "1"),
    measure("latency", "date_diff('millisecond', start_time, end_time)"),
    measure("streamingLatency", "date_diff('millisecond', completion_start_time, end_time)"),
    measure("timeToFirstToken", "date_diff('millisecond', start_time, completion_start_time)"),
    measure("inputTokens", "usage_details['input']"),
    measure("outputTokens", "usage_details['output']"),
    measure("totalTokens", "usage_details['total']"),
    measure(
        "outputTokensPerSecond",
        "usage_details['output'] / nullIf(date_diff('millisecond', completion_start_time, end_time) / 1000, 0)",
    ),
    measure(
        "tokensPerSecond",
        "usage_details['total'] / nullIf(date_diff('millisecond', start_time, end_time) / 1000, 0)",
    ),
    measure("inputCost", "toFloat64(calculated_input_cost)"),
    measure("outputCost", "toFloat64(calculated_output_cost)"),
    measure("totalCost", "toFloat64(calculated_total_cost)"),
];

pub const V2_VIEWS: &[View] = &[
    View {
        name: "observations",
        base: "(SELECT span_id, trace_id, parent_span_id, start_time, end_time, completion_start_time, name, type, \
     environment, level, version, release, trace_name, user_id, session_id, tags, provided_model_name, \
     prompt_name, prompt_version, usage_details, calculated_input_cost, calculated_output_cost, \
     calculated_total_cost, is_deleted FROM events_core WHERE {where} \
     ORDER BY event_ts DESC LIMIT 1 BY span_id) AS base",
        time: "start_time",
        dimensions: &[
            dim("environment", "environment"),
            dim("type", "type"),
            dim("name", "name"),
            dim("level", "level"),
            dim("version", "version"),
            tags("tags", "tags"),
            dim("release", "release"),
            dim("traceName", "trace_name"),
            dim("traceRelease", "release"),
            dim("traceVersion", "version"),
            dim("providedModelName", "provided_model_name"),
            dim("promptName", "prompt_name"),
            num("promptVersion", "prompt_version"),
            dim("startTimeMonth", "toStartOfMonth(start_time)"),
            high("id", "span_id"),
            high("traceId", "trace_id"),
            high("userId", "user_id"),
            high("sessionId", "session_id"),
            high("parentObservationId", "parent_span_id"),
        ],
        measures: OBSERVATION_MEASURES,
    },
    SCORES_NUMERIC,
    SCORES_CATEGORICAL,
    View {
        name: "scores-boolean",
        base: "(SELECT id, trace_id, observation_id, session_id, timestamp, environment, name, source, data_type, config_id, \
     value, string_value, is_deleted FROM scores WHERE {where} AND data_type = 'BOOLEAN' \
     ORDER BY event_ts DESC LIMIT 1 BY id) AS base",
        ..SCORES_CATEGORICAL
    },
];

const SCORE_DIMENSIONS: &[Dimension] = &[
    dim("environment", "environment"),
    dim("name", "name"),
    dim("source", "source"),
    dim("dataType", "data_type"),
    dim("configId", "ifNull(config_id, '')"),
    dim("timestampMonth", "toStartOfMonth(timestamp)"),
    dim("timestampDay", "toStartOfDay(timestamp)"),
    num("value", "value"),
    dim("stringValue", "ifNull(string_value, '')"),
    high("id", "id"),
    high("traceId", "ifNull(trace_id, '')"),
    high("observationId", "ifNull(observation_id, '')"),
    high("sessionId", "ifNull(session_id, '')"),
];

const SCORES_NUMERIC: View = View {
    name: "scores-numeric",
    base: "(SELECT id, trace_id, observation_id, session_id, timestamp, environment, name, source, data_type, \
           config_id, value, string_value, is_deleted FROM scores WHERE {where} AND data_type = 'NUMERIC' \
           ORDER BY event_ts DESC LIMIT 1 BY id) AS base",
    time: "timestamp",
    dimensions: SCORE_DIMENSIONS,
    measures: &[measure("count", "1"), measure("value", "value")],
};

const SCORES_CATEGORICAL: View = View {
    name: "scores-categorical",
    base: "(SELECT id, trace_id, observation_id, session_id, timestamp, environment, name, source, data_type, \
           config_id, value, string_value, is_deleted FROM scores WHERE {where} AND data_type = 'CATEGORICAL' \
           ORDER BY event_ts DESC LIMIT 1 BY id) AS base",
    time: "timestamp",
    dimensions: SCORE_DIMENSIONS,
    measures: &[measure("count", "1")],
};

/// The legacy v1 views read the v3 tables.
pub const V1_VIEWS: &[View] = &[
    View {
        name: "traces",
        base: "(SELECT id, name, user_id, session_id, release, version, environment, tags, timestamp, is_deleted \
               FROM traces WHERE {where} ORDER BY event_ts DESC LIMIT 1 BY id) AS base",
        time: "timestamp",
        dimensions: &[
            dim("environment", "environment"),
            dim("name", "name"),
            tags("tags", "tags"),
            dim("release", "ifNull(release, '')"),
            dim("version", "ifNull(version, '')"),
            dim("timestampMonth", "toStartOfMonth(timestamp)"),
            high("id", "id"),
            high("userId", "ifNull(user_id, '')"),
            high("sessionId", "ifNull(session_id, '')"),
        ],
        measures: &[measure("count", "1")],
    },
    View {
        name: "observations",
        base: "(SELECT id AS span_id, trace_id, ifNull(parent_observation_id, '') AS parent_span_id, start_time, \
               end_time, completion_start_time, name, type, environment, level, ifNull(version, '') AS version, \
               ifNull(provided_model_name, '') AS provided_model_name, ifNull(prompt_name, '') AS prompt_name, \
               prompt_version, usage_details, cost_details, is_deleted FROM observations WHERE {where} \
               ORDER BY event_ts DESC LIMIT 1 BY id) AS base",
        time: "start_time",
        dimensions: &[
            dim("environment", "environment"),
            dim("type", "type"),
            dim("name", "name"),
            dim("level", "level"),
            dim("version", "version"),
            dim("providedModelName", "provided_model_name"),
            dim("promptName", "prompt_name"),
            num("promptVersion", "prompt_version"),
            dim("startTimeMonth", "toStartOfMonth(start_time)"),
            high("id", "span_id"),
            high("traceId", "trace_id"),
            high("parentObservationId", "parent_span_id"),
        ],
        measures: &[
            measure("count", "1"),
            measure("latency", "date_diff('millisecond', start_time, end_time)"),
            measure("timeToFirstToken", "date_diff('millisecond', start_time, completion_start_time)"),
            measure("inputTokens", "usage_details['input']"),
            measure("outputTokens", "usage_details['output']"),
            measure("totalTokens", "usage_details['total']"),
            measure("totalCost", "toFloat64(arraySum(mapValues(cost_details)))"),
        ],
    },
    SCORES_NUMERIC,
    SCORES_CATEGORICAL,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_view_has_a_count() {
        for view in V1_VIEWS.iter().chain(V2_VIEWS) {
            assert!(view.measures.iter().any(|m| m.name == "count"), "{}", view.name);
            assert!(view.base.contains("{where}") && view.base.ends_with("AS base"), "{}", view.name);
        }
    }
}
