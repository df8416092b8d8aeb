//! OTLP/HTTP protobuf bodies (gzip when they start like gzip), decoded as web decodes them; what
//! web would keep must be read back and converted by the worker.
#![no_main]

use bytes::Bytes;
use libfuzzer_sys::fuzz_target;

use ingestion::otel::{DEFAULT_MAX_DECODED_BYTES, parse_owned};

fuzz_target!(|data: &[u8]| {
    let encoding = data.starts_with(&[0x1f, 0x8b]).then_some("gzip");
    let body = Bytes::copy_from_slice(data);
    if let Ok((request, as_sent)) =
        parse_owned(body, Some("application/x-protobuf"), encoding, DEFAULT_MAX_DECODED_BYTES)
    {
        loupe_fuzz::accept_and_process(request, as_sent);
    }
});
