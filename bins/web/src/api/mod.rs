//! The HTTP surface. Each submodule owns one resource: its handlers (extract, call a service crate,
//! answer), their typed bodies, and its `routes()`, mounted through `utoipa_axum::routes!` so that
//! every route is in the OpenAPI document (`openapi.rs`) as it is mounted.

mod admin;
mod admin_organizations;
mod annotation_queues;
mod api_keys;
mod batch;
mod blob_storage;
mod body;
mod comments;
mod compress;
mod dashboards;
mod dataset_runs;
mod datasets;
mod evaluation_executions;
mod evaluation_rules;
mod evaluators;
mod health;
mod llm_connections;
mod media;
mod memberships;
mod models;
mod monitors;
pub mod openapi;
mod otel;
mod projects;
mod prompts;
mod query;
mod read_params;
mod reads;
mod scim;
mod score_configs;
mod trace_deletion;
mod ui;
mod ui_app;
mod ui_datasets;
mod ui_members;
mod ui_observations;
mod ui_people;
mod ui_prompts;
mod ui_public_links;
mod ui_retention;
mod ui_saved_views;
mod ui_sessions;
mod ui_settings;
mod ui_trace;

use std::sync::Arc;

use axum::Router;
use axum::http::Uri;
use axum::http::header::CONTENT_TYPE;
use axum::routing::get;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;

use crate::error::ApiError;
use crate::state::AppState;

/// Every route, and the OpenAPI document that lists them.
pub fn routes() -> (Router<AppState>, utoipa::openapi::OpenApi) {
    let (router, doc) = OpenApiRouter::with_openapi(openapi::ApiDoc::openapi())
        .merge(health::routes())
        .merge(projects::routes())
        .merge(admin::routes())
        .merge(admin_organizations::routes())
        .merge(api_keys::routes())
        .merge(memberships::routes())
        .merge(scim::routes())
        .merge(ui::routes())
        .merge(ui_app::routes())
        .merge(ui_saved_views::routes())
        .merge(ui_sessions::routes())
        .merge(ui_observations::routes())
        .merge(ui_members::routes())
        .merge(ui_people::routes())
        .merge(ui_settings::routes())
        .merge(ui_retention::routes())
        .merge(ui_trace::routes())
        .merge(ui_datasets::routes())
        .merge(ui_prompts::routes())
        .merge(ui_public_links::routes())
        .merge(otel::routes())
        .merge(batch::routes())
        .merge(reads::routes())
        .merge(prompts::routes())
        .merge(evaluators::routes())
        .merge(evaluation_rules::routes())
        .merge(evaluation_executions::routes())
        .merge(models::routes())
        .merge(media::routes())
        .merge(datasets::routes())
        .merge(dataset_runs::routes())
        .merge(comments::routes())
        .merge(score_configs::routes())
        .merge(llm_connections::routes())
        .merge(dashboards::routes())
        .merge(monitors::routes())
        .merge(annotation_queues::routes())
        .merge(trace_deletion::routes())
        .merge(blob_storage::routes())
        .split_for_parts();
    // Rendered once: the document does not change while the process runs.
    let rendered: Arc<str> = doc.to_json().unwrap_or_else(|_| "{}".to_owned()).into();
    let router = router
        .route(
            openapi::PATH,
            get(move || async move { ([(CONTENT_TYPE, "application/json")], rendered.to_string()) }),
        )
        .fallback(not_found)
        .method_not_allowed_fallback(|| async { ApiError::method_not_allowed() });
    (router, doc)
}

async fn not_found(uri: Uri) -> ApiError {
    ApiError::not_found(format!("No such endpoint: {}", uri.path()))
}
