//! Rows collected across many payloads until they are worth one ClickHouse insert.

use std::time::{Duration, Instant};

use domain::event::Event;

use super::Prepared;

#[derive(Default)]
pub struct Batch {
    events: Vec<Event>,
    ids: Vec<String>,
    started: Option<Instant>,
}

impl Batch {
    pub fn add(&mut self, entry_id: String, prepared: Prepared) {
        self.started.get_or_insert_with(Instant::now);
        self.events.extend(prepared.events);
        self.ids.push(entry_id);
    }

    pub fn events(&self) -> &[Event] {
        &self.events
    }

    pub fn ids(&self) -> &[String] {
        &self.ids
    }

    pub fn rows(&self) -> usize {
        self.events.len()
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
        self.ids.clear();
        self.started = None;
    }
}
