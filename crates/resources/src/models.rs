//! `/api/public/models`: the model definitions that price generations, the built-in ones (shared,
//! read-only) and each project's own, which win over built-ins of the same name (`domain::pricing`).
//! The worker reloads them every 30 s, so a new definition prices generations within that time.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::PgPool;
use sqlx::types::Json;
use utoipa::ToSchema;

use reads::Params;
use reads::params::PageRequest;

use crate::timestamp;
use crate::{Error, Message, Page, Result};

const UNITS: [&str; 6] = ["CHARACTERS", "TOKENS", "MILLISECONDS", "SECONDS", "IMAGES", "REQUESTS"];

#[derive(sqlx::FromRow)]
struct StoredModel {
    id: String,
    project_id: Option<String>,
    model_name: String,
    match_pattern: String,
    start_date: Option<DateTime<Utc>>,
    unit: String,
    prices: Json<BTreeMap<String, f64>>,
    tokenizer_id: Option<String>,
    tokenizer_config: Option<Json<Value>>,
    created_at: DateTime<Utc>,
}

const COLUMNS: &str = "id, project_id, model_name, match_pattern, start_date, unit, prices, tokenizer_id, tokenizer_config, created_at";
/// The caller's own definitions and the built-in ones.
const VISIBLE: &str = "(project_id = $1 OR project_id IS NULL)";

