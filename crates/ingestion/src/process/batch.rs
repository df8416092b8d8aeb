//! Rows collected across many payloads until they are worth one ClickHouse insert.
//!
//! The rows of all payloads sit in one set of vectors (no copy on the way to the insert), and each
//! payload's share of them is remembered as a [`Part`], so a failed insert can be split along
//! payload boundaries (`poison`) and each payload's fate (stored, dead-lettered, retried later)
//! decided on its own.

use std::collections::BTreeMap;
use std::ops::Range;
use std::time::{Duration, Instant};

use chrono::DateTime;

use domain::event::Event;
use domain::experiment::ExperimentLink;
use storage::clickhouse::EventSegment;
use storage::queue::{EntryRef, IngestionJob};
use storage::sdk_usage::{SdkKey, SdkSighting};

use super::Prepared;
use super::v3::V3Updates;

/// One payload's place in the batch: its queue entry, its job and where its rows end.
#[derive(Debug, Clone)]
pub struct Part {
    pub entry: EntryRef,
    pub job: IngestionJob,
    /// How many times the queue has handed this payload out, this time included.
    pub attempt: u32,
    ends: Ends,
}

/// End offsets (exclusive) of a part's rows in each of the batch's vectors.
#[derive(Debug, Clone, Copy, Default)]
struct Ends {
    events: usize,
    named: usize,
    traces: usize,
    observations: usize,
    scores: usize,
    links: usize,
}

/// The rows of some of a batch's parts, as one insert writes them.
#[derive(Default)]
pub struct Rows<'a> {
    pub events: std::borrow::Cow<'a, [EventSegment]>,
    /// Events naming prompts, enriched by the flush and encoded as they are written.
    pub named: std::borrow::Cow<'a, [Event]>,
    pub v3: std::borrow::Cow<'a, V3Updates>,
    pub links: std::borrow::Cow<'a, [ExperimentLink]>,
}

#[derive(Default)]
pub struct Batch {
    /// The v4 events, encoded (`Prepared::encode_events`), and how many rows they hold.
    events: Vec<EventSegment>,
    event_rows: usize,
    /// The events of payloads naming prompts, whose ids the flush looks up (`Prepared::events`).
    named: Vec<Event>,
    v3: V3Updates,
    experiment_links: Vec<ExperimentLink>,
    parts: Vec<Part>,
    bytes: usize,
    sdks: BTreeMap<SdkKey, SdkSighting>,
    started: Option<Instant>,
}

impl Batch {
    pub fn add(
        &mut self,
        entry: EntryRef,
        job: IngestionJob,
        attempt: u32,
        bytes: usize,
        prepared: Prepared,
    ) {
        self.started.get_or_insert_with(Instant::now);
        self.event_rows += prepared.encoded.iter().map(EventSegment::rows).sum::<usize>();
        self.events.extend(prepared.encoded);
        self.named.extend(prepared.events);
        self.v3.extend(prepared.v3);
        self.experiment_links.extend(prepared.experiment_links);
        self.bytes += bytes;
        self.see(&job);
        let ends = Ends {
            events: self.events.len(),
            named: self.named.len(),
            traces: self.v3.traces.len(),
            observations: self.v3.observations.len(),
            scores: self.v3.scores.len(),
            links: self.experiment_links.len(),
        };
        self.parts.push(Part { entry, job, attempt, ends });
    }

    /// The events naming prompts, for enrichment (v3 observations are enriched after their
    /// updates are merged, in `v3::write`).
    pub fn named_mut(&mut self) -> &mut [Event] {
        &mut self.named
    }

    /// The prompts the batch's generations name by name and version, to look their ids up.
    pub fn prompt_keys(&self) -> Vec<(String, String, u16)> {
        let mut keys = std::collections::BTreeSet::new();
        for event in &self.named {
            if let (false, Some(version)) = (event.prompt_name.is_empty(), event.prompt_version) {
                keys.insert((event.project_id.clone(), event.prompt_name.clone(), version));
            }
        }
        for update in &self.v3.observations {
            if let (Some(name), Some(version)) = (&update.prompt_name, update.prompt_version) {
                keys.insert((update.project_id.clone(), name.clone(), version));
            }
        }
        keys.into_iter().collect()
    }

