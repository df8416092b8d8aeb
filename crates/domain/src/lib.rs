//! Pure types and rules shared by every Loupe component.
//!
//! Nothing here does I/O or needs an async runtime: the binaries hand the process environment and a
//! file reader to [`config::Config::from_env_and_file`], and storage adapters receive the typed
//! settings it returns.

pub mod auth;
pub mod config;
pub mod event;
pub mod experiment;
pub mod identity;
pub mod outbound;
pub mod password;
pub mod pricing;
pub mod score_config;
pub mod sdk;
pub mod secrets;
pub mod usage;
pub mod v3;