/// The SDKs' `Model`: flat prices (deprecated but still read) and the same prices as the one
/// default pricing tier.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Model {
    pub id: String,
    pub model_name: String,
    /// The regular expression matched against a generation's model name.
    pub match_pattern: String,
    pub start_date: Option<String>,
    /// `TOKENS`, `CHARACTERS`, `MILLISECONDS`, `SECONDS`, `IMAGES` or `REQUESTS`.
    pub unit: String,
    /// USD per input unit (deprecated: see `prices`).
    pub input_price: Option<f64>,
    pub output_price: Option<f64>,
    pub total_price: Option<f64>,
    pub tokenizer_id: Option<String>,
    pub tokenizer_config: Option<Value>,
    /// A built-in definition, shared by every project and read-only.
    pub is_langfuse_managed: bool,
    pub created_at: String,
    /// USD per unit, by usage type.
    pub prices: BTreeMap<String, ModelPrice>,
    /// One default tier carrying the same prices (conditional tiers are not supported).
    pub pricing_tiers: Vec<PricingTier>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ModelPrice {
    pub price: f64,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PricingTier {
    pub id: String,
    pub name: &'static str,
    pub is_default: bool,
    pub priority: i32,
    /// Always empty: the default tier has no conditions.
    pub conditions: Vec<Value>,
    pub prices: BTreeMap<String, f64>,
}

impl StoredModel {
    fn into_body(self) -> Model {
        let prices = self.prices.0;
        Model {
            model_name: self.model_name,
            match_pattern: self.match_pattern,
            start_date: self.start_date.as_ref().map(timestamp),
            unit: self.unit,
            input_price: prices.get("input").copied(),
            output_price: prices.get("output").copied(),
            total_price: prices.get("total").copied(),
            tokenizer_id: self.tokenizer_id,
            tokenizer_config: self.tokenizer_config.map(|config| config.0),
            is_langfuse_managed: self.project_id.is_none(),
            created_at: timestamp(&self.created_at),
            prices: prices.iter().map(|(kind, price)| (kind.clone(), ModelPrice { price: *price })).collect(),
            pricing_tiers: vec![PricingTier {
                id: format!("{}-default", self.id),
                name: "Standard",
                is_default: true,
                priority: 0,
                conditions: Vec::new(),
                prices,
            }],
            id: self.id,
        }
    }
}

/// `GET /models?page=&limit=`: the project's own definitions first, then the built-in ones.
pub async fn list(pool: &PgPool, project: &str, params: &Params) -> Result<Page<Model>> {
    let page = PageRequest::parse(params)?;
    let (total,): (i64,) =
        sqlx::query_as(sqlx::AssertSqlSafe(format!("SELECT count(*) FROM models WHERE {VISIBLE}")))
            .bind(project)
            .fetch_one(pool)
            .await?;
    let sql = format!(
        "SELECT {COLUMNS} FROM models WHERE {VISIBLE} \
         ORDER BY project_id IS NULL, model_name, start_date DESC NULLS LAST, id LIMIT $2 OFFSET $3"
    );
    let models: Vec<StoredModel> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(project)
        .bind(page.limit)
        .bind(page.offset())
        .fetch_all(pool)
        .await?;
    Ok(Page::new(models.into_iter().map(StoredModel::into_body).collect(), &page, total))
}

/// `GET /models/{id}`: one of the project's own definitions or a built-in one.
pub async fn get(pool: &PgPool, project: &str, id: &str) -> Result<Model> {
    let sql = format!("SELECT {COLUMNS} FROM models WHERE id = $2 AND {VISIBLE}");
    let model: Option<StoredModel> =
        sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(project).bind(id).fetch_optional(pool).await?;
    model.map(StoredModel::into_body).ok_or_else(|| Error::not_found("Model not found"))
}

/// `DELETE /models/{id}`. Only a project's own definitions can be deleted; a built-in one is
/// overridden instead.
pub async fn delete(pool: &PgPool, project: &str, id: &str) -> Result<Message> {
    let deleted = sqlx::query("DELETE FROM models WHERE id = $1 AND project_id = $2")
        .bind(id)
        .bind(project)
        .execute(pool)
        .await?
        .rows_affected();
    if deleted == 1 {
        return Ok(Message { message: "Model successfully deleted" });
    }
    let built_in: Option<(String,)> =
        sqlx::query_as("SELECT id FROM models WHERE id = $1 AND project_id IS NULL")
            .bind(id)
            .fetch_optional(pool)
            .await?;
    match built_in {
        Some(_) => Err(Error::bad_request(
            "Built-in model definitions cannot be deleted; create a definition with the same match pattern to override it",
        )),
        None => Err(Error::not_found("Model not found")),
    }
}

/// The body of `POST /models` (the SDKs' `CreateModelRequest`): flat prices or one default
/// pricing tier.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NewModel {
    pub model_name: String,
    pub match_pattern: String,
    #[serde(default)]
    pub start_date: Option<DateTime<Utc>>,
    #[serde(default)]
    pub unit: Option<String>,
    #[serde(default)]
    pub input_price: Option<f64>,
    #[serde(default)]
    pub output_price: Option<f64>,
    #[serde(default)]
    pub total_price: Option<f64>,
    #[serde(default)]
    pub pricing_tiers: Option<Vec<NewPricingTier>>,
    #[serde(default)]
    pub tokenizer_id: Option<String>,
    #[serde(default)]
    pub tokenizer_config: Option<Value>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NewPricingTier {
    #[serde(default)]
    pub is_default: bool,
    #[serde(default)]
    pub conditions: Vec<Value>,
    pub prices: BTreeMap<String, f64>,
}

/// The prices of a new definition, from the flat fields or the single default tier.
fn prices_of(new: &NewModel) -> Result<BTreeMap<String, f64>> {
    let flat = [("input", new.input_price), ("output", new.output_price), ("total", new.total_price)];
    let mut prices: BTreeMap<String, f64> =
        flat.iter().filter_map(|(kind, price)| Some(((*kind).to_owned(), (*price)?))).collect();
    if new.total_price.is_some() && (new.input_price.is_some() || new.output_price.is_some()) {
        return Err(Error::bad_request(
            "`totalPrice` cannot be set together with `inputPrice` or `outputPrice`",
        ));
    }
    if let Some(tiers) = &new.pricing_tiers {
        if !prices.is_empty() {
            return Err(Error::bad_request("Send either flat prices or `pricingTiers`, not both"));
        }
        match tiers.as_slice() {
            [tier] if tier.is_default && tier.conditions.is_empty() => prices.clone_from(&tier.prices),
            _ => {
                return Err(Error::bad_request(
                    "Only one default pricing tier (isDefault true, no conditions) is supported; conditional tiers are not",
                ));
            }
        }
    }
    if let Some((kind, price)) = prices.iter().find(|(_, price)| !price.is_finite() || **price < 0.0) {
        return Err(Error::bad_request(format!(
            "The price of `{kind}` must be a non-negative number, got {price}"
        )));
    }
    Ok(prices)
}

/// `POST /models`: the new definition.
pub async fn create(pool: &PgPool, project: &str, new: NewModel) -> Result<Model> {
    if new.model_name.trim().is_empty() {
        return Err(Error::bad_request("`modelName` must not be empty"));
    }
    domain::pricing::compile_pattern(&new.match_pattern)
        .map_err(|e| Error::bad_request(format!("`matchPattern`: {e}")))?;
    let unit = new.unit.clone().unwrap_or_else(|| "TOKENS".to_owned());
    if !UNITS.contains(&unit.as_str()) {
        return Err(Error::bad_request(format!("`unit` must be one of {}, got `{unit}`", UNITS.join(", "))));
    }
    let prices = prices_of(&new)?;
    let sql = format!(
        "INSERT INTO models (id, project_id, model_name, match_pattern, start_date, unit, prices, tokenizer_id, tokenizer_config) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING {COLUMNS}"
    );
    let model: StoredModel = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(uuid::Uuid::new_v4().to_string())
        .bind(project)
        .bind(&new.model_name)
        .bind(&new.match_pattern)
        .bind(new.start_date)
        .bind(&unit)
        .bind(Json(&prices))
        .bind(&new.tokenizer_id)
        .bind(new.tokenizer_config.as_ref().map(Json))
        .fetch_one(pool)
        .await?;
    Ok(model.into_body())
}
