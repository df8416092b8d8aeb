//! Trace deletions remembered beside the stream, for the entries accepted before them.
//!
//! A deletion removes the stored rows at once, but an entry acknowledged just before it may still
//! be queued. web records when each trace was deleted; the worker asks, for the traces its entries
//! write, whether they were deleted since the oldest of those entries was accepted. Marks are kept
//! per project and UTC day, each day's hash expiring [`DAYS_KEPT`] days after its last write, so
//! memory is bounded by the deletions of that many days, whatever their number.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use deadpool_redis::redis;

use super::{IngestionQueue, unavailable};
use crate::Result;

/// How many days of deletions are kept: longer than any backlog is expected to last (an entry
/// queued for longer would no longer see a deletion made before it was processed).
const DAYS_KEPT: i64 = 8;
const MICROS_PER_DAY: i64 = 86_400_000_000;

impl IngestionQueue {
    fn deletions_key(&self, project_id: &str, day: i64) -> String {
        format!("{}:deleted-traces:{project_id}:{day}", self.base)
    }

    /// Records that these traces were deleted at `at_micros`.
    pub async fn mark_deleted(&self, project_id: &str, trace_ids: &[String], at_micros: i64) -> Result<()> {
        let key = self.deletions_key(project_id, at_micros.div_euclid(MICROS_PER_DAY));
        let fields: Vec<(&str, i64)> = trace_ids.iter().map(|id| (id.as_str(), at_micros)).collect();
        let mut connection = self.connection().await?;
        redis::pipe()
            .hset_multiple(&key, &fields)
            .ignore()
            .expire(&key, DAYS_KEPT * 24 * 3600)
            .ignore()
            .query_async::<()>(&mut connection)
            .await
            .map_err(unavailable)
    }

    /// The projects among these that deleted traces on or after the day of `since_micros` (at most
    /// [`DAYS_KEPT`] days back): one round trip. The worker encodes the rows of the other
    /// projects' entries as it converts them, with no trace of theirs to ask about.
    pub async fn projects_with_deletions(
        &self,
        projects: &BTreeSet<&str>,
        since_micros: i64,
        now_micros: i64,
    ) -> Result<BTreeSet<String>> {
        if projects.is_empty() {
            return Ok(BTreeSet::new());
        }
        let keys = self.day_keys(projects.iter().copied(), since_micros, now_micros);
        let mut exists = redis::pipe();
        for (_, key) in &keys {
            exists.exists(key);
        }
        let mut connection = self.connection().await?;
        let present: Vec<bool> = exists.query_async(&mut connection).await.map_err(unavailable)?;
        Ok(keys
            .into_iter()
            .zip(present)
            .filter(|(_, present)| *present)
            .map(|((p, _), _)| p.to_owned())
            .collect())
    }

    /// Each project's deletion key for every day from `since_micros`'s to today's.
    fn day_keys<'p>(
        &self,
        projects: impl Iterator<Item = &'p str>,
        since_micros: i64,
        now_micros: i64,
    ) -> Vec<(&'p str, String)> {
        let today = now_micros.div_euclid(MICROS_PER_DAY);
        let first_day = since_micros.div_euclid(MICROS_PER_DAY).clamp(today - DAYS_KEPT, today);
        projects
            .flat_map(|project| (first_day..=today).map(move |day| (project, day)))
            .map(|(project, day)| (project, self.deletions_key(project, day)))
            .collect()
    }

    /// When each of these (project, trace) pairs was last deleted, among deletions made on or after
    /// the day of `since_micros` (at most [`DAYS_KEPT`] days back). One round trip when there are
    /// none (the usual case), two otherwise.
    pub async fn deleted_since(
        &self,
        traces: &BTreeMap<&str, BTreeSet<&str>>,
        since_micros: i64,
        now_micros: i64,
    ) -> Result<HashMap<(String, String), i64>> {
        let mut found: HashMap<(String, String), i64> = HashMap::new();
        if traces.is_empty() {
            return Ok(found);
        }
        let keys: Vec<(&str, &BTreeSet<&str>, String)> = self
            .day_keys(traces.keys().copied(), since_micros, now_micros)
            .into_iter()
            .map(|(project, key)| (project, &traces[project], key))
            .collect();
        let mut connection = self.connection().await?;
        let mut exists = redis::pipe();
        for (_, _, key) in &keys {
            exists.exists(key);
        }
        let present: Vec<bool> = exists.query_async(&mut connection).await.map_err(unavailable)?;
        let with_deletions: Vec<_> =
            keys.iter().zip(present).filter(|(_, present)| *present).map(|(k, _)| k).collect();
        if with_deletions.is_empty() {
            return Ok(found);
        }
        let mut lookup = redis::pipe();
        for (_, ids, key) in &with_deletions {
            // HMGET explicitly: `hget` sends HGET for one field, whose reply is not a list.
            lookup.cmd("HMGET").arg(key).arg(ids.iter().collect::<Vec<_>>());
        }
        let times: Vec<Vec<Option<i64>>> = lookup.query_async(&mut connection).await.map_err(unavailable)?;
        for ((project, ids, _), times) in with_deletions.into_iter().zip(times) {
            for (id, time) in ids.iter().zip(times) {
                if let Some(time) = time {
                    let latest = found.entry(((*project).to_owned(), (*id).to_owned())).or_insert(time);
                    *latest = (*latest).max(time);
                }
            }
        }
        Ok(found)
    }
}
