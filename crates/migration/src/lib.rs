//! The v3 → v4 migration machinery (spec/v4-migration-spec.md §3.3, §3.4, §9.4): the dual-write propagation job, the
//! historic backfill chain (M1–M5) with its progress, and the checks operators run before cutover.
//!
//! Everything here talks to the stores through `storage`; the SQL that maps v3 rows onto
//! `events_full` lives in one place (`columns`) and is shared by every writer.

pub mod backfill;
pub mod columns;
pub mod keyset;
pub mod lease;
pub mod propagation;
pub mod propagation_health;
pub mod status;
pub mod verify;
