//! OTLP/HTTP protobuf bodies (gzip when they start like gzip), checked or decoded as web reads them;
//! what web would keep must be read back and converted by the worker.
#![no_main]

use bytes::Bytes;
use libfuzzer_sys::fuzz_target;

use ingestion::otel::{DEFAULT_MAX_DECODED_BYTES, Parsed, parse_or_check};

fuzz_target!(|data: &[u8]| {
    let encoding = data.starts_with(&[0x1f, 0x8b]).then_some("gzip");
    let body = Bytes::copy_from_slice(data);
    let budget = loupe_fuzz::RESOURCE_BUDGET;
    match parse_or_check(body, Some("application/x-protobuf"), encoding, DEFAULT_MAX_DECODED_BYTES, budget) {
        // Checked without being built: the worker must still read back every span.
        Ok(Parsed::Plain { spans, protobuf }) => loupe_fuzz::process_accepted(&protobuf, spans),
        Ok(Parsed::Decoded(request, as_sent)) => loupe_fuzz::accept_and_process(request, as_sent),
        Err(_) => {}
    }
});
