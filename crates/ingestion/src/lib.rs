//! One ingestion service behind every entry point: decoding and validating what clients send,
//! durable acceptance, and the worker-side conversion into the tables of the configured write mode.

pub mod accept;
pub mod batch;
pub mod dead_letters;
pub mod deletion;
pub mod depth;
pub mod error;
pub mod otel;
pub mod process;
pub mod service;
pub mod tools;
