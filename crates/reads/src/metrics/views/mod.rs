//! What each metrics view offers: its deduplicated base rows, time column, dimensions and measures
//! (reference/public-api.md §4.2, reference/storage.md §8.2), and the joins some of them need.
//!
//! A view's base is a template: `{where}` becomes the bound project and time-range conditions,
//! `{project}` the project condition alone, `{joins}` the joins the query needs. A dimension or
//! measure that lives on another table names its [`Relation`]; the compiler adds that relation's
//! join only when a requested dimension, filter or measure needs it, so a plain query stays one
//! scan. Joined columns carry a prefix (`t_` trace, `o_` observation, `sc_`/`st_` score counts) so
//! they never collide with the base columns.

/// The newest version of each score of one data type in the range, as `s`.
macro_rules! score_base {
    ($data_type:literal) => {
        concat!(
            "(SELECT * FROM (SELECT id, trace_id, observation_id, session_id, dataset_run_id, timestamp, environment, \
             name, source, data_type, config_id, value, string_value, is_deleted FROM scores WHERE {where} \
             AND data_type = '",
            $data_type,
            "' {newest_by_id}) AS s{joins}) AS base"
        )
    };
}

mod v1;
mod v2;

pub use v1::V1_VIEWS;
pub use v2::V2_VIEWS;

use crate::filter::Kind;

/// Another table a dimension or measure reads from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relation {
    /// The trace of the row (v4: its root observation, spec/v4-migration-spec.md §1.4; v3: the `traces` row).
    Trace,
    /// The observation a score is attached to.
    Observation,
    /// The scores attached to an observation.
    Scores,
}

pub struct Dimension {
    pub name: &'static str,
    pub sql: &'static str,
    pub kind: Kind,
    /// One group per row id: needs an explicit row limit and a measure ordering.
    pub high_cardinality: bool,
    pub needs: &'static [Relation],
}

pub struct Measure {
    pub name: &'static str,
    /// The value aggregated; `count` aggregates rows.
    pub sql: &'static str,
    pub needs: &'static [Relation],
}

/// The join clause of a relation, a template like the base.
pub struct Join {
    pub relation: Relation,
    pub sql: &'static str,
}

pub struct View {
    pub name: &'static str,
    /// The newest version of each row in the project and time range, as `(…) AS base`.
    pub base: &'static str,
    pub time: &'static str,
    pub dimensions: &'static [Dimension],
    pub measures: &'static [Measure],
    pub joins: &'static [Join],
    /// Dimensions and measures the reference lists for this view that this API generation does not
    /// offer: asking for one is a 400 that says so, rather than "invalid".
    pub unsupported: &'static [&'static str],
}

const fn dim(name: &'static str, sql: &'static str) -> Dimension {
    Dimension { name, sql, kind: Kind::Text, high_cardinality: false, needs: &[] }
}
const fn high(name: &'static str, sql: &'static str) -> Dimension {
    Dimension { high_cardinality: true, ..dim(name, sql) }
}
const fn tags(name: &'static str, sql: &'static str) -> Dimension {
    Dimension { kind: Kind::Tags, ..dim(name, sql) }
}
const fn num(name: &'static str, sql: &'static str) -> Dimension {
    Dimension { kind: Kind::Number, ..dim(name, sql) }
}
const fn measure(name: &'static str, sql: &'static str) -> Measure {
    Measure { name, sql, needs: &[] }
}

impl Dimension {
    const fn via(self, needs: &'static [Relation]) -> Self {
        Self { needs, ..self }
    }
}

impl Measure {
    const fn via(self, needs: &'static [Relation]) -> Self {
        Self { needs, ..self }
    }
}

const TRACE: &[Relation] = &[Relation::Trace];
/// A score's observation dimensions: its observation, or for a trace's own score the trace's root
/// observation (spec/v4-migration-spec.md §1.4), which the trace join carries.
const OBSERVATION: &[Relation] = &[Relation::Trace, Relation::Observation];

/// A score's observation value: from its observation, else (a score about the trace itself, not a
/// session or an experiment) from its trace's root observation. `$fallback` is the value when
/// neither applies.
macro_rules! observation_or_root {
    ($observation:literal, $root:literal, $fallback:literal) => {
        concat!(
            "if(ifNull(observation_id, '') != '', ",
            $observation,
            ", if(ifNull(session_id, '') = '' AND ifNull(dataset_run_id, '') = '', ",
            $root,
            ", ",
            $fallback,
            "))"
        )
    };
}

/// The score views' dimensions, both API generations: the join templates of each produce the same
/// `t_` and `o_` columns.
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
    dim("traceName", "t_name").via(TRACE),
    tags("tags", "t_tags").via(TRACE),
    dim("traceRelease", "t_release").via(TRACE),
    dim("traceVersion", "t_version").via(TRACE),
    dim("observationName", observation_or_root!("o_name", "t_root_name", "''")).via(OBSERVATION),
    dim("observationModelName", observation_or_root!("o_model", "t_root_model", "''")).via(OBSERVATION),
    dim("observationPromptName", observation_or_root!("o_prompt_name", "t_root_prompt_name", "''"))
        .via(OBSERVATION),
    num(
        "observationPromptVersion",
        observation_or_root!("o_prompt_version", "t_root_prompt_version", "NULL"),
    )
    .via(OBSERVATION),
    high("id", "id"),
    high("traceId", "ifNull(trace_id, '')"),
    high("observationId", "ifNull(observation_id, '')"),
    high("userId", "t_user_id").via(TRACE),
    // A session's own score, else the session of the scored trace.
    high("sessionId", "coalesce(nullIf(session_id, ''), t_session_id)").via(TRACE),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_view_has_a_count_and_a_base() {
        for view in V1_VIEWS.iter().chain(V2_VIEWS) {
            assert!(view.measures.iter().any(|m| m.name == "count"), "{}", view.name);
            assert!(view.base.contains("{where}") && view.base.ends_with("AS base"), "{}", view.name);
            assert!(view.base.contains("{joins}"), "{}", view.name);
        }
    }

    #[test]
    fn every_relation_a_view_uses_has_its_join() {
        for view in V1_VIEWS.iter().chain(V2_VIEWS) {
            let needs = view
                .dimensions
                .iter()
                .flat_map(|d| d.needs)
                .chain(view.measures.iter().flat_map(|m| m.needs));
            for relation in needs {
                assert!(
                    view.joins.iter().any(|j| j.relation == *relation),
                    "{} lacks {relation:?}",
                    view.name
                );
            }
            for join in view.joins {
                assert!(join.sql.starts_with(" LEFT ANY JOIN "), "{}: {}", view.name, join.sql);
            }
        }
    }

    #[test]
    fn unsupported_names_are_not_also_offered() {
        for view in V1_VIEWS.iter().chain(V2_VIEWS) {
            for name in view.unsupported {
                assert!(!view.dimensions.iter().any(|d| d.name == *name), "{}: {name}", view.name);
                assert!(!view.measures.iter().any(|m| m.name == *name), "{}: {name}", view.name);
            }
        }
    }
}
