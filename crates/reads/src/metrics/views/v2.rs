//! The v2 views (`/api/public/v2/metrics`): observations are events, a trace is its root
//! observation (spec/v4-migration-spec.md §1.4), scores stay in the v3 `scores` table (reference/storage.md §8.3).

use super::{Join, Measure, Relation, SCORE_DIMENSIONS, TRACE, View, dim, high, measure, num, tags};

/// A score about a trace itself: not about one of its observations, a session or an experiment
/// (the order `scores::subject` decides the kind in).
macro_rules! trace_kind {
    () => {
        "ifNull(observation_id, '') = '' AND ifNull(session_id, '') = '' AND ifNull(dataset_run_id, '') = ''"
    };
}

/// The newest live version of every score whose any version is about one of `$keys` through
/// `$column`; the join on the key then drops a score whose newest version is about something else
/// (`reads::latest`, rule 2).
macro_rules! newest_scores {
    ($columns:literal, $column:literal, $keys:literal) => {
        concat!(
            "(SELECT ",
            $columns,
            ", is_deleted FROM scores WHERE {project} AND id IN (SELECT id FROM scores WHERE {project} AND ",
            $column,
            " IN (",
            $keys,
            ")) {newest_by_id}) WHERE is_deleted = 0"
        )
    };
}

/// Scores per observation of the range, and (trace-kind scores) per trace whose root is in it.
const OBSERVATION_SCORES: Join = Join {
    relation: Relation::Scores,
    sql: concat!(
        " LEFT ANY JOIN (SELECT ifNull(observation_id, '') AS sc_span_id, count() AS sc_n FROM ",
        newest_scores!(
            "id, observation_id",
            "observation_id",
            "SELECT span_id FROM events_core WHERE {where}"
        ),
        " GROUP BY sc_span_id) AS so ON so.sc_span_id = o.span_id",
        " LEFT ANY JOIN (SELECT ifNull(trace_id, '') AS st_trace_id, count() AS st_n FROM ",
        newest_scores!(
            "id, trace_id, observation_id, session_id, dataset_run_id",
            "trace_id",
            "SELECT trace_id FROM events_core WHERE {where} AND parent_span_id = ''"
        ),
        " AND ",
        trace_kind!(),
        " GROUP BY st_trace_id) AS st ON st.st_trace_id = o.trace_id"
    ),
};

/// The root observation of each trace in the range (which may itself start before the range).
const OBSERVATION_TRACE: Join = Join {
    relation: Relation::Trace,
    sql: " LEFT ANY JOIN (SELECT trace_id AS t_trace_id, version AS t_version FROM (SELECT trace_id, span_id, \
          parent_span_id, version, is_deleted FROM events_core WHERE {project} AND trace_id IN (SELECT trace_id \
          FROM events_core WHERE {where}) {newest_by_span_id}) \
          WHERE is_deleted = 0 AND parent_span_id = '' LIMIT 1 BY trace_id) AS tr ON tr.t_trace_id = o.trace_id",
};

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
    // An observation's own scores, and on a root observation its trace's scores too (spec/v4-migration-spec.md §1.4).
    measure("countScores", "sc_n + if(parent_span_id = '', st_n, 0)").via(&[Relation::Scores]),
];

/// The trace of a score (through `trace_id`): the trace's name, user, session and tags resolved
/// across all of its observations (`crate::trace_values`: a stated name over the root's own, the
/// newest user and session any span stated, every span's tags), on the row of its root observation
/// (while the root has not arrived, of its earliest observation), whose release, version and
/// `t_root_` columns are that row's alone.
const SCORE_TRACE: Join = Join {
    relation: Relation::Trace,
    sql: concat!(
        " LEFT ANY JOIN (SELECT trace_id AS t_trace_id, ifNull(",
        resolved_trace_name!(" OVER w"),
        ", '') AS t_name, argMaxIf(user_id, event_ts, user_id != '') OVER w AS t_user_id, \
          argMaxIf(session_id, event_ts, session_id != '') OVER w AS t_session_id, ",
        trace_tags!(" OVER w"),
        " AS t_tags, release AS t_release, \
          if(parent_span_id = '', version, '') AS t_version, if(parent_span_id = '', name, '') AS t_root_name, \
          if(parent_span_id = '', provided_model_name, '') AS t_root_model, \
          if(parent_span_id = '', prompt_name, '') AS t_root_prompt_name, \
          if(parent_span_id = '', prompt_version, NULL) AS t_root_prompt_version \
          FROM (SELECT trace_id, span_id, parent_span_id, start_time, name, version, release, trace_name, user_id, \
          session_id, tags, provided_model_name, prompt_name, prompt_version, event_ts, is_deleted FROM events_core \
          WHERE {project} AND trace_id IN (SELECT trace_id FROM scores WHERE {where}) \
          {newest_by_span_id}) WHERE is_deleted = 0 WINDOW w AS (PARTITION BY trace_id) \
          ORDER BY parent_span_id = '' DESC, start_time ASC LIMIT 1 BY trace_id) AS tr ON tr.t_trace_id = s.trace_id"
    ),
};

const SCORE_OBSERVATION: Join = Join {
    relation: Relation::Observation,
    sql: " LEFT ANY JOIN (SELECT span_id AS o_span_id, name AS o_name, provided_model_name AS o_model, \
          prompt_name AS o_prompt_name, prompt_version AS o_prompt_version FROM (SELECT span_id, name, \
          provided_model_name, prompt_name, prompt_version, is_deleted FROM events_core WHERE {project} \
          AND span_id IN (SELECT observation_id FROM scores WHERE {where}) {newest_by_span_id}) \
          WHERE is_deleted = 0) AS ob ON ob.o_span_id = s.observation_id",
};

const SCORE_JOINS: &[Join] = &[SCORE_TRACE, SCORE_OBSERVATION];

pub const V2_VIEWS: &[View] = &[
    View {
        name: "observations",
        base: "(SELECT * FROM (SELECT span_id, trace_id, parent_span_id, start_time, end_time, completion_start_time, \
               name, type, environment, level, version, release, trace_name, user_id, session_id, tags, \
               provided_model_name, prompt_name, prompt_version, usage_details, calculated_input_cost, \
               calculated_output_cost, calculated_total_cost, is_deleted FROM events_core WHERE {where} \
               {newest_by_span_id}) AS o{joins}) AS base",
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
            // The trace's version is its root's, not the observation's own.
            dim("traceVersion", "t_version").via(TRACE),
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
        joins: &[OBSERVATION_TRACE, OBSERVATION_SCORES],
        unsupported: &[],
    },
    View {
        name: "scores-numeric",
        base: score_base!("NUMERIC"),
        time: "timestamp",
        dimensions: SCORE_DIMENSIONS,
        measures: &[measure("count", "1"), measure("value", "value")],
        joins: SCORE_JOINS,
        unsupported: &[],
    },
    View {
        name: "scores-categorical",
        base: score_base!("CATEGORICAL"),
        time: "timestamp",
        dimensions: SCORE_DIMENSIONS,
        measures: &[measure("count", "1")],
        joins: SCORE_JOINS,
        unsupported: &[],
    },
    View {
        name: "scores-boolean",
        base: score_base!("BOOLEAN"),
        time: "timestamp",
        dimensions: SCORE_DIMENSIONS,
        measures: &[measure("count", "1")],
        joins: SCORE_JOINS,
        unsupported: &[],
    },
];

#[cfg(test)]
mod tests {
    #[test]
    fn trace_kind_is_the_subject_rule_of_the_scores_api() {
        assert_eq!(trace_kind!(), crate::scores::TRACE_KIND);
    }
}
