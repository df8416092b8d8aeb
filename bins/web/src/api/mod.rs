//! The HTTP surface. Each submodule owns one resource; wire types (DTOs) live next to their
//! handlers and convert from storage/domain types.

mod admin;
mod batch;
mod body;
mod comments;
mod dataset_runs;
mod datasets;
mod health;
mod media;
mod models;
mod otel;
mod projects;
mod prompts;
mod query;
mod reads;
mod score_configs;
mod trace_deletion;

use axum::Router;
use axum::http::Uri;

use crate::error::ApiError;
use crate::state::AppState;

pub fn routes() -> Router<AppState> {
    Router::new()
        .merge(health::routes())
        .merge(projects::routes())
        .merge(admin::routes())
        .merge(otel::routes())
        .merge(batch::routes())
        .merge(reads::routes())
        .merge(prompts::routes())
        .merge(models::routes())
        .merge(media::routes())
        .merge(datasets::routes())
        .merge(dataset_runs::routes())
        .merge(comments::routes())
        .merge(score_configs::routes())
        .merge(trace_deletion::routes())
        .fallback(not_found)
        .method_not_allowed_fallback(|| async { ApiError::method_not_allowed() })
}

async fn not_found(uri: Uri) -> ApiError {
    ApiError::not_found(format!("No such endpoint: {}", uri.path()))
}
