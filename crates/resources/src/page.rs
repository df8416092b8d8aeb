//! The paged envelope of every resource list: `{"data": [...], "meta": {page, limit, totalItems,
//! totalPages}}` (reference/public-api.md §6.1), with the read APIs' `meta`, so both count pages
//! the same way.

use serde::Serialize;
use sqlx::postgres::PgRow;
use sqlx::{FromRow, PgExecutor, PgPool};
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

/// How many rows of `table` belong to `project` (for a per-project cap, checked in the transaction
/// that adds one). `table` is one of the crate's own table names, never input.
pub(crate) async fn count_in_project(
    db: impl PgExecutor<'_>,
    table: &'static str,
    project: &str,
) -> sqlx::Result<i64> {
    let sql = format!("SELECT count(*) FROM {table} WHERE project_id = $1");
    let (count,): (i64,) = sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(project).fetch_one(db).await?;
    Ok(count)
}

/// One page of a project's rows of `table` (`columns` selected, in `order`), and the count of them
/// all. Every argument but `project` and `request` is one of the crate's own constants.
pub(crate) async fn project_page<R>(
    pool: &PgPool,
    table: &'static str,
    columns: &'static str,
    order: &'static str,
    project: &str,
    request: &PageRequest,
) -> sqlx::Result<(Vec<R>, i64)>
where
    R: for<'r> FromRow<'r, PgRow> + Send + Unpin,
{
    let total = count_in_project(pool, table, project).await?;
    let sql =
        format!("SELECT {columns} FROM {table} WHERE project_id = $1 ORDER BY {order} LIMIT $2 OFFSET $3");
    let rows = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(project)
        .bind(request.limit)
        .bind(request.offset())
        .fetch_all(pool)
        .await?;
    Ok((rows, total))
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
