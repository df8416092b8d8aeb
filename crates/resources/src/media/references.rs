//! Media references inside stored JSON: the SDKs replace an attachment by
//! `@@@langfuseMedia:type=<content type>|id=<media id>|source=<source>@@@`. Dataset items, traces
//! and observations list the ones they contain as `mediaReferences`, each with a fresh download URL.

use std::collections::HashMap;

use reads::render::MediaFields;
use serde::Serialize;
use serde_json::Value;
use sqlx::PgPool;
use utoipa::ToSchema;

use super::{COLUMNS, StoredMedia, Urls};
use crate::timestamp;
use crate::{Error, Result};

const OPEN: &str = "@@@langfuseMedia:";
const CLOSE: &str = "@@@";
/// The fields of a dataset item references are looked for in, with their wire names.
pub const ITEM_FIELDS: &[&str] = &["input", "expectedOutput", "metadata"];
/// The same for traces and observations.
pub const OBSERVATION_FIELDS: &[&str] = &["input", "output", "metadata"];

/// A reference as found: the field, where in it (JSONPath), the whole tag, and the media id.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    pub field: &'static str,
    pub json_path: String,
    pub reference: String,
    pub media_id: String,
}

fn media_id(inner: &str) -> Option<String> {
    inner.split('|').find_map(|part| part.strip_prefix("id=")).filter(|id| !id.is_empty()).map(str::to_owned)
}

fn scan(field: &'static str, value: &Value, path: String, found: &mut Vec<Found>) {
    match value {
        Value::String(text) => {
            let mut rest = text.as_str();
            while let Some(start) = rest.find(OPEN) {
                let after = &rest[start + OPEN.len()..];
                let Some(end) = after.find(CLOSE) else { break };
                if let Some(media_id) = media_id(&after[..end]) {
                    let reference = format!("{OPEN}{}{CLOSE}", &after[..end]);
                    found.push(Found { field, json_path: path.clone(), reference, media_id });
                }
                rest = &after[end + CLOSE.len()..];
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                scan(field, item, format!("{path}[{index}]"), found);
            }
        }
        Value::Object(entries) => {
            for (key, item) in entries {
                scan(field, item, child_path(&path, key), found);
            }
        }
        _ => {}
    }
}

/// The path of an object's member in the normalized, bracket-only form upstream's
/// `findMediaReferences` reports (jsonpath-plus `toPathString`) and the SDKs parse back to set a
/// resolved value (Python SDK 5 `_utils/json_path.py`): `$['gallery'][0]`, never `$.gallery[0]`.
/// Keys are quoted without escaping; a key of digits (or `*`) is written unquoted like an index,
/// and the pseudo-segments `~`, `^` and `@…()` are left out, as jsonpath-plus writes them.
fn child_path(path: &str, key: &str) -> String {
    let pseudo = key == "~" || key == "^" || (key.starts_with('@') && key.ends_with("()"));
    if pseudo {
        path.to_owned()
    } else if !key.is_empty() && key.bytes().all(|b| b.is_ascii_digit() || b == b'*') {
        format!("{path}[{key}]")
    } else {
        format!("{path}['{key}']")
    }
}

/// A reference to uploaded media inside an object's field (the SDKs' `DatasetItemMediaReference`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MediaReference {
    /// The field holding it: `input`, `output`, `expectedOutput` or `metadata`.
    pub field: &'static str,
    /// The whole tag, `@@@langfuseMedia:type=…|id=…|source=…@@@`.
    pub reference_string: String,
    /// Where in the field the string holding it is, e.g. `$['messages'][0]['content']`.
    pub json_path: String,
    pub media: ReferencedMedia,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReferencedMedia {
    pub media_id: String,
    pub content_type: String,
    pub content_length: i64,
    /// A download URL for this caller, valid until `urlExpiry`.
    pub url: String,
    pub url_expiry: String,
}

/// Every reference in one field's value.
pub fn find_in_field(field: &'static str, value: &Value) -> Vec<Found> {
    let mut found = Vec::new();
    scan(field, value, "$".to_owned(), &mut found);
    found
}

