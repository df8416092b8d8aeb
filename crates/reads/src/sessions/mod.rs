//! The UI's sessions pages (`/api/ui/projects/{projectId}/sessions[/{sessionId}]`): every session of
//! a project with its figures, and one session's traces with their inputs and outputs, aggregated
//! in ClickHouse from either data model — the events (`v4.rs`) or the v3 tables (`v3.rs`). Which
//! model a request reads is its `model` parameter; web checks it against the write mode.
//!
//! A list page is two statements: the first finds the page's sessions and the total from the
//! narrow columns only (session, time, and the user when searching), the second aggregates the
//! wide ones (usage and cost maps) for those sessions alone, so a page costs one scan of the
//! project's ids and times however many sessions it has. Both collapse versions as `latest`
//! does, so a row written twice counts once and a deleted one not at all.

mod v3;
mod v4;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use storage::clickhouse::ClickHouse;
use utoipa::ToSchema;

use crate::page::Paged;
use crate::params::PageRequest;
use crate::sql::{Sql, time_bound};
use crate::{Params, ReadError, Result};

/// The longest `search` (characters).
pub const MAX_SEARCH_CHARS: usize = 200;
/// User ids listed per session (`userCount` counts them all).
pub const MAX_USER_IDS: usize = 10;
/// Characters of a trace's input or output a session page shows (`inputChars` and
/// `outputChars` give the whole length; the trace page shows the full value).
pub const PREVIEW_CHARS: usize = 2000;

pub use crate::gate::Model;

/// One session as the list shows it.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionSummary {
    pub id: String,
    /// The first start of anything in the session (ISO 8601, milliseconds).
    pub first_at: String,
    /// The last start or end of anything in the session.
    pub last_at: String,
    /// `lastAt` − `firstAt`.
    pub duration_seconds: f64,
    pub traces: u64,
    pub observations: u64,
    /// USD, the sum of the observations' total cost.
    pub total_cost: f64,
    /// The sum of the observations' `total` usage.
    pub total_tokens: u64,
    /// At most [`MAX_USER_IDS`], sorted.
    pub user_ids: Vec<String>,
    pub user_count: u64,
}

/// One trace of a session, with the start of its input and output.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionTrace {
    pub id: String,
    #[serde(alias = "traceName")]
    pub name: Option<String>,
    pub start_time: String,
    pub end_time: String,
    pub duration_seconds: f64,
    pub observations: u64,
    pub total_cost: f64,
    pub total_tokens: u64,
    pub user_id: Option<String>,
    /// v4: the root observation whose input and output these are (absent while it has not
    /// arrived); v3: absent, the trace itself carries them.
    #[serde(default)]
    pub root_observation_id: Option<String>,
    /// The first [`PREVIEW_CHARS`] characters.
    #[serde(default, alias = "inputPreview")]
    pub input: Option<String>,
    /// The whole input's length in characters.
    #[serde(default)]
    pub input_chars: u64,
    #[serde(default, alias = "outputPreview")]
    pub output: Option<String>,
    #[serde(default)]
    pub output_chars: u64,
}

/// A session and a page of its traces, oldest first.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionDetail {
    pub session: SessionSummary,
    pub traces: Paged<SessionTrace>,
}

/// What a list request asks for.
#[derive(Debug, Clone)]
pub struct ListRequest {
    pub page: PageRequest,
    pub from: Option<DateTime<Utc>>,
    pub to: Option<DateTime<Utc>>,
    pub search: Option<String>,
}

impl ListRequest {
    /// `page`, `limit` (1–100), `fromTimestamp`, `toTimestamp`, `search` (≤ [`MAX_SEARCH_CHARS`]).
    pub fn parse(params: &Params) -> Result<Self> {
        let search = params.get("search").map(str::trim).filter(|s| !s.is_empty());
        if search.is_some_and(|s| s.chars().count() > MAX_SEARCH_CHARS) {
            return Err(ReadError::bad_request(format!(
                "`search` is longer than {MAX_SEARCH_CHARS} characters"
            )));
        }
        let (from, to) = (params.datetime("fromTimestamp")?, params.datetime("toTimestamp")?);
        if let (Some(from), Some(to)) = (from, to)
            && from > to
        {
            return Err(ReadError::bad_request("`fromTimestamp` is after `toTimestamp`"));
        }
        Ok(Self { page: PageRequest::parse(params)?, from, to, search: search.map(str::to_owned) })
    }

