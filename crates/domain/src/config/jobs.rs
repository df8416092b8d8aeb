//! Tunables of the worker's migration jobs: dual-write propagation and the historic backfill.

use std::time::Duration;

use super::vars::{Problems, Vars};

/// A staging partition spans 3 minutes; one minute more lets the last inserts of the window land.
/// Propagating earlier would advance the cursor past rows still arriving.
pub const MIN_PARTITION_DELAY_MINUTES: u64 = 4;

const PARTITION_DELAY: &str = "LANGFUSE_EXPERIMENT_EVENT_PROPAGATION_PARTITION_DELAY_MINUTES";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PropagationSettings {
    /// Age of a partition's start before it is copied.
    pub partition_delay: Duration,
    pub interval: Duration,
    pub exclude_project_ids: Vec<String>,
    pub max_insert_threads: u64,
}

/// The pace of the retention job (docs/retention.md).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetentionSettings {
    /// How often a pass over every project starts (counted from the last pass's start).
    pub interval: Duration,
    /// Pause after each statement that removed something, to leave the stores room for live work.
    pub pause: Duration,
}

impl RetentionSettings {
    pub(super) fn read(vars: &Vars, problems: &mut Problems) -> Option<Self> {
        let interval = vars.positive_integer("LANGFUSE_RETENTION_INTERVAL_SECONDS", problems);
        let pause = vars.non_negative_integer("LANGFUSE_RETENTION_PAUSE_MS", problems);
        Some(Self { interval: Duration::from_secs(interval?), pause: Duration::from_millis(pause?) })
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackfillSettings {
    pub enabled: bool,
    pub chunk_rows: u64,
    pub max_memory_bytes: u64,
    pub pause: Duration,
    pub experiment_batch_traces: u64,
}

impl PropagationSettings {
    pub(super) fn read(vars: &Vars, problems: &mut Problems) -> Option<Self> {
        let delay = vars.positive_integer(PARTITION_DELAY, problems);
        let interval = vars.positive_integer("LANGFUSE_EVENT_PROPAGATION_INTERVAL_SECONDS", problems);
        let threads = vars.positive_integer("LANGFUSE_EVENT_PROPAGATION_MAX_INSERT_THREADS", problems);
        let exclude = vars
            .string("LANGFUSE_EVENT_PROPAGATION_EXCLUDE_PROJECT_IDS")
            .split(',')
            .map(str::trim)
            .filter(|id| !id.is_empty())
            .map(str::to_owned)
            .collect();
        let delay = delay?;
        if delay < MIN_PARTITION_DELAY_MINUTES {
            problems.push(
                PARTITION_DELAY,
                format!(
                    "must be at least {MIN_PARTITION_DELAY_MINUTES}: a staging partition spans 3 minutes and \
                     must be closed before it is propagated"
                ),
            );
            return None;
        }
        Some(Self {
            partition_delay: Duration::from_secs(delay * 60),
            interval: Duration::from_secs(interval?),
            exclude_project_ids: exclude,
            max_insert_threads: threads?,
        })
    }
}

impl BackfillSettings {
    pub(super) fn read(vars: &Vars, problems: &mut Problems) -> Option<Self> {
        let enabled = vars.bool("LANGFUSE_ENABLE_BACKGROUND_MIGRATIONS", problems);
        let chunk_rows = vars.positive_integer("LANGFUSE_BACKFILL_CHUNK_ROWS", problems);
        let memory_mb = vars.positive_integer("LANGFUSE_BACKFILL_MAX_MEMORY_MB", problems);
        let pause = vars.non_negative_integer("LANGFUSE_BACKFILL_PAUSE_MS", problems);
        let batch = vars.positive_integer("LANGFUSE_BACKFILL_EXPERIMENT_BATCH_TRACES", problems);
        Some(Self {
            enabled: enabled?,
            chunk_rows: chunk_rows?,
            max_memory_bytes: memory_mb?.saturating_mul(1024 * 1024),
            pause: Duration::from_millis(pause?),
            experiment_batch_traces: batch?,
        })
    }
}
