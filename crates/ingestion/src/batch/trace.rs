//! `trace-create` bodies (upstream `TraceBody`) → [`TraceUpdate`].

use domain::v3::TraceUpdate;
use serde_json::{Map, Value};

use super::BatchContext;
use super::check::Check;
use super::time::micros_to_millis;

/// Upstream limit on trace names.
const MAX_NAME_LENGTH: usize = 1000;

/// `at_micros` is the envelope timestamp, the trace's timestamp when the body has none.
pub fn parse(
    body: &Map<String, Value>,
    at_micros: i64,
    context: &BatchContext,
) -> Result<TraceUpdate, String> {
    let mut check = Check::new(body, "body");
    let id = check.required_id("id");
    let timestamp = check.datetime("timestamp");
    let name = check.string_max("name", MAX_NAME_LENGTH);
    // Validated like upstream, but there is no column for it.
    check.string("externalId");
    let session_id = check.string("sessionId");
    let user_id = check.string("userId");
    let environment = check.environment("environment");
    let release = check.string("release");
    let version = check.string("version");
    let public = check.boolean("public");
    let tags = check.strings("tags").map(|mut tags| {
        // Upstream stores tags sorted and de-duplicated (it merges them as a sorted set).
        tags.sort();
        tags.dedup();
        tags
    });
    let input = check.json_text("input");
    let output = check.json_text("output");
    let metadata = check.metadata("metadata");
    check.finish()?;
    Ok(TraceUpdate {
        id: id.unwrap_or_default(),
        project_id: context.project_id.clone(),
        timestamp: Some(micros_to_millis(timestamp.unwrap_or(at_micros))),
        name,
        user_id,
        session_id,
        release,
        version,
        environment,
        public,
        tags,
        metadata,
        input,
        output,
        // A batch event states every value it sends.
        implied: Default::default(),
        event_ts: context.received_at_millis,
    })
}
