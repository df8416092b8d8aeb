//! Payloads that can never be stored leave the queue for the dead-letter store: a PostgreSQL row
//! naming the project, the reason and the payload's blob key (the payload itself stays in blob
//! storage; one its queue entry carried is written there first), logged at error level and
//! counted, so nothing disappears silently and nothing blocks the payloads behind it. An operator
//! lists and replays them through the admin API.

use std::time::Duration;

use object_store::ObjectStoreExt;
use object_store::path::Path;
use storage::dead_letters::{NewDeadLetter, ReasonClass};
use storage::queue::{BlobPart, Delivery, EntryRef, IngestionJob};

use super::Processor;

/// The longest writing a carried payload to blob storage may take before its letter waits for
/// the next delivery.
const KEEP_DEADLINE: Duration = Duration::from_secs(10);

/// A payload on its way to the dead-letter store.
#[derive(Debug, Clone)]
pub struct DeadLetter {
    pub entry: EntryRef,
    pub letter: NewDeadLetter,
}

impl DeadLetter {
    pub fn of(delivery: &Delivery, class: ReasonClass, reason: String, attempts: u32) -> Self {
        match &delivery.job {
            Ok(job) => Self::of_job(&delivery.entry, job, class, reason, attempts),
            Err(unreadable) => Self {
                entry: delivery.entry.clone(),
                letter: NewDeadLetter {
                    project_id: None,
                    entry: entry_name(&delivery.entry),
                    payload_kind: None,
                    blob_key: None,
                    job: unreadable.raw.clone(),
                    reason_class: class,
                    reason,
                    attempts: i32::try_from(attempts).unwrap_or(i32::MAX),
                },
            },
        }
    }

    pub fn of_job(
        entry: &EntryRef,
        job: &IngestionJob,
        class: ReasonClass,
        reason: String,
        attempts: u32,
    ) -> Self {
        Self {
            entry: entry.clone(),
            letter: NewDeadLetter {
                project_id: Some(job.project_id.clone()),
                entry: entry_name(entry),
                payload_kind: Some(job.kind.as_str().to_owned()),
                blob_key: Some(job.blob_key.clone()),
                job: serde_json::to_string(job).unwrap_or_default(),
                reason_class: class,
                reason,
                attempts: i32::try_from(attempts).unwrap_or(i32::MAX),
            },
        }
    }
}

fn entry_name(entry: &EntryRef) -> String {
    format!("{} {}", entry.stream, entry.id)
}

impl Processor {
    /// Records the dead letters, then acknowledges their entries; returns how many left the queue.
    /// If PostgreSQL cannot take them, the entries stay pending and come back (their delivery
    /// count grows, which is fine: the next attempt dead-letters them again).
    pub(super) async fn dead_letter(&self, mut letters: Vec<DeadLetter>) -> usize {
        if letters.is_empty() {
            return 0;
        }
        if let Err(error) = self.keep_carried_payloads(&mut letters).await {
            tracing::warn!(%error, entries = letters.len(), "cannot keep dead letters' payloads; the entries stay pending");
            return 0;
        }
        let rows: Vec<NewDeadLetter> = letters.iter().map(|l| l.letter.clone()).collect();
        let ids = match storage::dead_letters::record(&self.postgres, &rows).await {
            Ok(ids) => ids,
            Err(error) => {
                tracing::warn!(%error, entries = letters.len(), "cannot record dead letters; the entries stay pending");
                return 0;
            }
        };
        for (letter, id) in letters.iter().zip(&ids) {
            let l = &letter.letter;
            tracing::error!(
                dead_letter = %id,
                project_id = l.project_id.as_deref().unwrap_or("-"),
                entry = %l.entry,
                blob_key = l.blob_key.as_deref().unwrap_or("-"),
                reason_class = l.reason_class.as_str(),
                reason = %l.reason,
                "ingestion payload moved to the dead-letter store"
            );
            metrics::counter!("loupe_ingestion_dead_letters_total", "reason" => l.reason_class.as_str())
                .increment(1);
        }
        let entries: Vec<EntryRef> = letters.into_iter().map(|l| l.entry).collect();
        self.acknowledge(&entries).await;
        entries.len()
    }

    /// Writes the payloads the letters' entries carry to blob storage and names them in the
    /// letters, so a replay finds them as it finds any other: the entry, and its payload, are
    /// deleted once the letter is recorded.
    async fn keep_carried_payloads(&self, letters: &mut [DeadLetter]) -> Result<(), String> {
        for dead in letters {
            if dead.letter.blob_key.as_deref() != Some("") {
                continue;
            }
            let Ok(mut job) = serde_json::from_str::<IngestionJob>(&dead.letter.job) else { continue };
            // Gone means another worker completed the entry meanwhile: nothing is left to keep.
            let Some(payload) = self.queue.carried_payload(&dead.entry).await.map_err(|e| e.to_string())?
            else {
                continue;
            };
            let key = crate::accept::payload_key(job.kind, &job.project_id, chrono::Utc::now());
            let len = payload.len() as u64;
            let location = Path::from(key.as_str());
            let write = self.blobs.store().put(&location, payload.into());
            // Bounded as web's writes are: a hung store must not hold the worker's loop.
            match tokio::time::timeout(KEEP_DEADLINE, write).await {
                Ok(Ok(_)) => {}
                Ok(Err(e)) => return Err(format!("blob storage: {e}")),
                Err(_) => return Err(format!("blob storage: no answer within {KEEP_DEADLINE:?}")),
            }
            (job.blob_key, job.part) = (key.clone(), Some(BlobPart { offset: 0, len }));
            dead.letter.job = serde_json::to_string(&job).map_err(|e| e.to_string())?;
            dead.letter.blob_key = Some(key);
        }
        Ok(())
    }

    /// Acknowledges entries, retrying while Redis is unreachable (their outcome is recorded: a
    /// missed acknowledgement would only process them again, harmlessly).
    pub(super) async fn acknowledge(&self, entries: &[EntryRef]) {
        for attempt in 0..30 {
            match self.queue.complete(entries).await {
                Ok(()) => return,
                Err(error) => {
                    self.heartbeat.beat();
                    tracing::warn!(%error, attempt, "cannot acknowledge ingestion entries; retrying");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            }
        }
        tracing::error!(
            entries = entries.len(),
            "ingestion entries not acknowledged; they will be processed again"
        );
    }
}
