//! The datasets pages' reads, under `/api/ui/projects/{projectId}/datasets`: the list with each
//! dataset's item count, run count and newest run; and the runs side by side: one page
//! of a dataset's active items with, for each of up to `reads::dataset_compare::MAX_RUNS` runs,
//! the run's output, latency, cost and scores per item, and each run's averages over all its
//! items. Any role with access to the project reads it; like the public run routes it answers
//! while the v3 tables are written (`legacy`, `dual`) and is 404 in `events_only`.

use axum::Json;
use axum::extract::{Path, RawQuery, State};
use axum::http::HeaderMap;
use serde::Serialize;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use reads::dataset_compare::{self, MAX_RUNS, RunCell, RunSummary};
use reads::{Params, gate};
use resources::Page;
use resources::datasets::{self, DatasetItem, DatasetOverview};
use resources::identity::people;

use super::media::urls;
use super::openapi::ErrorBody;
use crate::error::ApiError;
use crate::session::UserSession;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(ui_datasets)).routes(routes!(ui_dataset_compare))
}

#[derive(IntoParams)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
#[allow(dead_code)] // documents the query `Params` reads; never built
struct CompareQuery {
    /// The runs to compare, by id: 1 to 5, repeated (`runId=a&runId=b`).
    run_id: Vec<String>,
    /// The page of items: 1-based; 1 by default.
    #[param(minimum = 1)]
    page: Option<i64>,
    /// Items per page, 1 to 100; 50 by default.
    #[param(minimum = 1, maximum = 100)]
    limit: Option<i64>,
}

/// A page of items, and the runs' results for them.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Comparison {
    /// The dataset's active items, newest first.
    pub items: Page<DatasetItem>,
    /// One per run asked for, in the order asked.
    pub runs: Vec<RunSummary>,
    /// Each run's result per item of the page; none where a run did not run an item.
    pub cells: Vec<RunCell>,
}

/// The project's datasets, newest first, with their active items, runs and newest run.
#[utoipa::path(
    get, path = "/api/ui/projects/{projectId}/datasets", tag = "ui", operation_id = "ui_datasets",
    security(("sessionCookie" = [])), params(("projectId" = String, Path), super::query::PageQuery),
    responses(
        (status = 200, body = Page<DatasetOverview>), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 404, body = ErrorBody, description = "No access to the project")
    )
)]
async fn ui_datasets(
    session: UserSession,
    State(state): State<AppState>,
    Path(project_id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Json<Page<DatasetOverview>>, ApiError> {
    let pool = &state.stores.postgres;
    people::on_project(pool, &session.user.id, &project_id).await?;
    Ok(Json(datasets::overview(pool, &project_id, &super::query::params(query)).await?))
}

/// Runs of a dataset side by side, one page of items at a time.
#[utoipa::path(
    get, path = "/api/ui/projects/{projectId}/datasets/{datasetName}/compare", tag = "ui",
    operation_id = "ui_dataset_compare", security(("sessionCookie" = [])),
    params(("projectId" = String, Path), ("datasetName" = String, Path, description = "URL-encoded"), CompareQuery),
    responses(
        (status = 200, body = Comparison), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "No access to the project, no such dataset, or the `events_only` write mode")
    )
)]
async fn ui_dataset_compare(
    session: UserSession,
    State(state): State<AppState>,
    headers: HeaderMap,
    Path((project_id, dataset_name)): Path<(String, String)>,
    RawQuery(query): RawQuery,
) -> Result<Json<Comparison>, ApiError> {
    let pool = &state.stores.postgres;
    people::on_project(pool, &session.user.id, &project_id).await?;
    gate::legacy(state.config.migration.write_mode)?;
    let asked = super::query::params(query);
    let mut runs: Vec<String> = Vec::new();
    for run in asked.list("runId") {
        if !runs.contains(&run) {
            runs.push(run);
        }
    }
    if runs.is_empty() || runs.len() > MAX_RUNS {
        return Err(ApiError::bad_request(format!("Pick 1 to {MAX_RUNS} runs to compare (`runId`)")));
    }
    let mut pairs: Vec<(String, String)> = vec![("datasetName".into(), dataset_name)];
    for key in ["page", "limit"] {
        if let Some(value) = asked.get(key) {
            pairs.push((key.into(), value.to_owned()));
        }
    }
    let items =
        datasets::list_items(pool, &project_id, &Params::from(pairs), &urls(&state, &headers)).await?;
    let ids: Vec<String> = items.data.iter().map(|item| item.id.clone()).collect();
    let clickhouse = &state.stores.clickhouse;
    let cells = dataset_compare::cells(clickhouse, &project_id, &runs, &ids).await?;
    let runs = dataset_compare::summaries(clickhouse, &project_id, &runs).await?;
    Ok(Json(Comparison { items, runs, cells }))
}
