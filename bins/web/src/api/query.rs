//! The query string of a list or read request, as the read and resource crates take it.

use reads::Params;

/// The query string as ordered pairs (a key may repeat, as `tags` does).
pub(super) fn params(query: Option<String>) -> Params {
    let raw = query.unwrap_or_default();
    Params::from(url::form_urlencoded::parse(raw.as_bytes()).into_owned().collect::<Vec<_>>())
}