    /// `column >= from AND column < to`, for what is given.
    fn range(&self, column: &str) -> Vec<Sql> {
        let mut out = Vec::new();
        if let Some(from) = self.from {
            out.push(time_bound(column, ">=", from));
        }
        if let Some(to) = self.to {
            out.push(time_bound(column, "<", to));
        }
        out
    }
}

/// A session id of the page, with the total the window counted.
#[derive(Debug, Deserialize)]
struct Ranked {
    id: String,
    total: u64,
}

/// The sessions of a project, newest activity first (by the session's newest start, which the
/// narrow columns give; ties by id). v4 counts the observations that start in the time range; v3 the traces that do, with
/// all their observations.
pub async fn list(
    clickhouse: &ClickHouse,
    project_id: &str,
    model: Model,
    params: &Params,
) -> Result<Paged<SessionSummary>> {
    let request = ListRequest::parse(params)?;
    let ranking = match model {
        Model::V4 => v4::ranking(project_id, &request),
        Model::V3 => v3::ranking(project_id, &request),
    };
    let mut page = ranking.clone();
    page.push(" ORDER BY _last DESC, id DESC LIMIT ")
        .bind(request.page.limit)
        .push(" OFFSET ")
        .bind(request.page.offset());
    let ranked: Vec<Ranked> = page.fetch(clickhouse).await?;
    let total = match ranked.first() {
        Some(first) => first.total,
        // Past the last page the window has no row to count on.
        None => {
            let mut sessions = Sql::new("(");
            sessions.append(&ranking).push(")");
            crate::sql::count_rows(clickhouse, &sessions).await?
        }
    };
    let ids: Vec<String> = ranked.into_iter().map(|r| r.id).collect();
    let mut data = summaries(clickhouse, project_id, model, &request, ids.clone()).await?;
    // The second statement groups in no particular order: put the rows back in the page's.
    data.sort_by_key(|s| ids.iter().position(|id| *id == s.id));
    Ok(request.page.page(data, total))
}

async fn summaries(
    clickhouse: &ClickHouse,
    project_id: &str,
    model: Model,
    request: &ListRequest,
    ids: Vec<String>,
) -> Result<Vec<SessionSummary>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let sql = match model {
        Model::V4 => v4::summaries(project_id, request, ids),
        Model::V3 => v3::summaries(project_id, request, ids),
    };
    sql.fetch(clickhouse).await
}

/// One session's figures (all time) and a page (`page`, `limit` 1–100) of its traces, oldest first.
pub async fn get(
    clickhouse: &ClickHouse,
    project_id: &str,
    model: Model,
    session_id: &str,
    params: &Params,
) -> Result<SessionDetail> {
    let page = PageRequest::parse(params)?;
    let everything = ListRequest { page, from: None, to: None, search: None };
    let session = summaries(clickhouse, project_id, model, &everything, vec![session_id.to_owned()])
        .await?
        .into_iter()
        .next()
        .ok_or_else(|| ReadError::not_found("Session not found"))?;
    let traces = match model {
        Model::V4 => v4::traces(clickhouse, project_id, session_id, page).await?,
        Model::V3 => v3::traces(clickhouse, project_id, session_id, page).await?,
    };
    Ok(SessionDetail { session, traces })
}

/// A trace row of a session page with the window's total.
#[derive(Debug, Deserialize)]
struct TraceRow {
    #[serde(flatten)]
    trace: SessionTrace,
    #[serde(rename = "_total")]
    total: u64,
}

/// The last moment of a row with `start_time` and `end_time`: its end, or its start while it has
/// none (an event, an unfinished span).
const LAST_MOMENT: &str = "greatest(start_time, ifNull(end_time, start_time))";

#[cfg(test)]
mod tests;
