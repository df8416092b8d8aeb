//! The ISO-8601 rule of envelope and body timestamps.

use crate::batch::time::{micros_to_millis, parse_micros};

#[test]
fn accepts_what_sdks_send() {
    // JS SDKs: milliseconds and Z; Python SDKs: microseconds and Z or +00:00.
    let js = parse_micros("2026-11-21T19:41:34.068Z").unwrap();
    let py = parse_micros("2026-11-21T19:41:34.068000Z").unwrap();
    let offset = parse_micros("2026-11-21T20:41:34.068+01:00").unwrap();
    assert_eq!(js, py);
    assert_eq!(js, offset);
    assert_eq!(js, 1_795_290_094_068_000);
    assert_eq!(parse_micros("2026-11-21T19:41:34.991216Z").unwrap() % 1_000_000, 991_216);
}

#[test]
fn offsets_in_every_spelling() {
    let reference = parse_micros("2024-05-01T12:00:00Z").unwrap();
    for raw in [
        "2024-05-01T14:00:00+02:00",
        "2024-05-01T14:00:00+0200",
        "2024-05-01T14:00:00+02",
        "2024-05-01T10:30:00-01:30",
    ] {
        assert_eq!(parse_micros(raw), Some(reference), "{raw}");
    }
    assert_eq!(parse_micros("2024-05-01T12:00Z"), Some(reference), "seconds are optional");
}

#[test]
fn fractions_are_truncated_to_microseconds() {
    let nanos = parse_micros("2024-05-01T12:00:00.123456789Z").unwrap();
    let micros = parse_micros("2024-05-01T12:00:00.123456Z").unwrap();
    assert_eq!(nanos, micros);
    assert_eq!(micros_to_millis(micros) % 1_000, 123);
    // Before 1970, milliseconds round towards the past like JavaScript's getTime().
    assert_eq!(micros_to_millis(-1), -1);
}

#[test]
fn refuses_everything_else() {
    for raw in [
        "",
        "2024-05-01",
        "2024-05-01T12:00:00",       // no offset: the zone would be a guess
        "2024-05-01 12:00:00Z",      // space instead of T
        "2024-05-01t12:00:00z",      // lowercase
        "2024-13-01T12:00:00Z",      // month 13
        "2024-02-30T12:00:00Z",      // no such day
        "2024-05-01T24:00:00Z",      // hour 24
        "2024-05-01T12:60:00Z",      // minute 60
        "2024-05-01T12:00:60Z",      // leap second
        "2024-05-01T12:00:00.Z",     // empty fraction
        "2024-05-01T12:00:00+25:00", // offset out of range
        "2024-05-01T12:00:00+02:0",  // truncated offset
        "2024-05-01T12:00:00Zjunk",  // trailing text
        "1714564800000",             // epoch millis
        "yesterday",
        "２０２４-05-01T12:00:00Z", // non-ASCII digits
    ] {
        assert_eq!(parse_micros(raw), None, "{raw:?}");
    }
    assert!(parse_micros("2024-02-29T12:00:00Z").is_some(), "leap day");
}
