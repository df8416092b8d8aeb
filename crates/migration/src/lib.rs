//! The v3 → v4 migration machinery: the dual-write propagation job, the historic backfill chain
//! (M1–M5) and background-migration progress (issue 5).
//!
//! Empty for now, on purpose: the crate exists so the layout of DESIGN.md §2 is in place and the
//! dependency direction (`bins → ingestion/migration → storage → domain`) is fixed before the
//! machinery arrives. The schema it needs (staging table, `background_migrations`) is already
//! created by the storage migrations.
