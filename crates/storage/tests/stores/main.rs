//! Storage adapters against the real engines of the local test stack (`just test`).

#![allow(clippy::unwrap_used)] // tests fail loudly on purpose

mod blob;
mod clickhouse_front;
mod ids;
mod migrations;
mod postgres;
mod redis;
