//! Rows collected across many payloads until they are worth one ClickHouse insert.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use chrono::DateTime;

use domain::event::Event;
use domain::experiment::ExperimentLink;
use storage::queue::IngestionJob;
use storage::sdk_usage::{SdkKey, SdkSighting};

use super::Prepared;
use super::v3::V3Updates;

#[derive(Default)]
pub struct Batch {
    events: Vec<Event>,
    v3: V3Updates,
    experiment_links: Vec<ExperimentLink>,
    ids: Vec<String>,
    sdks: BTreeMap<SdkKey, SdkSighting>,
    started: Option<Instant>,
}

impl Batch {
    pub fn add(&mut self, entry_id: String, job: &IngestionJob, prepared: Prepared) {
        self.started.get_or_insert_with(Instant::now);
        self.events.extend(prepared.events);
        self.v3.extend(prepared.v3);
        self.experiment_links.extend(prepared.experiment_links);
        self.ids.push(entry_id);
        self.see(job);
    }

    /// The v4 events, for enrichment (v3 observations are enriched after their updates are
    /// merged, in `v3::write`).
    pub fn events_mut(&mut self) -> &mut [Event] {
        &mut self.events
    }

    /// The prompts the batch's generations name by name and version, to look their ids up.
    pub fn prompt_keys(&self) -> Vec<(String, String, u16)> {
        let mut keys = std::collections::BTreeSet::new();
        for event in &self.events {
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

    pub fn events(&self) -> &[Event] {
        &self.events
    }

    pub fn v3(&self) -> &V3Updates {
        &self.v3
    }

    pub fn experiment_links(&self) -> &[ExperimentLink] {
        &self.experiment_links
    }

    pub fn ids(&self) -> &[String] {
        &self.ids
    }

    pub fn rows(&self) -> usize {
        self.events.len() + self.v3.rows()
    }

    pub fn entries(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// How long the oldest entry has waited; `None` when empty.
    pub fn age(&self) -> Option<Duration> {
        self.started.map(|s| s.elapsed())
    }

    pub fn clear(&mut self) {
        self.events.clear();
        self.v3.clear();
        self.experiment_links.clear();
        self.ids.clear();
        self.sdks.clear();
        self.started = None;
    }
}
