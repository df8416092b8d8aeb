//! The legacy v1 views (`/api/public/metrics`) read the v3 tables: traces, observations and scores
//! are separate rows there, and a trace has no root observation.

use super::{Join, Relation, SCORE_DIMENSIONS, View, dim, high, measure, num, tags};

/// The `traces` row of a score. v3 traces have no root observation, so a trace's own score has no
/// observation dimensions (the `t_root_` columns are empty).
const SCORE_TRACE: Join = Join {
    relation: Relation::Trace,
    sql: " LEFT ANY JOIN (SELECT id AS t_trace_id, name AS t_name, ifNull(user_id, '') AS t_user_id, \
          ifNull(session_id, '') AS t_session_id, tags AS t_tags, ifNull(release, '') AS t_release, \
          ifNull(version, '') AS t_version, '' AS t_root_name, '' AS t_root_model, '' AS t_root_prompt_name, \
          CAST(NULL AS Nullable(UInt16)) AS t_root_prompt_version FROM (SELECT id, name, user_id, session_id, tags, \
          release, version, is_deleted FROM traces WHERE {project} AND id IN (SELECT trace_id FROM scores \
          WHERE {where}) {newest_by_id}) WHERE is_deleted = 0) AS tr ON tr.t_trace_id = s.trace_id",
};

const SCORE_OBSERVATION: Join = Join {
    relation: Relation::Observation,
    sql: " LEFT ANY JOIN (SELECT id AS o_span_id, name AS o_name, ifNull(provided_model_name, '') AS o_model, \
          ifNull(prompt_name, '') AS o_prompt_name, prompt_version AS o_prompt_version FROM (SELECT id, name, \
          provided_model_name, prompt_name, prompt_version, is_deleted FROM observations WHERE {project} \
          AND id IN (SELECT observation_id FROM scores WHERE {where}) {newest_by_id}) \
          WHERE is_deleted = 0) AS ob ON ob.o_span_id = s.observation_id",
};

const SCORE_JOINS: &[Join] = &[SCORE_TRACE, SCORE_OBSERVATION];

/// Scores per observation of the range; candidates by any version, then the newest (see v2).
const OBSERVATION_SCORES: Join = Join {
    relation: Relation::Scores,
    sql: " LEFT ANY JOIN (SELECT ifNull(observation_id, '') AS sc_span_id, count() AS sc_n FROM (SELECT id, \
          observation_id, is_deleted FROM scores WHERE {project} AND id IN (SELECT id FROM scores WHERE {project} \
          AND observation_id IN (SELECT id FROM observations WHERE {where})) {newest_by_id}) \
          WHERE is_deleted = 0 GROUP BY sc_span_id) AS so ON so.sc_span_id = o.span_id",
};

pub const V1_VIEWS: &[View] = &[
    View {
        name: "traces",
        base: "(SELECT * FROM (SELECT id, name, user_id, session_id, release, version, environment, tags, timestamp, \
               is_deleted FROM traces WHERE {where} {newest_by_id}) AS t{joins}) AS base",
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
        joins: &[],
        unsupported: &[],
    },
    View {
        name: "observations",
        base: "(SELECT * FROM (SELECT id AS span_id, trace_id, ifNull(parent_observation_id, '') AS parent_span_id, \
               start_time, end_time, completion_start_time, name, type, environment, level, \
               ifNull(version, '') AS version, ifNull(provided_model_name, '') AS provided_model_name, \
               ifNull(prompt_name, '') AS prompt_name, prompt_version, usage_details, cost_details, is_deleted \
               FROM observations WHERE {where} {newest_by_id}) AS o{joins}) AS base",
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
            measure("countScores", "sc_n").via(&[Relation::Scores]),
        ],
        joins: &[OBSERVATION_SCORES],
        // The trace columns live on the v3 `traces` rows; the v2 API reads them from the events.
        unsupported: &[
            "tags",
            "release",
            "traceName",
            "traceRelease",
            "traceVersion",
            "userId",
            "sessionId",
            "streamingLatency",
            "outputTokensPerSecond",
            "tokensPerSecond",
            "inputCost",
            "outputCost",
        ],
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
];
