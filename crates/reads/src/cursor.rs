//! Opaque cursors of the v4 reads: base64 of a small JSON object. Clients only pass them back; an
//! unreadable one is a 400 `Invalid cursor format`.

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::ReadError;

pub fn encode<T: Serialize>(value: &T) -> String {
    URL_SAFE_NO_PAD.encode(serde_json::to_vec(value).unwrap_or_default())
}

/// Accepts url-safe and standard base64, padded or not (upstream used both over time).
pub fn decode<T: DeserializeOwned>(raw: &str) -> Result<T, ReadError> {
    let invalid = || ReadError::bad_request("Invalid cursor format");
    let trimmed = raw.trim_end_matches('=');
    let bytes = URL_SAFE_NO_PAD.decode(trimmed).or_else(|_| STANDARD.decode(raw)).map_err(|_| invalid())?;
    serde_json::from_slice(&bytes).map_err(|_| invalid())
}

/// Cuts a `limit + 1` fetch to `limit` rows and returns the cursor after the last kept row when
/// the extra row showed that more exist.
pub fn cut_page<R, T: Serialize>(rows: &mut Vec<R>, limit: i64, make: impl Fn(&R) -> T) -> Option<String> {
    let more = rows.len() as i64 > limit;
    rows.truncate(limit as usize);
    rows.last().filter(|_| more).map(|last| encode(&make(last)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    #[derive(Serialize, serde::Deserialize, Debug, PartialEq)]
    struct C {
        t: String,
        id: String,
    }

    #[test]
    fn round_trips_and_rejects_garbage() {
        let c = C { t: "2024-01-01T00:00:00.000001Z".into(), id: "a/b+c".into() };
        assert_eq!(decode::<C>(&encode(&c)).unwrap(), c);
        assert_eq!(decode::<C>("!!!").unwrap_err().to_string(), "Invalid cursor format");
        assert_eq!(decode::<C>(&encode(&1)).unwrap_err().to_string(), "Invalid cursor format");
    }

    #[test]
    fn a_page_gets_a_cursor_only_when_the_extra_row_came_back() {
        let rows = |n: usize| (0..n).collect::<Vec<_>>();
        let mut full = rows(3);
        let next = cut_page(&mut full, 2, |last| *last);
        assert_eq!((full.len(), next.map(|c| decode::<Value>(&c).unwrap())), (2, Some(json!(1))));
        let mut last_page = rows(2);
        assert_eq!(cut_page(&mut last_page, 2, |last| *last), None);
        let empty = crate::CursorPage::<u8>::new(vec![], None);
        assert_eq!(serde_json::to_value(empty).unwrap(), json!({"data": [], "meta": {}}));
    }
}
