//! What a public link opens, through the same reads as the signed-in trace panel and session page
//! (`reads::trace_view`, `reads::sessions`), scoped to the link's project and target:
//!
//! - a trace link opens that trace: its tree, its observations' details and values;
//! - a session link opens the session (its figures and pages of its traces) and each trace of it.
//!
//! Any other trace or observation is the same 404 as an unknown token. The bodies leave out what
//! would name more of the project than the page shows: scores (their project, config and author
//! ids) and the model definition's id.

use reads::Params;
use reads::sessions::{self, SessionDetail};
use reads::trace_view::detail::{self, Field, FullValue, ObservationDetail};
use reads::trace_view::tree::{self, NO_PARENT, TraceTree};
use reads::trace_view::{Model, trace_root_id};
use serde::Serialize;
use storage::clickhouse::ClickHouse;
use utoipa::ToSchema;

use super::{Kind, Shared};
use crate::{Error, Result};

/// What the public page opens first.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PublicLinkBody {
    pub kind: Kind,
    /// The trace id or the session id.
    pub id: String,
}

pub fn body(shared: &Shared) -> PublicLinkBody {
    PublicLinkBody { kind: shared.kind, id: shared.target_id.clone() }
}

fn not_here() -> Error {
    Error::not_found("No such trace in this public link")
}

/// Whether the trace's session is the link's: the v3 trace row states it; in the events every
/// row carries its trace's session, so `row` (an observation of the trace) answers.
async fn in_session(
    clickhouse: &ClickHouse,
    shared: &Shared,
    trace_id: &str,
    row: &str,
    model: Model,
) -> Result<()> {
    let row = match model {
        Model::V3 => trace_root_id(trace_id),
        Model::V4 => row.to_owned(),
    };
    let found = match detail::detail(clickhouse, &shared.project_id, trace_id, &row, model, 1).await {
        Ok(found) => found,
        Err(reads::ReadError::NotFound(_)) => return Err(not_here()),
        Err(other) => return Err(other.into()),
    };
    if found.session_id.as_deref() == Some(shared.target_id.as_str()) { Ok(()) } else { Err(not_here()) }
}

/// The trace's tree, when the link opens the trace.
pub async fn trace_tree(
    clickhouse: &ClickHouse,
    shared: &Shared,
    trace_id: &str,
    model: Model,
) -> Result<TraceTree> {
    if shared.kind == Kind::Trace && trace_id != shared.target_id {
        return Err(not_here());
    }
    let found = match tree::tree(clickhouse, &shared.project_id, trace_id, model).await {
        Ok(found) => found,
        Err(reads::ReadError::NotFound(_)) => return Err(not_here()),
        Err(other) => return Err(other.into()),
    };
    if shared.kind == Kind::Session {
        let root = found.parents.iter().position(|&p| p == NO_PARENT).unwrap_or(0);
        let row = found.ids.get(root).ok_or_else(not_here)?;
        in_session(clickhouse, shared, trace_id, row, model).await?;
    }
    Ok(found)
}

/// Checks that the link opens `trace_id` before one of its observations is read.
async fn opens(
    clickhouse: &ClickHouse,
    shared: &Shared,
    trace_id: &str,
    observation_id: &str,
    model: Model,
) -> Result<()> {
    match shared.kind {
        Kind::Trace if trace_id == shared.target_id => Ok(()),
        Kind::Trace => Err(not_here()),
        Kind::Session => in_session(clickhouse, shared, trace_id, observation_id, model).await,
    }
}

/// One observation of an opened trace, without its scores or model definition id.
pub async fn observation(
    clickhouse: &ClickHouse,
    shared: &Shared,
    trace_id: &str,
    observation_id: &str,
    model: Model,
    chars: usize,
) -> Result<ObservationDetail> {
    opens(clickhouse, shared, trace_id, observation_id, model).await?;
    let mut found =
        detail::detail(clickhouse, &shared.project_id, trace_id, observation_id, model, chars).await?;
    found.scores.clear();
    found.model_id = None;
    Ok(found)
}

/// One large value of an observation of an opened trace, whole.
pub async fn value(
    clickhouse: &ClickHouse,
    shared: &Shared,
    trace_id: &str,
    observation_id: &str,
    model: Model,
    field: Field,
) -> Result<FullValue> {
    opens(clickhouse, shared, trace_id, observation_id, model).await?;
    Ok(detail::full_value(clickhouse, &shared.project_id, trace_id, observation_id, model, field).await?)
}

/// The session and a page of its traces, when the link opens a session.
pub async fn session(
    clickhouse: &ClickHouse,
    shared: &Shared,
    model: Model,
    params: &Params,
) -> Result<SessionDetail> {
    if shared.kind != Kind::Session {
        return Err(Error::not_found("This public link opens a trace, not a session"));
    }
    let model = match model {
        Model::V3 => sessions::Model::V3,
        Model::V4 => sessions::Model::V4,
    };
    Ok(sessions::get(clickhouse, &shared.project_id, model, &shared.target_id, params).await?)
}
