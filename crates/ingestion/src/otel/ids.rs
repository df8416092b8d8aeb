//! Span ids: every span needs a 16-byte trace id and an 8-byte span id, not all zero (the OTLP
//! spec calls those invalid); a parent id is empty or 8 bytes. Shared by the decoder, which drops
//! or refuses such spans, and web's check of an export it does not build.

/// Whether a span's ids are valid.
pub fn ids_are_valid(trace_id: &[u8], span_id: &[u8], parent_span_id: &[u8]) -> bool {
    invalid_id(trace_id, span_id, parent_span_id).is_none()
}

/// What is wrong with a span's ids, if anything.
pub fn invalid_id(trace_id: &[u8], span_id: &[u8], parent_span_id: &[u8]) -> Option<String> {
    let check = |what: &str, id: &[u8], expected: usize| -> Option<String> {
        if id.len() != expected {
            Some(format!("{what} must be {expected} bytes, got {}", id.len()))
        } else if id.iter().all(|b| *b == 0) {
            Some(format!("{what} is all zeros"))
        } else {
            None
        }
    };
    check("trace id", trace_id, 16).or_else(|| check("span id", span_id, 8)).or_else(|| match parent_span_id
        .len()
    {
        0 | 8 => None,
        n => Some(format!("parent span id must be empty or 8 bytes, got {n}")),
    })
}
