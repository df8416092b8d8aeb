//! Cursor pages, as the SDK's `CursorMeta` reads them: `{"data": [...], "meta": {"cursor": …}}`,
//! the cursor opaque (URL-safe base64 of the last row's sort key) and absent on the last page.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::PgPool;
use sqlx::postgres::PgRow;
use utoipa::ToSchema;

use crate::error::{Code, Error, Result};

pub const DEFAULT_LIMIT: i64 = 50;
pub const MAX_LIMIT: i64 = 100;

#[derive(Debug, Serialize, ToSchema)]
pub struct CursorMeta {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct CursorPage<T> {
    pub data: Vec<T>,
    pub meta: CursorMeta,
}

/// `limit` and `cursor` from a query string (`None` when absent), checked.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PageQuery {
    pub limit: i64,
    /// The decoded sort key of the last row of the previous page.
    pub after: Option<String>,
}

pub fn parse_query(query: Option<&str>) -> Result<PageQuery> {
    let mut page = PageQuery { limit: DEFAULT_LIMIT, after: None };
    for pair in query.unwrap_or_default().split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        match key {
            "limit" => {
                page.limit =
                    value.parse::<i64>().ok().filter(|l| (1..=MAX_LIMIT).contains(l)).ok_or_else(|| {
                        Error::refused(
                            Code::InvalidQuery,
                            format!("limit must be an integer from 1 to {MAX_LIMIT}"),
                        )
                    })?;
            }
            "cursor" if !value.is_empty() => {
                let decoded = URL_SAFE_NO_PAD
                    .decode(value.trim_end_matches("%3D").trim_end_matches('='))
                    .ok()
                    .and_then(|bytes| String::from_utf8(bytes).ok())
                    .ok_or_else(|| {
                        Error::refused(Code::InvalidQuery, "cursor is not one this API returned")
                    })?;
                page.after = Some(decoded);
            }
            _ => {}
        }
    }
    Ok(page)
}

pub fn encode(key: &str) -> String {
    URL_SAFE_NO_PAD.encode(key)
}

/// Splits `created_at micros:id` keys.
pub fn split_key(key: &str) -> Result<(i64, &str)> {
    key.split_once(':')
        .and_then(|(micros, id)| Some((micros.parse().ok()?, id)))
        .ok_or_else(|| Error::refused(Code::InvalidQuery, "cursor is not one this API returned"))
}

/// A page from `limit + 1` rows: the extra row only says there is a next page.
pub fn finish<R, T>(
    mut rows: Vec<R>,
    limit: i64,
    key: impl Fn(&R) -> String,
    body: impl Fn(R) -> T,
) -> CursorPage<T> {
    let more = rows.len() as i64 > limit;
    rows.truncate(limit as usize);
    let cursor = more.then(|| rows.last().map(|r| encode(&key(r)))).flatten();
    CursorPage { data: rows.into_iter().map(body).collect(), meta: CursorMeta { cursor } }
}

/// A row of a list paged newest first by `(created_at, id)`.
pub trait Keyed {
    fn created_at(&self) -> DateTime<Utc>;
    fn id(&self) -> &str;
}

/// One page of `select` (a statement over table alias `alias`, to which this adds the `WHERE`:
/// the project, then the cursor), newest first by `(created_at, id)`: the keyset list every
/// resource of this crate pages the same way.
pub async fn newest_first<R>(
    db: &PgPool,
    select: &str,
    alias: &str,
    project: &str,
    query: &PageQuery,
) -> Result<CursorPage<R>>
where
    R: Keyed + for<'r> sqlx::FromRow<'r, PgRow> + Send + Unpin,
{
    let (after_micros, after_id) = match &query.after {
        Some(key) => {
            let (micros, id) = split_key(key)?;
            (Some(micros), id.to_owned())
        }
        None => (None, String::new()),
    };
    let sql = format!(
        "{select} WHERE {alias}.project_id = $1
           AND ($2::timestamptz IS NULL OR ({alias}.created_at, {alias}.id) < ($2, $3))
         ORDER BY {alias}.created_at DESC, {alias}.id DESC LIMIT $4"
    );
    let rows: Vec<R> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(project)
        .bind(after_micros.and_then(DateTime::from_timestamp_micros))
        .bind(&after_id)
        .bind(query.limit + 1)
        .fetch_all(db)
        .await?;
    Ok(finish(rows, query.limit, |r| format!("{}:{}", r.created_at().timestamp_micros(), r.id()), |r| r))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_and_cursors_are_checked() {
        assert_eq!(parse_query(None).unwrap().limit, 50);
        assert_eq!(parse_query(Some("limit=100")).unwrap().limit, 100);
        assert!(parse_query(Some("limit=101")).is_err());
        assert!(parse_query(Some("limit=x")).is_err());
        let key = format!("{}:{}", 17, "id-1");
        let page = parse_query(Some(&format!("cursor={}", encode(&key)))).unwrap();
        assert_eq!(split_key(page.after.as_deref().unwrap()).unwrap(), (17, "id-1"));
        assert!(parse_query(Some("cursor=%%%")).is_err());
    }
}
