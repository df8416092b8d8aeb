//! The legacy v1 reads on the v3 tables (`traces`, `observations`, `scores`), page-based with the
//! `meta` block. Available in `legacy` and `dual`; the web binary answers 404 in `events_only`.

pub mod daily;
pub mod observations;
pub mod sessions;
pub mod traces;
