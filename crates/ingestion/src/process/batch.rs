//! Rows collected across many payloads until they are worth one ClickHouse insert.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use chrono::DateTime;

use domain::event::Event;
use resources::datasets::ExperimentLink;
use storage::queue::IngestionJob;
use storage::sdk_usage::{SdkKey, SdkSighting};

use super::Prepared;
use super::enrich::Enrichment;
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

    /// Adds model, cost and prompt id to the v4 events (v3 observations get theirs after their
    /// updates are merged, in `v3::write`).
    pub fn enrich(&mut self, enrichment: &Enrichment) {
        enrichment.events(&mut self.events);
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
