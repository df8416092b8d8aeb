//! Trace deletion (`DELETE /api/public/traces[/{traceId}]`), done before the answer rather than
//! queued: once it returns, no read returns the traces. Spans acknowledged before the deletion but
//! still queued are dropped by the worker (`process::deleted`), because the deletion is marked
//! beside the queue first; spans accepted after it are new data and are stored.

use storage::clickhouse::ClickHouse;
use storage::queue::IngestionQueue;

use crate::batch::{MAX_ID_LENGTH, js_length};
use crate::error::IngestError;

/// The most trace ids one request may delete (upstream takes 1000). Any number travels as one
/// statement per table (`storage::clickhouse::StringList`); this bound keeps one request's work,
/// and its body (about 4 MB of UUIDs), reasonable. docs/limits.md.
pub const MAX_TRACE_IDS: usize = 100_000;

/// Refuses a list of ids a deletion request may not carry, saying why.
pub fn check_trace_ids(trace_ids: &[String]) -> Result<(), IngestError> {
    let count = trace_ids.len();
    if !(1..=MAX_TRACE_IDS).contains(&count) {
        return Err(IngestError::invalid(format!(
            "traceIds must hold between 1 and {MAX_TRACE_IDS} ids; it holds {count}"
        )));
    }
    if trace_ids.iter().any(String::is_empty) {
        return Err(IngestError::invalid("traceIds must not contain an empty id"));
    }
    // No stored trace has a longer id: ingestion refuses them (upstream's `idSchema`).
    if let Some(long) = trace_ids.iter().find(|id| js_length(id) > MAX_ID_LENGTH) {
        return Err(IngestError::invalid(format!(
            "trace ids are at most {MAX_ID_LENGTH} characters long; one has {}",
            js_length(long)
        )));
    }
    Ok(())
}

/// Deletes the traces' rows from every table of both data models. Idempotent, so a failure is
/// answered as unavailable and the client retries.
pub async fn delete_traces(
    queue: &IngestionQueue,
    clickhouse: &ClickHouse,
    project: &str,
    trace_ids: &[String],
) -> Result<(), IngestError> {
    check_trace_ids(trace_ids)?;
    // First the mark, so that a payload acknowledged before this moment and still queued is
    // dropped by the worker instead of bringing the trace back after the DELETE below.
    let now = chrono::Utc::now().timestamp_micros();
    queue.mark_deleted(project, trace_ids, now).await?;
    storage::clickhouse::delete_traces(clickhouse, project, trace_ids).await?;
    tracing::info!(project, traces = trace_ids.len(), "traces deleted");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_lists_are_bounded_and_hold_no_empty_id() {
        assert!(check_trace_ids(&["t1".into()]).is_ok());
        assert!(check_trace_ids(&[]).unwrap_err().message.contains("it holds 0"));
        let too_many = vec!["t".to_owned(); MAX_TRACE_IDS + 1];
        assert!(check_trace_ids(&vec!["t".to_owned(); MAX_TRACE_IDS]).is_ok());
        let message = check_trace_ids(&too_many).unwrap_err().message;
        assert!(message.contains("between 1 and 100000") && message.contains("it holds 100001"), "{message}");
        let long = "x".repeat(MAX_ID_LENGTH + 1);
        assert!(check_trace_ids(&[long]).unwrap_err().message.contains("at most 800 characters"));
        assert!(check_trace_ids(&["t1".into(), String::new()]).unwrap_err().message.contains("empty id"));
    }
}
