//! Which reads answer in which write mode (spec/v4-migration-spec.md §4.1, 9.3): the legacy reads live while the v3
//! tables are written (`legacy`, `dual`) and are 404 in `events_only`; the v4 reads answer only when
//! the operator opted in to the preview.

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

#[cfg(test)]
mod tests {
    use super::*;

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
