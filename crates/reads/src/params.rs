//! Query-string parameters as the public API takes them: repeated keys, comma-separated lists,
//! ISO datetimes. Every rule violation is a [`ReadError::BadRequest`] naming the parameter.

use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};

use crate::ReadError;

/// The raw `key=value` pairs of one request, in order.
#[derive(Debug, Default, Clone)]
pub struct Params(Vec<(String, String)>);

impl From<Vec<(String, String)>> for Params {
    fn from(pairs: Vec<(String, String)>) -> Self {
        Self(pairs)
    }
}

impl Params {
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        Self(pairs.into_iter().map(|(k, v)| (k.to_owned(), v.to_owned())).collect())
    }

    /// The first value of `key`; an empty value counts as absent (upstream's rule for `page`).
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0.iter().find(|(k, v)| k == key && !v.is_empty()).map(|(_, v)| v.as_str())
    }

    /// Every value of a repeatable key, each also split on commas (both spellings reach servers).
    pub fn list(&self, key: &str) -> Vec<String> {
        self.0
            .iter()
            .filter(|(k, _)| k == key || k.strip_suffix("[]") == Some(key))
            .flat_map(|(_, v)| v.split(','))
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(str::to_owned)
            .collect()
    }

    pub fn string(&self, key: &str) -> Option<String> {
        self.get(key).map(str::to_owned)
    }

    /// An integer in `min..=max`, `default` when absent.
    pub fn int(&self, key: &str, default: i64, min: i64, max: i64) -> Result<i64, ReadError> {
        let Some(raw) = self.get(key) else { return Ok(default) };
        let value: i64 = raw
            .parse()
            .map_err(|_| ReadError::bad_request(format!("`{key}` must be an integer, got `{raw}`")))?;
        if !(min..=max).contains(&value) {
            return Err(ReadError::bad_request(format!(
                "`{key}` must be between {min} and {max}, got {value}"
            )));
        }
        Ok(value)
    }

    pub fn float(&self, key: &str) -> Result<Option<f64>, ReadError> {
        self.get(key)
            .map(|raw| {
                raw.parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite())
                    .ok_or_else(|| ReadError::bad_request(format!("`{key}` must be a number, got `{raw}`")))
            })
            .transpose()
    }

    pub fn bool(&self, key: &str) -> Result<Option<bool>, ReadError> {
        match self.get(key) {
            None => Ok(None),
            Some("true") => Ok(Some(true)),
            Some("false") => Ok(Some(false)),
            Some(raw) => {
                Err(ReadError::bad_request(format!("`{key}` must be `true` or `false`, got `{raw}`")))
            }
        }
    }

    pub fn datetime(&self, key: &str) -> Result<Option<DateTime<Utc>>, ReadError> {
        self.get(key).map(|raw| parse_datetime(key, raw)).transpose()
    }
}

/// ISO-8601 as the SDKs send it: with an offset or `Z`; a bare date or a time without offset is
/// taken as UTC.
pub fn parse_datetime(key: &str, raw: &str) -> Result<DateTime<Utc>, ReadError> {
    if let Ok(t) = DateTime::parse_from_rfc3339(raw) {
        return Ok(t.with_timezone(&Utc));
    }
    if let Ok(t) = NaiveDateTime::parse_from_str(raw, "%Y-%m-%dT%H:%M:%S%.f") {
        return Ok(t.and_utc());
    }
    if let Ok(d) = NaiveDate::parse_from_str(raw, "%Y-%m-%d") {
        return Ok(d.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc());
    }
    Err(ReadError::bad_request(format!("`{key}` must be an ISO-8601 datetime, got `{raw}`")))
}

/// `page`/`limit` of the legacy lists (reference/public-api.md §6.1): page ≥ 1, limit 1–100.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageRequest {
    pub page: i64,
    pub limit: i64,
}

impl PageRequest {
    pub fn parse(params: &Params) -> Result<Self, ReadError> {
        Ok(Self { page: params.int("page", 1, 1, 1_000_000)?, limit: params.int("limit", 50, 1, 100)? })
    }

    pub fn offset(&self) -> i64 {
        (self.page - 1) * self.limit
    }

    /// The `meta` block: `{page, limit, totalItems, totalPages}`.
    pub fn meta(&self, total_items: u64) -> crate::page::PageMeta {
        let limit = self.limit as u64;
        crate::page::PageMeta {
            page: self.page,
            limit: self.limit,
            total_items,
            total_pages: total_items.div_ceil(limit),
        }
    }

    /// A page of `data` out of `total_items`.
    pub fn page<T>(&self, data: Vec<T>, total_items: u64) -> crate::page::Paged<T> {
        crate::page::Paged { data, meta: self.meta(total_items) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_take_repeats_and_commas() {
        let p = Params::from_pairs([("environment", "a,b"), ("environment", "c"), ("tags[]", "x")]);
        assert_eq!(p.list("environment"), ["a", "b", "c"]);
        assert_eq!(p.list("tags"), ["x"]);
        assert!(p.list("missing").is_empty());
    }

    #[test]
    fn ints_are_range_checked() {
        let p = Params::from_pairs([("limit", "101"), ("page", "x"), ("empty", "")]);
        assert!(p.int("limit", 50, 1, 100).unwrap_err().to_string().contains("between 1 and 100"));
        assert!(p.int("page", 1, 1, 10).unwrap_err().to_string().contains("integer"));
        assert_eq!(p.int("empty", 7, 1, 10).unwrap(), 7);
    }

    #[test]
    fn datetimes_accept_offsets_and_bare_forms() {
        let z = parse_datetime("t", "2024-05-01T10:00:00.123Z").unwrap();
        let offset = parse_datetime("t", "2024-05-01T12:00:00.123+02:00").unwrap();
        assert_eq!(z, offset);
        assert_eq!(parse_datetime("t", "2024-05-01").unwrap().to_rfc3339(), "2024-05-01T00:00:00+00:00");
        assert!(parse_datetime("t", "yesterday").is_err());
    }

    #[test]
    fn page_meta_rounds_up() {
        let page = PageRequest { page: 2, limit: 10 };
        assert_eq!(page.offset(), 10);
        assert_eq!(page.meta(21).total_pages, 3);
        assert_eq!(page.meta(0).total_pages, 0);
    }
}
