//! The query string of a list or read request, as the read and resource crates take it, and the
//! documentation of the parameters many lists share.

use reads::Params;
use utoipa::IntoParams;

/// The query string as ordered pairs (a key may repeat, as `tags` does).
pub(super) fn params(query: Option<String>) -> Params {
    let raw = query.unwrap_or_default();
    Params::from(url::form_urlencoded::parse(raw.as_bytes()).into_owned().collect::<Vec<_>>())
}

/// `page` and `limit` of the paged lists (reference/public-api.md §6.1). Handlers read the raw
/// query (`params`), whose parser the service crates share; this documents it.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)] // documents the query `Params` reads; never built
pub(super) struct PageQuery {
    /// 1-based; 1 by default.
    #[param(minimum = 1)]
    page: Option<i64>,
    /// 1 to 100; 50 by default.
    #[param(minimum = 1, maximum = 100)]
    limit: Option<i64>,
}
