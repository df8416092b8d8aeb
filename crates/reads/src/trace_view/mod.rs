//! The UI's view of one trace (`/api/ui/projects/{projectId}/traces/{traceId}/…`): the whole tree of
//! its observations in a compact form ([`tree`]), one observation in detail with bounded previews of
//! its large values ([`detail`]), a value in full, and the stored score an edit starts from
//! ([`scores`]). Each reads either data model: the events (the v4 views) or the v3 `traces` and
//! `observations` tables (the v3 views), where the trace itself is the root node `t-<trace id>`,
//! as the backfill writes it into the events (`migration::columns`).

pub mod detail;
pub mod scores;
pub mod tree;

use domain::config::WriteMode;

use crate::{ReadError, gate};

/// Which data model a view reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Model {
    /// The v3 tables (`traces`, `observations`).
    V3,
    /// The events (`events_core`, `events_full`).
    V4,
}

impl Model {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::V3 => "v3",
            Self::V4 => "v4",
        }
    }

    /// `model=v3|v4` as asked for, else the model the write mode writes (v4 in `events_only`, v3
    /// otherwise); refused where the public reads of that model are (`gate`): v3 in `events_only`,
    /// v4 without the preview opt-in.
    pub fn chosen(
        asked: Option<&str>,
        mode: WriteMode,
        allow_preview_opt_in: bool,
    ) -> Result<Self, ReadError> {
        let model = match asked {
            Some("v3") => Self::V3,
            Some("v4") => Self::V4,
            Some(other) => {
                return Err(ReadError::bad_request(format!("model must be v3 or v4, got {other:?}")));
            }
            None if mode == WriteMode::EventsOnly => Self::V4,
            None => Self::V3,
        };
        match model {
            Self::V3 => gate::legacy(mode)?,
            Self::V4 => gate::v4(allow_preview_opt_in, "v4 trace view")?,
        }
        Ok(model)
    }
}

/// The id of the root node that stands for a v3 trace (as the backfill names its root span).
pub fn trace_root_id(trace_id: &str) -> String {
    format!("t-{trace_id}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_follows_the_write_mode_unless_asked_and_allowed() {
        assert_eq!(Model::chosen(None, WriteMode::EventsOnly, true).unwrap(), Model::V4);
        assert_eq!(Model::chosen(None, WriteMode::Dual, true).unwrap(), Model::V3);
        assert_eq!(Model::chosen(Some("v4"), WriteMode::Dual, true).unwrap(), Model::V4);
        assert!(Model::chosen(Some("v4"), WriteMode::Dual, false).is_err(), "v4 needs the opt-in");
        assert!(Model::chosen(Some("v3"), WriteMode::EventsOnly, true).is_err(), "no v3 tables");
        assert!(matches!(Model::chosen(Some("v5"), WriteMode::Dual, true), Err(ReadError::BadRequest(_))));
    }
}
