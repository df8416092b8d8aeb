//! `fields=trace_context` as the trace's, not the row's: every observation of a trace shows the
//! trace's name and tags, resolved across all of the trace's observations.
//!
//! Each event row carries what its own span said about the trace. A root span without
//! `langfuse.trace.name` stores its own name as the trace name (the trace is named after its
//! root), while a child the SDK propagated `trace_name` to stores the stated name; rows also
//! arrive in any order. So the trace's name is the newest one a span stated, and the root's own
//! name only when none did (upstream's trace view: the newest `trace_name`, else the root's name),
//! and its tags are the union of every span's (upstream keeps a trace's tags as a sorted set).
//!
//! A root row whose trace name is its own span name counts as unstated: either the root named the
//! trace after itself, or it stated the name it has anyway, and then a child's stated name wins,
//! as it does in upstream's v3 merge (the later span overwrites).

use serde::Deserialize;
use storage::clickhouse::ClickHouse;

use super::ObservationV2;
use crate::Result;
use crate::latest;
use crate::sql::{Sql, and, one_of, project};

/// The SELECT list over one trace's newest rows. `argMaxIf` answers `''` when no row qualifies.
const RESOLVED: &str = "SELECT trace_id AS traceId, \
    coalesce(nullIf(argMaxIf(trace_name, event_ts, \
        trace_name != '' AND NOT (parent_span_id = '' AND trace_name = name)), ''), \
      nullIf(argMaxIf(trace_name, event_ts, trace_name != ''), '')) AS traceName, \
    arraySort(groupUniqArrayArray(tags)) AS tags FROM ";

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct TraceContext {
    trace_id: String,
    trace_name: Option<String>,
    tags: Vec<String>,
}

/// Replaces the row-level trace name and tags of the observations that carry the group with
/// their trace's. One query for the whole page.
pub(super) async fn resolve(
    clickhouse: &ClickHouse,
    project_id: &str,
    observations: &mut [ObservationV2],
) -> Result<()> {
    let mut trace_ids: Vec<String> =
        observations.iter().filter(|o| o.trace_context.is_some()).map(|o| o.trace_id.clone()).collect();
    trace_ids.sort_unstable();
    trace_ids.dedup();
    if trace_ids.is_empty() {
        return Ok(());
    }
    let scope = and(&[project(project_id), one_of("trace_id", trace_ids)]);
    let mut sql = Sql::new(RESOLVED);
    sql.append(&latest::EVENTS_CORE.newest_matching(&scope, &Sql::default())).push(" GROUP BY trace_id");
    let resolved: Vec<TraceContext> = sql.fetch(clickhouse).await?;
    for observation in observations {
        let Some(context) = observation.trace_context.as_mut() else { continue };
        if let Some(trace) = resolved.iter().find(|t| t.trace_id == observation.trace_id) {
            context.trace_name.clone_from(&trace.trace_name);
            context.tags.clone_from(&trace.tags);
        }
    }
    Ok(())
}
