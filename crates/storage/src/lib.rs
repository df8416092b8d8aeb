//! Adapters to Loupe's four stores and the schema migrations of both databases.
//!
//! Each adapter is built from its typed settings (`domain::config`) and exposes a cheap `check()`
//! for health endpoints. Errors carry a [`ErrorKind`] callers can act on.

pub mod accounts;
pub mod api_keys;
pub mod audit;
pub mod background_migrations;
pub mod blob;
pub mod clickhouse;
pub mod dead_letters;
mod error;
pub mod instance_secrets;
pub mod key_revocations;
pub mod leases;
pub mod login_attempts;
pub mod members;
pub mod models;
pub mod organizations;
pub mod people_settings;
pub mod postgres;
pub mod presign;
pub mod project_admin;
pub mod project_deletions;
pub mod projects;
pub mod prompt_links;
pub mod propagation_state;
pub mod queue;
pub mod redis;
pub mod retention;
pub mod saved_views;
pub mod schema;
pub mod score_configs;
pub mod sdk_usage;
pub mod stored_secrets;
pub mod write_modes;

pub use error::{Error, ErrorKind, Result};