    /// Remembers which client sent the payload, for `sdk_usage`.
    fn see(&mut self, job: &IngestionJob) {
        let key = SdkKey {
            project_id: job.project_id.clone(),
            sdk_name: job.sdk_name.as_deref().unwrap_or("unknown").to_ascii_lowercase(),
            sdk_version: job.sdk_version.clone().unwrap_or_else(|| "unknown".to_owned()),
        };
        let seen_at = DateTime::from_timestamp_micros(job.received_at_micros).unwrap_or_default();
        let version = job.ingestion_version.and_then(|v| i32::try_from(v).ok());
        let sighting = self.sdks.entry(key).or_insert(SdkSighting {
            ingestion_version: version,
            last_seen_at: seen_at,
            payloads: 0,
        });
        sighting.payloads += 1;
        sighting.last_seen_at = sighting.last_seen_at.max(seen_at);
        sighting.ingestion_version = sighting.ingestion_version.max(version);
    }

    pub fn sdk_sightings(&self) -> Vec<(SdkKey, SdkSighting)> {
        self.sdks.iter().map(|(k, s)| (k.clone(), *s)).collect()
    }

    /// Every row of the batch, borrowed.
    pub fn all_rows(&self) -> Rows<'_> {
        Rows {
            events: (&self.events[..]).into(),
            named: (&self.named[..]).into(),
            v3: std::borrow::Cow::Borrowed(&self.v3),
            links: (&self.experiment_links[..]).into(),
        }
    }

    /// The rows of parts `range` (consecutive, so their rows are too), copied: only a failed
    /// insert being split pays for this.
    pub fn rows_of(&self, range: Range<usize>) -> Rows<'static> {
        let start = if range.start == 0 { Ends::default() } else { self.parts[range.start - 1].ends };
        let end = self.parts[range.end - 1].ends;
        let v3 = V3Updates {
            traces: self.v3.traces[start.traces..end.traces].to_vec(),
            observations: self.v3.observations[start.observations..end.observations].to_vec(),
            scores: self.v3.scores[start.scores..end.scores].to_vec(),
            // Staging marks only select among the rows written, so all of them can go along.
            staged: self.v3.staged.clone(),
        };
        Rows {
            events: self.events[start.events..end.events].to_vec().into(),
            named: self.named[start.named..end.named].to_vec().into(),
            v3: std::borrow::Cow::Owned(v3),
            links: self.experiment_links[start.links..end.links].to_vec().into(),
        }
    }

    pub fn parts(&self) -> &[Part] {
        &self.parts
    }

    pub fn rows(&self) -> usize {
        self.event_rows + self.named.len() + self.v3.rows()
    }

    /// Payload bytes collected (as accepted, decompressed).
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    pub fn len(&self) -> usize {
        self.parts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    /// Whether the batch holds scores and nothing else: its insert depends on no other (`inflight`).
    pub fn scores_only(&self) -> bool {
        let v3 = &self.v3;
        !v3.scores.is_empty()
            && self.events.is_empty()
            && self.named.is_empty()
            && v3.traces.is_empty()
            && v3.observations.is_empty()
            && self.experiment_links.is_empty()
    }

    /// How long the oldest entry has waited; `None` when empty.
    pub fn age(&self) -> Option<Duration> {
        self.started.map(|s| s.elapsed())
    }

    /// Empties the batch for the next one, keeping its vectors' capacity: a batch of thousands
    /// of rows regrown from nothing every flush cost the worker a tenth of its CPU in copies and
    /// fresh pages. The capacity is bounded by what one batch may hold.
    pub fn clear(&mut self) {
        self.events.clear();
        self.named.clear();
        self.event_rows = 0;
        self.v3.clear();
        self.experiment_links.clear();
        self.parts.clear();
        self.bytes = 0;
        self.sdks.clear();
        self.started = None;
    }
}
