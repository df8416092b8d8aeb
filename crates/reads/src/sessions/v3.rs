//! Sessions over the v3 tables: a session is the `session_id` of traces, and its figures are its
//! traces' with all their observations (as `/api/public/sessions` groups them).

use storage::clickhouse::{ClickHouse, NEWEST_BY_ID};

use super::{LAST_MOMENT, ListRequest, MAX_USER_IDS, PREVIEW_CHARS, SessionTrace, TraceRow};
use crate::Result;
use crate::latest;
use crate::page::Paged;
use crate::params::PageRequest;
use crate::sql::{Sql, and, equals, one_of, project};

/// The sessions the request finds, each with its newest trace's start (`_last`) and the number
/// of them (`total`, a window over the groups), from the traces' narrow columns.
pub(super) fn ranking(project_id: &str, request: &ListRequest) -> Sql {
    let user = if request.search.is_some() { ", user_id" } else { "" };
    let mut scope = vec![project(project_id)];
    scope.extend(request.range("timestamp"));
    let mut sql = Sql::new(&format!(
        "SELECT assumeNotNull(session_id) AS id, max(timestamp) AS _last, count() OVER () AS total \
         FROM (SELECT session_id, timestamp{user}, is_deleted FROM traces WHERE "
    ));
    sql.append(&and(&scope))
        .push(NEWEST_BY_ID)
        .push(") WHERE is_deleted = 0 AND ifNull(session_id, '') != '' GROUP BY session_id");
    if let Some(search) = &request.search {
        sql.push(" HAVING positionCaseInsensitive(assumeNotNull(session_id), ")
            .bind(search.as_str())
            .push(") > 0 OR countIf(positionCaseInsensitive(ifNull(user_id, ''), ")
            .bind(search.as_str())
            .push(") > 0) > 0");
    }
    sql
}

/// One row per trace of `scope` whose newest version satisfies `matching`, with its observations'
/// figures: `tid`, `sid`, `uid`, `tname`, `tinput`, `toutput`, `t_first`, `t_last` (the trace's
/// own timestamp and its observations' starts and ends), `n`, `cost`, `tokens`.
fn per_trace(project_id: &str, scope: &Sql, matching: &Sql) -> Sql {
    let mut sql = Sql::new(
        "SELECT latest.id AS tid, assumeNotNull(latest.session_id) AS sid, ifNull(latest.user_id, '') AS uid, \
         latest.name AS tname, latest.input AS tinput, latest.output AS toutput, \
         if(o.o_n > 0, least(latest.timestamp, o.o_first), latest.timestamp) AS t_first, \
         if(o.o_n > 0, greatest(latest.timestamp, o.o_last), latest.timestamp) AS t_last, \
         o.o_n AS n, o.o_cost AS cost, o.o_tokens AS tokens FROM ",
    );
    sql.append(&latest::TRACES.newest_matching(scope, matching));
    sql.push(&format!(
        " LEFT ANY JOIN (SELECT trace_id, min(start_time) AS o_first, max({LAST_MOMENT}) AS o_last, \
         count() AS o_n, sum(toFloat64(ifNull(total_cost, 0))) AS o_cost, sum(usage_details['total']) AS o_tokens \
         FROM (SELECT trace_id, start_time, end_time, total_cost, usage_details, is_deleted FROM observations \
         WHERE "
    ));
    sql.append(&project(project_id)).push(" AND trace_id IN (SELECT id FROM traces WHERE ");
    sql.append(scope).push(" AND (").append(matching).push("))");
    sql.push(NEWEST_BY_ID).push(") WHERE is_deleted = 0 GROUP BY trace_id) AS o ON o.trace_id = latest.id");
    sql
}

/// The figures of the sessions `ids` over the traces that start in the request's time range.
pub(super) fn summaries(project_id: &str, request: &ListRequest, ids: Vec<String>) -> Sql {
    let mut scope = vec![project(project_id)];
    scope.extend(request.range("timestamp"));
    let traces = per_trace(project_id, &and(&scope), &one_of("session_id", ids));
    let mut sql = Sql::new(&format!(
        "SELECT sid AS id, toDateTime64(min(t_first), 3) AS firstAt, toDateTime64(max(t_last), 3) AS lastAt, \
         date_diff('millisecond', min(t_first), max(t_last)) / 1000 AS durationSeconds, \
         count() AS traces, sum(n) AS observations, sum(cost) AS totalCost, sum(tokens) AS totalTokens, \
         arraySort(groupUniqArrayIf({MAX_USER_IDS})(uid, uid != '')) AS userIds, \
         uniqExactIf(uid, uid != '') AS userCount FROM ("
    ));
    sql.append(&traces).push(") GROUP BY sid");
    sql
}

/// A page of the session's traces, oldest first, with the start of each one's input and output.
pub(super) async fn traces(
    clickhouse: &ClickHouse,
    project_id: &str,
    session_id: &str,
    page: PageRequest,
) -> Result<Paged<SessionTrace>> {
    let traces = per_trace(project_id, &project(project_id), &equals("session_id", session_id));
    let mut sql = Sql::new(&format!(
        "SELECT tid AS id, nullIf(tname, '') AS traceName, toDateTime64(t_first, 3) AS startTime, \
         toDateTime64(t_last, 3) AS endTime, date_diff('millisecond', t_first, t_last) / 1000 AS durationSeconds, \
         n AS observations, cost AS totalCost, tokens AS totalTokens, nullIf(uid, '') AS userId, \
         nullIf(substringUTF8(ifNull(tinput, ''), 1, {PREVIEW_CHARS}), '') AS inputPreview, \
         lengthUTF8(ifNull(tinput, '')) AS inputChars, \
         nullIf(substringUTF8(ifNull(toutput, ''), 1, {PREVIEW_CHARS}), '') AS outputPreview, \
         lengthUTF8(ifNull(toutput, '')) AS outputChars, count() OVER () AS _total FROM ("
    ));
    sql.append(&traces)
        .push(") ORDER BY t_first, id LIMIT ")
        .bind(page.limit)
        .push(" OFFSET ")
        .bind(page.offset());
    let rows: Vec<TraceRow> = sql.fetch(clickhouse).await?;
    let total = rows.first().map_or(0, |r| r.total);
    Ok(page.page(rows.into_iter().map(|r| r.trace).collect(), total))
}
