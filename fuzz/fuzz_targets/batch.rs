//! Legacy `/api/public/ingestion` bodies through the functions the service uses, then the worker's
//! parse of the stored body, which must give the same records; the same bytes also go to the
//! `/scores` and single-object parsers.
#![no_main]

use libfuzzer_sys::fuzz_target;

use ingestion::batch::{
    SingleKind, batch_events, parse_batch, parse_batch_value, parse_json, parse_scores, parse_single,
};

fuzz_target!(|data: &[u8]| {
    let context = loupe_fuzz::batch_context();
    let _ = parse_scores(data, &context);
    let _ = parse_single(SingleKind::Generation, data, &context);
    let Ok(request) = parse_json(data) else { return };
    if batch_events(&request).is_err() {
        return;
    }
    let parsed = parse_batch_value(&request, &context).expect("a batch with events parses");
    let stored = parse_batch(data, &context).expect("the worker parses what web accepted");
    assert_eq!(stored, parsed, "the worker reads the records web acknowledged");
});
