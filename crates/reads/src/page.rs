//! The envelopes of list bodies: `{data, meta}` with page numbers (the legacy lists) or with an
//! opaque cursor (the v4 lists).

use serde::Serialize;
use utoipa::ToSchema;

/// A page of a page-numbered list.
#[derive(Debug, Serialize, ToSchema)]
pub struct Paged<T> {
    pub data: Vec<T>,
    pub meta: PageMeta,
}

/// `meta` of a page-numbered list (reference/public-api.md §6.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PageMeta {
    pub page: i64,
    pub limit: i64,
    pub total_items: u64,
    pub total_pages: u64,
}

/// A page of a cursor list.
#[derive(Debug, Serialize, ToSchema)]
pub struct CursorPage<T> {
    pub data: Vec<T>,
    pub meta: CursorMeta,
}

/// `meta` of a cursor list: the cursor of the next page, absent on the last one; `limit` where
/// the endpoint echoes it (v3 scores).
#[derive(Debug, Default, Serialize, ToSchema)]
pub struct CursorMeta {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

impl<T> CursorPage<T> {
    pub fn new(data: Vec<T>, cursor: Option<String>) -> Self {
        Self { data, meta: CursorMeta { limit: None, cursor } }
    }
}
