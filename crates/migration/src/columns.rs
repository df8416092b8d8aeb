//! How v3 rows become `events_full` rows (reference/storage.md §5), as SQL fragments shared by the
//! propagation job and the backfill steps, so the three writers cannot drift apart.
//!
//! Every SELECT built here yields the columns of [`EVENT_COLUMNS`] in that order. Columns left out
//! take their table defaults (`is_app_root`, the `service_*`/`scope_*`/`telemetry_*` columns,
//! skills, the evaluator columns derived from metadata).

/// The `events_full` columns every writer here fills, in order.
pub const EVENT_COLUMNS: &str = "project_id, trace_id, span_id, parent_span_id, start_time, end_time, name, \
    type, environment, version, release, trace_name, user_id, session_id, tags, level, status_message, \
    completion_start_time, bookmarked, public, prompt_id, prompt_name, prompt_version, model_id, \
    provided_model_name, model_parameters, provided_usage_details, usage_details, provided_cost_details, \
    cost_details, usage_pricing_tier_id, usage_pricing_tier_name, tool_definitions, tool_calls, \
    tool_call_names, input, output, metadata_names, metadata_values, experiment_id, experiment_name, \
    experiment_metadata_names, experiment_metadata_values, experiment_description, experiment_dataset_id, \
    experiment_item_id, experiment_item_version, experiment_item_expected_output, \
    experiment_item_metadata_names, experiment_item_metadata_values, experiment_item_root_span_id, source, \
    blob_storage_file_path, event_bytes, created_at, updated_at, event_ts, is_deleted, ingestion_api_key, \
    ingestion_sdk_name, ingestion_sdk_version";

/// The twelve `experiment_*` columns of a span outside any experiment.
pub const NO_EXPERIMENT: &str = "'', '', [], [], '', '', '', NULL, '', [], [], ''";

/// The twelve `experiment_*` columns from a run item joined as `x` (backfill M4; see
/// `backfill::scratch::ITEMS_TABLE` for its columns, plus `owned = 1`). A row the join did not match
/// gets the column defaults (`join_use_nulls = 0`), which are exactly [`NO_EXPERIMENT`].
pub const EXPERIMENT_FROM_JOIN: &str = "x.dataset_run_id, x.dataset_run_name, mapKeys(x.dataset_run_metadata), \
    mapValues(x.dataset_run_metadata), x.dataset_run_description, x.dataset_id, x.dataset_item_id, \
    x.dataset_item_version, x.dataset_item_expected_output, mapKeys(x.dataset_item_metadata), \
    mapValues(x.dataset_item_metadata), x.root_span";

/// Which pipeline wrote a row (`source`), told apart by OTel's `resourceAttributes` metadata key.
#[derive(Debug, Clone, Copy)]
pub enum Source {
    Backfill,
    DualWrite,
}

impl Source {
    fn expression(self, metadata: &str) -> String {
        let (otel, api) = match self {
            Source::Backfill => ("otel-backfill", "ingestion-api-backfill"),
            Source::DualWrite => ("otel-dual-write", "ingestion-api-dual-write"),
        };
        format!("if(mapContains({metadata}, 'resourceAttributes'), '{otel}', '{api}')")
    }
}

/// The latest row of each trace, with the attributes propagated onto events. `filter` restricts
/// the traces read (always to the ids of the batch at hand, so the join stays small).
pub fn latest_traces(filter: &str) -> String {
    format!(
        "(SELECT project_id, id, name, user_id, session_id, version, release, tags, public, bookmarked, metadata \
         FROM traces WHERE {filter} ORDER BY event_ts DESC LIMIT 1 BY project_id, id)"
    )
}

/// The `event_ts` a copied row gets: its source's (so a re-run or an overlap with dual write
/// collapses to the newest write), or, for a row a run item joined as `x` owns, now
/// (experiment-enriched copies must win over plain ones).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    Source,
    FreshWhenOwned,
}

impl Version {
    fn expression(self, alias: &str) -> String {
        match self {
            Version::Source => format!("{alias}.event_ts"),
            Version::FreshWhenOwned => format!("if(x.owned = 1, now64(6), {alias}.event_ts)"),
        }
    }
}

/// [`latest_traces`] for a batch of observations: the traces whose ids `ids` selects (a subquery of
/// `(project_id, trace_id)`), from a week before the batch's earliest start (a trace starts before
/// its spans) to a day after its latest. Binds, in order: earliest start, latest start (as
/// `YYYY-MM-DD hh:mm:ss.fff`), then those of `ids`.
pub fn traces_near(ids: &str) -> String {
    latest_traces(&format!(
        "timestamp >= toDateTime64(?, 3) - INTERVAL 7 DAY AND timestamp <= toDateTime64(?, 3) + INTERVAL 1 DAY \
         AND (project_id, id) IN ({ids})"
    ))
}

/// A v3 trace as its virtual root span `t-<id>` (reference/storage.md §5.1), from alias `t` over `traces`.
pub fn trace_root_select(experiment: &str, version: Version) -> String {
    let event_ts = version.expression("t");
    let source = Source::Backfill.expression("t.metadata");
    format!(
        "t.project_id, t.id, concat('t-', t.id), '', t.timestamp, NULL, t.name, 'SPAN', t.environment, \
         coalesce(t.version, ''), coalesce(t.release, ''), t.name, coalesce(t.user_id, ''), \
         coalesce(t.session_id, ''), t.tags, 'DEFAULT', '', NULL, t.bookmarked, t.public, '', '', NULL, '', '', \
         '{{}}', map(), map(), map(), map(), NULL, NULL, map(), [], [], coalesce(t.input, ''), \
         coalesce(t.output, ''), mapKeys(t.metadata), mapValues(t.metadata), {experiment}, {source}, '', 0, \
         t.created_at, t.updated_at, {event_ts}, t.is_deleted, '', 'unknown', 'unknown'"
    )
}

