//! Monitors (docs/monitors.md): threshold alerts on a project's metrics. A monitor is a metrics
//! query (view, measure, aggregation, filters — compiled by `reads::metrics`, the Metrics API's own
//! compiler), a window, a comparison and threshold, an evaluation interval, and channels (a signed
//! webhook, a Slack incoming webhook, a GitHub `repository_dispatch`).
//!
//! `api`: the resource behind `/api/public/monitors` (web); `job`: the worker's loop, which
//! evaluates due monitors (`engine`) and delivers the notifications of their transitions
//! (`deliver`) through `channels`. A monitor is `OK` or `ALERTING`; each transition makes exactly
//! one notification per channel (none while muted), and repeated breaches make none.

pub mod api;
pub mod channels;
pub mod deliver;
mod engine;
pub mod job;
pub mod model;

pub use api::Rules;
pub use engine::Outcome;
pub use job::{Monitors, Tick, http_client};
