//! Which reads answer in which write mode (spec/v4-migration-spec.md §4.1, 9.3): the legacy reads live while the v3
//! tables are written (`legacy`, `dual`) and are 404 in `events_only`; the v4 reads answer only when
//! the operator opted in to the preview. The UI's views read either data model ([`Model`]) under
//! the same rule, and never the events in `legacy`, which writes none.

use domain::config::{ALLOW_PREVIEW_OPT_IN, WriteMode};

use crate::ReadError;

/// The body upstream sends for a legacy route on an `events_only` deployment.
pub const EVENTS_ONLY_MESSAGE: &str = "This endpoint is not available on deployments running in Langfuse v4 \
     events_only mode. Learn more about Langfuse v4 at: https://langfuse.com/docs/v4";

/// A legacy (v3-table) endpoint: 404 in `events_only`.
pub fn legacy(mode: WriteMode) -> Result<(), ReadError> {
    if mode.writes_legacy_tables() { Ok(()) } else { Err(ReadError::not_found(EVENTS_ONLY_MESSAGE)) }
}

/// A v4 endpoint (`what` names it in the message): 404 unless the preview opt-in is on.
pub fn v4(allow_preview_opt_in: bool, what: &str) -> Result<(), ReadError> {
    if allow_preview_opt_in {
        Ok(())
    } else {
        Err(ReadError::not_found(format!(
            "The {what} is only available in a Langfuse v4 write mode: set {ALLOW_PREVIEW_OPT_IN}=true. \
             Learn more at: https://langfuse.com/docs/v4"
        )))
    }
}

/// Which data model one of the UI's views reads (`model=v3|v4`).
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
    /// otherwise); refused (404) where the write mode cannot serve it: v3 in `events_only` (as the
    /// legacy reads), v4 without the preview opt-in (as the v4 reads), and v4 in `legacy`, which
    /// writes no events whatever the opt-in says.
    pub fn chosen(
        asked: Option<&str>,
        mode: WriteMode,
        allow_preview_opt_in: bool,
    ) -> Result<Self, ReadError> {
        let model = match asked {
            Some("v3") => Self::V3,
            Some("v4") => Self::V4,
            Some(other) => {
                return Err(ReadError::bad_request(format!("`model` must be `v3` or `v4`, got `{other}`")));
            }
            None if mode == WriteMode::EventsOnly => Self::V4,
            None => Self::V3,
        };
        match model {
            Self::V3 => legacy(mode)?,
            Self::V4 if mode == WriteMode::Legacy => {
                return Err(ReadError::not_found(
                    "The v4 views need the events, which the legacy write mode does not write",
                ));
            }
            Self::V4 => v4(allow_preview_opt_in, "v4 views")?,
        }
        Ok(model)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_view_reads_the_model_the_write_mode_serves() {
        use WriteMode::{Dual, EventsOnly, Legacy};
        assert_eq!(Model::chosen(None, EventsOnly, true).unwrap(), Model::V4);
        assert_eq!(Model::chosen(None, Dual, true).unwrap(), Model::V3);
        assert_eq!(Model::chosen(None, Legacy, true).unwrap(), Model::V3);
        assert_eq!(Model::chosen(Some("v4"), Dual, true).unwrap(), Model::V4);
        assert!(
            matches!(Model::chosen(Some("v4"), Dual, false), Err(ReadError::NotFound(_))),
            "v4 needs the opt-in"
        );
        assert!(matches!(Model::chosen(Some("v4"), Legacy, true), Err(ReadError::NotFound(_))), "no events");
        assert!(
            matches!(Model::chosen(Some("v3"), EventsOnly, true), Err(ReadError::NotFound(_))),
            "no v3 tables"
        );
        assert!(matches!(Model::chosen(None, EventsOnly, false), Err(ReadError::NotFound(_))));
        assert!(matches!(Model::chosen(Some("v5"), Dual, true), Err(ReadError::BadRequest(_))));
    }

    #[test]
    fn legacy_reads_follow_the_write_mode() {
        assert!(legacy(WriteMode::Legacy).is_ok());
        assert!(legacy(WriteMode::Dual).is_ok());
        assert_eq!(legacy(WriteMode::EventsOnly).unwrap_err().to_string(), EVENTS_ONLY_MESSAGE);
    }

    #[test]
    fn v4_reads_need_the_opt_in_and_say_so() {
        assert!(v4(true, "observations API").is_ok());
        let message = v4(false, "observations API").unwrap_err().to_string();
        assert!(message.contains("LANGFUSE_MIGRATION_V4_ALLOW_PREVIEW_OPT_IN=true"), "{message}");
    }
}
