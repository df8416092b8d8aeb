//! The paged envelope of every resource list: `{"data": [...], "meta": {page, limit, totalItems,
//! totalPages}}` (reference/public-api.md §6.1), with the read APIs' `meta`, so both count pages
//! the same way.

use serde::Serialize;
use utoipa::ToSchema;

pub use reads::PageMeta;
use reads::params::PageRequest;

/// One page of a list.
#[derive(Debug, Serialize, ToSchema)]
pub struct Page<T> {
    pub data: Vec<T>,
    pub meta: PageMeta,
}

impl<T> Page<T> {
    /// The page `request` asked for, of a list of `total` items (a count that does not fit is 0).
    pub fn new(data: Vec<T>, request: &PageRequest, total: i64) -> Self {
        Self { data, meta: request.meta(u64::try_from(total).unwrap_or_default()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_counts_pages_rounding_up() {
        let request = PageRequest { page: 2, limit: 10 };
        let page = Page::new(vec![1], &request, 21);
        assert_eq!((page.meta.page, page.meta.total_items, page.meta.total_pages), (2, 21, 3));
        assert_eq!(Page::<u8>::new(vec![], &request, 0).meta.total_pages, 0);
        assert_eq!(Page::<u8>::new(vec![], &request, -1).meta.total_items, 0, "a count that does not fit");
    }
}
