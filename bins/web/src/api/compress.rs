//! Gzip for the UI's large JSON answers (a 100 k-observation trace tree is about 6 MB; ids and
//! repeated names shrink it several times over), for browsers that ask for it. Small answers
//! are sent as they are: compressing them costs more than it saves.

use tower_http::compression::predicate::{DefaultPredicate, Predicate, SizeAbove};
use tower_http::compression::{CompressionLayer, CompressionLevel};
use utoipa_axum::router::OpenApiRouter;

use crate::state::AppState;

/// Answers under this many bytes are never compressed.
const MIN_BYTES: u16 = 1024;

/// `router`'s routes (those already added) answer gzip to clients that accept it, at the fastest
/// level: the web spends little CPU on it and a remote browser still gets a fraction of the bytes.
pub fn large_json(router: OpenApiRouter<AppState>) -> OpenApiRouter<AppState> {
    let when = DefaultPredicate::new().and(SizeAbove::new(MIN_BYTES));
    router.layer(
        CompressionLayer::new()
            .no_br()
            .no_deflate()
            .no_zstd()
            .quality(CompressionLevel::Fastest)
            .compress_when(when),
    )
}
