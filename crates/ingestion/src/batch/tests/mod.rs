//! Tests of legacy batch ingestion: the request and envelope rules, each body type, usage
//! normalisation, ordering and merging, the single-object endpoints, a replay of the legacy SDK
//! captures, and a no-panic property.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod body_tests;
mod depth_tests;
mod fixture_tests;
mod merge_tests;
mod proptests;
mod request_tests;
mod score_tests;
mod single_tests;
mod support;
mod time_tests;
mod usage_tests;
