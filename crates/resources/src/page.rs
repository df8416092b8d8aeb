//! The paged envelope of every resource list: `{"data": [...], "meta": {page, limit, totalItems,
//! totalPages}}` (reference/public-api.md §6.1).

use serde::Serialize;
use utoipa::ToSchema;

use reads::params::PageRequest;

/// One page of a list.
#[derive(Debug, Serialize, ToSchema)]
pub struct Page<T> {
    pub data: Vec<T>,
    pub meta: PageMeta,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PageMeta {
    /// 1-based.
    pub page: i64,
    pub limit: i64,
    /// Across all pages.
    pub total_items: u64,
    pub total_pages: u64,
}

impl<T> Page<T> {
    /// The page `request` asked for, of a list of `total` items (a count that does not fit is 0).
    pub fn new(data: Vec<T>, request: &PageRequest, total: i64) -> Self {
        let total_items = u64::try_from(total).unwrap_or_default();
        let limit = u64::try_from(request.limit).unwrap_or(1).max(1);
        let meta = PageMeta {
            page: request.page,
            limit: request.limit,
            total_items,
            total_pages: total_items.div_ceil(limit),
        };
        Self { data, meta }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_counts_pages_rounding_up_as_the_read_apis_do() {
        let request = PageRequest { page: 2, limit: 10 };
        let page = Page::new(vec![1], &request, 21);
        let expected = request.meta(21);
        assert_eq!(serde_json::to_value(page.meta).unwrap(), expected);
        assert_eq!(Page::<u8>::new(vec![], &request, 0).meta.total_pages, 0);
    }
}
