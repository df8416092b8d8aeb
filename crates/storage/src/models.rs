//! The model definitions the worker prices generations with (`models`, migration 0007).

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, Utc};
use sqlx::PgPool;
use sqlx::types::Json;

use domain::event::Decimal12;
use domain::pricing::{ModelPrice, PriceBook, compile_pattern};

use crate::Result;

#[derive(sqlx::FromRow)]
struct Row {
    id: String,
    project_id: Option<String>,
    model_name: String,
    match_pattern: String,
    start_date: Option<DateTime<Utc>>,
    prices: Json<BTreeMap<String, f64>>,
}

/// Every definition, built-in and per project. A row whose pattern does not compile (the API
/// refuses those, so only a hand-written row can have one) is skipped with a warning rather than
/// stopping all pricing.
pub async fn price_book(pool: &PgPool) -> Result<PriceBook> {
    let rows: Vec<Row> =
        sqlx::query_as("SELECT id, project_id, model_name, match_pattern, start_date, prices FROM models")
            .fetch_all(pool)
            .await?;
    let models = rows
        .into_iter()
        .filter_map(|row| {
            let pattern = compile_pattern(&row.match_pattern)
                .map_err(|error| tracing::warn!(model = %row.id, %error, "model definition skipped"))
                .ok()?;
            let prices = row
                .prices
                .0
                .iter()
                .filter_map(|(kind, price)| Some((kind.clone(), Decimal12::from_f64(*price)?)))
                .collect();
            Some(ModelPrice {
                id: row.id,
                project_id: row.project_id,
                model_name: row.model_name,
                pattern,
                start_date: row.start_date.map(|d| d.timestamp_micros()),
                prices,
            })
        })
        .collect();
    Ok(PriceBook::new(models))
}

/// Prices per usage type of the given definitions, as reads show them next to an observation
/// (`inputPrice`, …). Only the project's own and the built-in definitions are visible.
pub async fn prices_by_id(
    pool: &PgPool,
    project: &str,
    ids: &[String],
) -> Result<HashMap<String, BTreeMap<String, f64>>> {
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let rows: Vec<(String, Json<BTreeMap<String, f64>>)> = sqlx::query_as(
        "SELECT id, prices FROM models WHERE id = ANY($2) AND (project_id = $1 OR project_id IS NULL)",
    )
    .bind(project)
    .bind(ids)
    .fetch_all(pool)
    .await?;
    Ok(rows.into_iter().map(|(id, prices)| (id, prices.0)).collect())
}