/// Every reference in the `fields` of an object.
pub fn find_in(object: &Value, fields: &[&'static str]) -> Vec<Found> {
    object.as_object().map(|object| find_in_fields(object, fields)).unwrap_or_default()
}

fn find_in_fields<T: MediaFields + ?Sized>(object: &T, fields: &[&'static str]) -> Vec<Found> {
    fields
        .iter()
        .filter_map(|&field| Some(find_in_field(field, object.media_field(field)?)))
        .flatten()
        .collect()
}

/// For each object's references as found, the ones whose media is uploaded, with download URLs.
/// References to media that is missing or not uploaded are left out, since there is nothing to
/// download. One query for all objects, none when nothing is referenced.
pub async fn references_of(
    pool: &PgPool,
    project: &str,
    found: Vec<Vec<Found>>,
    urls: &Urls<'_>,
) -> Result<Vec<Vec<MediaReference>>> {
    let mut ids: Vec<String> = found.iter().flatten().map(|f| f.media_id.clone()).collect();
    ids.sort();
    ids.dedup();
    let stored: HashMap<String, StoredMedia> = if ids.is_empty() {
        HashMap::new()
    } else {
        let sql = format!(
            "SELECT {COLUMNS} FROM media WHERE project_id = $1 AND id = ANY($2) AND upload_http_status = 200"
        );
        let rows: Vec<StoredMedia> =
            sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(project).bind(&ids).fetch_all(pool).await?;
        rows.into_iter().map(|media| (media.id.clone(), media)).collect()
    };
    let url_expiry = timestamp(&urls.expires_at());
    let resolve = |f: Found| {
        let media = stored.get(&f.media_id)?;
        Some(MediaReference {
            field: f.field,
            reference_string: f.reference,
            json_path: f.json_path,
            media: ReferencedMedia {
                media_id: media.id.clone(),
                content_type: media.content_type.clone(),
                content_length: media.content_length,
                url: urls.download(media),
                url_expiry: url_expiry.clone(),
            },
        })
    };
    Ok(found.into_iter().map(|found| found.into_iter().filter_map(resolve).collect()).collect())
}

/// Sets `mediaReferences` on each object that has any of `fields` (see [`references_of`]): the
/// read APIs' typed traces and observations, and bodies still built as JSON objects.
pub async fn attach<T: MediaFields + ?Sized>(
    pool: &PgPool,
    project: &str,
    items: Vec<&mut T>,
    fields: &[&'static str],
    urls: &Urls<'_>,
) -> Result<()> {
    let found: Vec<Vec<Found>> = items.iter().map(|item| find_in_fields(&**item, fields)).collect();
    let references = references_of(pool, project, found, urls).await?;
    for (item, references) in items.into_iter().zip(references) {
        // An object read without the fields (a field group left out) gets no list either.
        if fields.iter().any(|field| item.media_field(field).is_some()) {
            let references = references
                .into_iter()
                .map(serde_json::to_value)
                .collect::<std::result::Result<Vec<Value>, _>>()
                .map_err(|error| {
                    Error::Storage(storage::Error::new(storage::ErrorKind::Internal, error.to_string()))
                })?;
            item.set_media_references(references);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn finds_references_with_their_field_and_path() {
        let tag = "@@@langfuseMedia:type=image/png|id=abc|source=bytes@@@";
        let item = json!({
            "input": {"messages": [{"content": format!("look: {tag}")}], "n": 1},
            "expectedOutput": tag,
            "metadata": {"note": "@@@langfuseMedia:type=image/png|source=bytes@@@"},
        });
        let found = find_in(&item, ITEM_FIELDS);
        assert_eq!(found.len(), 2, "a tag without id is not a reference: {found:?}");
        assert_eq!((found[0].field, found[0].json_path.as_str()), ("input", "$['messages'][0]['content']"));
        assert_eq!(
            (found[1].field, found[1].json_path.as_str(), found[1].media_id.as_str()),
            ("expectedOutput", "$", "abc")
        );
        assert_eq!(found[1].reference, tag);
    }

    /// The paths are the bracket-normalized ones the SDKs parse (jsonpath-plus `toPathString`).
    #[test]
    fn paths_are_bracket_normalized() {
        let tag = "@@@langfuseMedia:type=image/png|id=abc|source=bytes@@@";
        let value = json!({
            "gallery": [tag],
            "a.b": {"it's": tag},
            "7": tag,
            "~": {"x": tag},
        });
        let mut paths: Vec<String> =
            find_in_field("input", &value).into_iter().map(|f| f.json_path).collect();
        paths.sort();
        assert_eq!(paths, ["$['a.b']['it's']", "$['gallery'][0]", "$['x']", "$[7]"]);
    }
}
