//! Sessions over the events: a session is the `session_id` each observation carries (the SDKs
//! propagate it to every span of a trace, spec/v4-migration-spec.md §1), so its figures are those of
//! the observations that name it — the same rows the Observations view shows filtered by
//! `sessionId`.

use serde::Deserialize;
use storage::clickhouse::{ClickHouse, NEWEST_BY_SPAN_ID};

use super::{LAST_MOMENT, ListRequest, PREVIEW_CHARS, SessionTrace, TraceRow};
use crate::Result;
use crate::latest;
use crate::page::Paged;
use crate::params::PageRequest;
use crate::sql::{Sql, and, equals, one_of, project};

/// An observation's total cost, as the v2 observations read it: the `total` key when one was
/// given, else the sum of the input and output keys.
const COST: &str =
    "toFloat64(if(mapContains(cost_details, 'total'), cost_details['total'], calculated_total_cost))";

/// The sessions the request finds, each with its newest start (`_last`) and the number of them
/// (`total`, a window over the groups): only the narrow columns, collapsed to their newest
/// version before the session is read off them (`latest`, rule 2).
pub(super) fn ranking(project_id: &str, request: &ListRequest) -> Sql {
    let user = if request.search.is_some() { ", user_id" } else { "" };
    let mut scope = vec![project(project_id)];
    scope.extend(request.range("start_time"));
    let mut sql = Sql::new(&format!(
        "SELECT session_id AS id, max(start_time) AS _last, count() OVER () AS total \
         FROM (SELECT session_id, start_time{user}, is_deleted FROM events_core WHERE "
    ));
    sql.append(&and(&scope))
        .push(NEWEST_BY_SPAN_ID)
        .push(") WHERE is_deleted = 0 AND session_id != '' GROUP BY session_id");
    if let Some(search) = &request.search {
        sql.push(" HAVING positionCaseInsensitive(session_id, ")
            .bind(search.as_str())
            .push(") > 0 OR countIf(positionCaseInsensitive(user_id, ")
            .bind(search.as_str())
            .push(") > 0) > 0");
    }
    sql
}

/// The figures of the sessions `ids` over the request's time range.
pub(super) fn summaries(project_id: &str, request: &ListRequest, ids: Vec<String>) -> Sql {
    let mut scope = vec![project(project_id)];
    scope.extend(request.range("start_time"));
    let rows = latest::EVENTS_CORE.newest_matching(&and(&scope), &one_of("session_id", ids));
    let max_users = super::MAX_USER_IDS;
    let mut sql = Sql::new(&format!(
        "SELECT session_id AS id, toDateTime64(min(start_time), 3) AS firstAt, \
         toDateTime64(max({LAST_MOMENT}), 3) AS lastAt, \
         date_diff('millisecond', min(start_time), max({LAST_MOMENT})) / 1000 AS durationSeconds, \
         uniqExact(trace_id) AS traces, count() AS observations, sum({COST}) AS totalCost, \
         sum(usage_details['total']) AS totalTokens, \
         arraySort(groupUniqArrayIf({max_users})(user_id, user_id != '')) AS userIds, \
         uniqExactIf(user_id, user_id != '') AS userCount FROM "
    ));
    sql.append(&rows).push(" GROUP BY session_id");
    sql
}

/// The start of a root observation's input and output.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Root {
    trace_id: String,
    id: String,
    input_preview: String,
    input_chars: u64,
    output_preview: String,
    output_chars: u64,
}

/// A page of the session's traces, oldest first: each trace's figures over its observations in
/// the session, its name resolved across them, and its root observation's input and output.
pub(super) async fn traces(
    clickhouse: &ClickHouse,
    project_id: &str,
    session_id: &str,
    page: PageRequest,
) -> Result<Paged<SessionTrace>> {
    let rows = latest::EVENTS_CORE.newest_matching(&project(project_id), &equals("session_id", session_id));
    let mut sql = Sql::new(&format!(
        "SELECT trace_id AS id, {name} AS traceName, toDateTime64(min(start_time), 3) AS startTime, \
         toDateTime64(max({LAST_MOMENT}), 3) AS endTime, \
         date_diff('millisecond', min(start_time), max({LAST_MOMENT})) / 1000 AS durationSeconds, \
         count() AS observations, sum({COST}) AS totalCost, sum(usage_details['total']) AS totalTokens, \
         nullIf(argMaxIf(user_id, event_ts, user_id != ''), '') AS userId, \
         count() OVER () AS _total FROM ",
        name = resolved_trace_name!(""),
    ));
    sql.append(&rows)
        .push(" GROUP BY trace_id ORDER BY startTime, id LIMIT ")
        .bind(page.limit)
        .push(" OFFSET ")
        .bind(page.offset());
    let rows: Vec<TraceRow> = sql.fetch(clickhouse).await?;
    let total = rows.first().map_or(0, |r| r.total);
    let mut traces: Vec<SessionTrace> = rows.into_iter().map(|r| r.trace).collect();
    if !traces.is_empty() {
        let roots = roots(clickhouse, project_id, traces.iter().map(|t| t.id.clone()).collect()).await?;
        for trace in &mut traces {
            if let Some(root) = roots.iter().find(|r| r.trace_id == trace.id) {
                trace.root_observation_id = Some(root.id.clone());
                trace.input = Some(root.input_preview.clone()).filter(|s| !s.is_empty());
                trace.input_chars = root.input_chars;
                trace.output = Some(root.output_preview.clone()).filter(|s| !s.is_empty());
                trace.output_chars = root.output_chars;
            }
        }
    }
    Ok(page.page(traces, total))
}

/// The root observation of each trace (the first, should a trace have several), from events_full:
/// events_core keeps only 200 characters of input and output.
async fn roots(clickhouse: &ClickHouse, project_id: &str, trace_ids: Vec<String>) -> Result<Vec<Root>> {
    let scope = and(&[project(project_id), one_of("trace_id", trace_ids)]);
    let rows = latest::EVENTS_FULL.newest_matching(&scope, &Sql::new("parent_span_id = ''"));
    let mut sql = Sql::new(&format!(
        "SELECT trace_id AS traceId, span_id AS id, substringUTF8(input, 1, {PREVIEW_CHARS}) AS inputPreview, \
         lengthUTF8(input) AS inputChars, substringUTF8(output, 1, {PREVIEW_CHARS}) AS outputPreview, \
         lengthUTF8(output) AS outputChars FROM "
    ));
    sql.append(&rows).push(" ORDER BY start_time LIMIT 1 BY trace_id");
    sql.fetch(clickhouse).await
}
