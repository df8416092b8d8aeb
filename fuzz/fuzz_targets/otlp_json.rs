//! OTLP/HTTP JSON bodies, decoded (and repaired) as web decodes them; web stores them as protobuf,
//! which the worker must read back and convert.
#![no_main]

use bytes::Bytes;
use libfuzzer_sys::fuzz_target;

use ingestion::otel::{DEFAULT_MAX_DECODED_BYTES, parse_owned};

fuzz_target!(|data: &[u8]| {
    let body = Bytes::copy_from_slice(data);
    if let Ok((request, as_sent)) =
        parse_owned(body, Some("application/json"), None, DEFAULT_MAX_DECODED_BYTES)
    {
        loupe_fuzz::accept_and_process(request, as_sent);
    }
});
