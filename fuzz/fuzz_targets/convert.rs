//! Span conversion (attribute rules, metadata flattening, input/output, usage, tools) on exports
//! generated in the shapes SDKs send (`loupe_fuzz::Export`), then the worker path for what web
//! would keep of them.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|export: loupe_fuzz::Export| {
    let converted = ingestion::otel::convert(&export.0, &loupe_fuzz::convert_context());
    assert_eq!(converted.len(), export.spans(), "one converted span per span");
    loupe_fuzz::accept_and_process(export.0, None);
});
