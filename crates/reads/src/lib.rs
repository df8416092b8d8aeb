//! The public read APIs, as queries and response bodies: the v4 reads (v2 observations, v3 scores,
//! v2 metrics, experiments) on the events tables, and the legacy v1 reads on the v3 tables.
//!
//! Each endpoint is one function from the request's parameters to its typed body (`Serialize` +
//! `utoipa::ToSchema`, so a change of shape is a compile error in web and shows in the OpenAPI
//! document). Which endpoint is
//! available in which write mode is decided by the web binary ([`gate`]); everything here assumes
//! it may run.
//!
//! Correctness without FINAL: every query picks the newest version of a row with
//! `ORDER BY …, event_ts DESC LIMIT 1 BY <id>` inside the filtered set, so a span or trace written
//! twice (a retried insert, a backfill re-run, the dual path) shows once, in its newest form. See
//! ARCHITECTURE.md for what that leaves to background merges.

#[macro_use]
mod trace_values;

pub mod cursor;
pub mod dataset_compare;
pub mod exists;
pub mod experiments;
pub mod filter;
pub mod gate;
pub mod latest;
pub mod legacy;
pub mod metrics;
pub mod model_prices;
pub mod observations;
pub mod page;
pub mod params;
pub mod render;
pub mod scores;
pub mod sessions;
pub mod sql;
pub mod trace_view;

pub use page::{CursorMeta, CursorPage, PageMeta, Paged};
pub use params::Params;

/// Why a read could not be answered.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The request is wrong; the message says how (a 400).
    #[error("{0}")]
    BadRequest(String),
    /// What was asked for does not exist in this project (a 404).
    #[error("{0}")]
    NotFound(String),
    #[error(transparent)]
    Storage(#[from] storage::Error),
    /// The engine answered something we could not read.
    #[error("{0}")]
    Internal(String),
}

impl ReadError {
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::BadRequest(message.into())
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::NotFound(message.into())
    }
}

pub type Result<T, E = ReadError> = std::result::Result<T, E>;
