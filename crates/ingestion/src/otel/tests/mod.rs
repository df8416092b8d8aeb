//! Tests of the OTLP decoding and conversion: unit tests per rule family, a replay of every
//! OTLP request in the SDK captures, and a no-panic property for the decoder.
#![allow(clippy::unwrap_used, clippy::expect_used)]

pub(crate) mod build;
mod check_tests;
mod convert_tests;
mod decode_tests;
mod depth_tests;
mod fixtures;
mod io_tests;
mod proptests;
mod usage_tests;