/// How an observation row `o` (from `observations`, the scratch table or staging) becomes an event,
/// joined with its trace as `t` (reference/storage.md §5.2).
#[derive(Debug, Clone, Copy)]
pub struct ObservationMapping<'a> {
    pub source: Source,
    /// The twelve experiment columns: [`NO_EXPERIMENT`] or [`EXPERIMENT_FROM_JOIN`].
    pub experiment: &'a str,
    pub version: Version,
}

impl ObservationMapping<'_> {
    pub fn select(&self) -> String {
        let (parent, metadata, attribution) = match self.source {
            // Historic rows: an observation whose id is its trace's id is a wrapper trace's root.
            Source::Backfill => (
                "if(o.id = o.trace_id, '', coalesce(o.parent_observation_id, concat('t-', o.trace_id)))",
                "o.metadata",
                "'', 'unknown', 'unknown'",
            ),
            // Staged rows: the staged trace itself (`t-<id>`) is the root. The trace's metadata is
            // merged in, the observation's own keys winning.
            Source::DualWrite => (
                "if(o.id = concat('t-', o.trace_id), '', coalesce(o.parent_observation_id, concat('t-', o.trace_id)))",
                "mapConcat(o.metadata, mapFilter((k, v) -> NOT mapContains(o.metadata, k), t.metadata))",
                "o.ingestion_api_key, o.ingestion_sdk_name, o.ingestion_sdk_version",
            ),
        };
        let source = self.source.expression("o.metadata");
        let experiment = self.experiment;
        let event_ts = self.version.expression("o");
        format!(
            "o.project_id, o.trace_id, o.id, {parent}, o.start_time, o.end_time, o.name, o.type, o.environment, \
             coalesce(o.version, t.version, ''), coalesce(t.release, ''), t.name, coalesce(t.user_id, ''), \
             coalesce(t.session_id, ''), t.tags, o.level, coalesce(o.status_message, ''), \
             o.completion_start_time, t.bookmarked AND o.parent_observation_id IS NULL, t.public, \
             coalesce(o.prompt_id, ''), coalesce(o.prompt_name, ''), o.prompt_version, \
             coalesce(o.internal_model_id, ''), coalesce(o.provided_model_name, ''), \
             coalesce(o.model_parameters, '{{}}'), o.provided_usage_details, o.usage_details, \
             o.provided_cost_details, o.cost_details, o.usage_pricing_tier_id, o.usage_pricing_tier_name, \
             o.tool_definitions, o.tool_calls, o.tool_call_names, coalesce(o.input, ''), coalesce(o.output, ''), \
             mapKeys({metadata}), mapValues({metadata}), {experiment}, {source}, '', 0, o.created_at, \
             o.updated_at, {event_ts}, o.is_deleted, {attribution}"
        )
    }
}

/// The columns of `observations_pid_tid_sorting`: v3 `observations` through upstream 0033.
pub const SCRATCH_COLUMNS: &str = "id, trace_id, project_id, environment, type, parent_observation_id, \
    start_time, end_time, name, metadata, level, status_message, version, input, output, provided_model_name, \
    internal_model_id, model_parameters, provided_usage_details, usage_details, provided_cost_details, \
    cost_details, total_cost, completion_start_time, prompt_id, prompt_name, prompt_version, \
    usage_pricing_tier_id, usage_pricing_tier_name, tool_definitions, tool_calls, tool_call_names, created_at, \
    updated_at, event_ts, is_deleted";

#[cfg(test)]
mod tests {
    use super::*;

    fn count_top_level_commas(sql: &str) -> usize {
        let mut depth = 0i32;
        let mut quoted = false;
        let mut commas = 0;
        for c in sql.chars() {
            match c {
                '\'' => quoted = !quoted,
                '(' | '[' if !quoted => depth += 1,
                ')' | ']' if !quoted => depth -= 1,
                ',' if !quoted && depth == 0 => commas += 1,
                _ => {}
            }
        }
        commas
    }

    #[test]
    fn every_select_yields_one_expression_per_event_column() {
        let columns = count_top_level_commas(EVENT_COLUMNS) + 1;
        assert_eq!(columns, 61);
        for experiment in [NO_EXPERIMENT, EXPERIMENT_FROM_JOIN] {
            assert_eq!(count_top_level_commas(experiment) + 1, 12, "{experiment}");
            let root = trace_root_select(experiment, Version::FreshWhenOwned);
            assert_eq!(count_top_level_commas(&root) + 1, columns);
            for source in [Source::Backfill, Source::DualWrite] {
                let select = ObservationMapping { source, experiment, version: Version::Source }.select();
                assert_eq!(count_top_level_commas(&select) + 1, columns, "{source:?}");
            }
        }
    }

    #[test]
    fn no_mapping_takes_bound_values() {
        for experiment in [NO_EXPERIMENT, EXPERIMENT_FROM_JOIN] {
            assert!(!trace_root_select(experiment, Version::Source).contains('?'));
        }
    }
}
