//! How much is queued, per project and in all, and how long the oldest entry has waited: what
//! back-pressure, worker health and the metrics read, in one atomic script.

use std::collections::HashMap;
use std::time::Duration;

use deadpool_redis::redis::{self, Value};

use super::{IngestionQueue, scripts, unavailable};
use crate::Result;

/// The queue's backlog at one instant.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Backlog {
    /// Entries queued or pending, in all streams.
    pub total: u64,
    /// Entries per project (the base stream, from earlier releases, counts under `""`).
    pub by_project: HashMap<String, u64>,
    /// Acceptance time (milliseconds since the epoch) of the oldest entry still queued.
    pub oldest_millis: Option<u64>,
}

impl Backlog {
    /// How long the oldest entry has waited, as of `now_millis`.
    pub fn lag(&self, now_millis: u64) -> Duration {
        self.oldest_millis
            .map_or(Duration::ZERO, |oldest| Duration::from_millis(now_millis.saturating_sub(oldest)))
    }

    /// Projects with something queued.
    pub fn active_projects(&self) -> usize {
        self.by_project.values().filter(|n| **n > 0).count()
    }
}

impl IngestionQueue {
    /// Entries not yet fully processed (read or unread), in all streams.
    pub async fn depth(&self) -> Result<u64> {
        Ok(self.backlog().await?.total)
    }

    /// The backlog per project and its oldest entry.
    pub async fn backlog(&self) -> Result<Backlog> {
        let mut connection = self.connection().await?;
        let reply: Vec<Value> = redis::cmd("EVAL")
            .arg(scripts::BACKLOG)
            .arg(3)
            .arg(&self.base)
            .arg(self.active_key())
            .arg(self.earlier_active_key())
            .query_async(&mut connection)
            .await
            .map_err(unavailable)?;
        let prefixes = [format!("{}:q:", self.base), format!("{}:p:", self.base)];
        let mut backlog = Backlog::default();
        for triple in reply.chunks_exact(3) {
            let (key, length, oldest) = (text(&triple[0]), integer(&triple[1]), text(&triple[2]));
            let project =
                prefixes.iter().find_map(|p| key.strip_prefix(p.as_str())).unwrap_or_default().to_owned();
            backlog.total += length;
            *backlog.by_project.entry(project).or_default() += length;
            let millis = oldest.split_once('-').and_then(|(millis, _)| millis.parse::<u64>().ok());
            if let Some(millis) = millis {
                backlog.oldest_millis = Some(backlog.oldest_millis.map_or(millis, |o| o.min(millis)));
            }
        }
        Ok(backlog)
    }
}

fn text(value: &Value) -> String {
    match value {
        Value::BulkString(bytes) => String::from_utf8_lossy(bytes).into_owned(),
        Value::SimpleString(text) => text.clone(),
        _ => String::new(),
    }
}

fn integer(value: &Value) -> u64 {
    match value {
        Value::Int(n) => u64::try_from(*n).unwrap_or_default(),
        other => text(other).parse().unwrap_or_default(),
    }
}
