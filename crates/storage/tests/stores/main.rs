//! Storage adapters against the real engines of the local test stack (`just test`).

mod blob;
mod clickhouse_front;
mod migrations;
mod postgres;
mod redis;
