//! Black-box tests of the `web` and `worker` binaries on the local test stack: they are started as
//! real processes with an environment, as an operator would, and observed from outside.

#![allow(clippy::unwrap_used)] // tests fail loudly on purpose

mod annotation_queues;
mod api;
mod apps;
mod auth;
mod comments_and_score_configs;
mod config;
mod dashboards;
mod datasets;
mod durability;
mod evaluations;
mod evaluators;
mod exports;
mod fixtures;
mod freshness;
mod hostile;
mod identity;
mod identity_members;
mod ingest_otlp;
mod ingest_rows;
mod js_sdk;
mod legacy_endpoints;
mod lifecycle;
mod llm_connections;
mod media;
mod models;
mod monitors;
mod project_deletion;
mod prometheus;
mod prompts;
mod proxy;
mod py2_sdk;
mod reads;
mod reads_scores;
mod real_clients;
mod retention;
mod sdk_parity;
mod sessions;
mod sessions_settings;
mod takeover;
mod trace_attributes;
mod trace_deletion;
mod ui;
mod ui_api;
mod ui_datasets;
mod ui_fixtures;
mod ui_observations;
mod ui_people;
mod ui_prompts;
mod ui_public_links;
mod ui_sessions;
mod ui_trace;
mod web_limits;
mod write_modes;
