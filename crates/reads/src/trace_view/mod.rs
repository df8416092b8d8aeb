//! The UI's view of one trace (`/api/ui/projects/{projectId}/traces/{traceId}/…`): the whole tree of
//! its observations in a compact form ([`tree`]), one observation in detail with bounded previews of
//! its large values ([`detail`]), a value in full, and the stored score an edit starts from
//! ([`scores`]). Each reads either data model: the events (the v4 views) or the v3 `traces` and
//! `observations` tables (the v3 views), where the trace itself is the root node `t-<trace id>`,
//! as the backfill writes it into the events (`migration::columns`).

pub mod detail;
pub mod scores;
pub mod tree;

pub use crate::gate::Model;

/// The id of the root node that stands for a v3 trace (as the backfill names its root span).
pub fn trace_root_id(trace_id: &str) -> String {
    format!("t-{trace_id}")
}
