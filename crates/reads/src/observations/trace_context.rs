//! `fields=trace_context` as the trace's, not the row's: every observation of a page shows its
//! trace's name and tags, resolved across all of the trace's rows (`crate::trace_values`).

use serde::Deserialize;
use storage::clickhouse::ClickHouse;

use super::ObservationV2;
use crate::Result;
use crate::latest;
use crate::sql::{Sql, and, one_of, project};

/// The SELECT list over the newest rows of the page's traces.
const RESOLVED: &str = concat!(
    "SELECT trace_id AS traceId, ",
    resolved_trace_name!(""),
    " AS traceName, ",
    trace_tags!(""),
    " AS tags FROM "
);

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
