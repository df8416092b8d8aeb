//! Custom dashboards (`/api/public/unstable/dashboards`, spec: the SDK clients'
//! `langfuse/api/unstable/dashboards`): a named grid of placements, each a widget of the project
//! (`widgets`) or a managed preset, kept per project in PostgreSQL (migration 0013).
//!
//! Bounds: names 1–200 characters, descriptions up to 2 000, up to 50 filters, 100 placements a
//! dashboard, 200 dashboards and 1 000 widgets a project; a placement lies on the 12-column grid
//! (`x + width <= 12`, `y` up to 10 000, `height` 1–100).

mod placements;
pub mod widgets;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::PgPool;
use sqlx::types::Json;
use utoipa::ToSchema;

use reads::Params;
use reads::params::PageRequest;

use crate::page::{count_in_project, project_page};
use crate::{Error, Message, Page, Result, timestamp};
pub use placements::{NewPlacement, PlacementPatch, add_placement, delete_placement, update_placement};

const MAX_NAME: usize = 200;
const MAX_DESCRIPTION: usize = 2000;
const MAX_FILTERS: usize = 50;
const MAX_PLACEMENTS: usize = 100;
const MAX_DASHBOARDS: i64 = 200;
const GRID_COLUMNS: i64 = 12;
const MAX_ROW: i64 = 10_000;
const MAX_HEIGHT: i64 = 100;
const MAX_ID: usize = 100;

/// A filter in the Langfuse filter-state shape (the SDK's `DashboardWidgetFilter`); which columns
/// and operators a view takes is the metrics parser's to say.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(as = DashboardWidgetFilter)]
pub struct WidgetFilter {
    pub column: String,
    pub operator: String,
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
}

/// A tile of the 12-column grid (the SDK's `DashboardPlacement`): `type` `widget` with a
/// `widgetId`, or `preset` with a `presetId`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = DashboardPlacement)]
pub struct Placement {
    /// `widget` or `preset`.
    #[serde(rename = "type")]
    pub kind: String,
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub widget_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset_id: Option<String>,
    pub x: i64,
    pub y: i64,
    pub width: i64,
    pub height: i64,
}

/// The SDK's `DashboardDefinition`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[schema(as = DashboardDefinition)]
pub struct Definition {
    pub widgets: Vec<Placement>,
}

/// The SDK's `Dashboard`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = Dashboard)]
pub struct DashboardBody {
    pub id: String,
    pub created_at: String,
    pub updated_at: String,
    pub name: String,
    pub description: String,
    pub definition: Definition,
    /// Applied to every widget of the dashboard.
    pub filters: Vec<WidgetFilter>,
}

/// The body of `POST /api/public/unstable/dashboards` (`CreateDashboardRequest`).
#[derive(Debug, Deserialize, ToSchema)]
#[schema(as = CreateDashboardRequest)]
pub struct NewDashboard {
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub definition: Option<Definition>,
    #[serde(default)]
    pub filters: Option<Vec<WidgetFilter>>,
}

/// The body of `PATCH /api/public/unstable/dashboards/{dashboardId}` (`UpdateDashboardRequest`).
#[derive(Debug, Deserialize, ToSchema)]
#[schema(as = UpdateDashboardRequest)]
pub struct DashboardPatch {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub definition: Option<Definition>,
    #[serde(default)]
    pub filters: Option<Vec<WidgetFilter>>,
}

#[derive(sqlx::FromRow)]
struct Row {
    id: String,
    name: String,
    description: String,
    definition: Json<Definition>,
    filters: Json<Vec<WidgetFilter>>,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
}

impl From<Row> for DashboardBody {
    fn from(row: Row) -> Self {
        Self {
            id: row.id,
            created_at: timestamp(&row.created_at),
            updated_at: timestamp(&row.updated_at),
            name: row.name,
            description: row.description,
            definition: row.definition.0,
            filters: row.filters.0,
        }
    }
}

const COLUMNS: &str = "id, name, description, definition, filters, created_at, updated_at";

fn check_name(name: &str) -> Result<()> {
    let length = name.trim().chars().count();
    if length == 0 || length > MAX_NAME {
        return Err(Error::bad_request(format!("name must be 1 to {MAX_NAME} characters")));
    }
    Ok(())
}

fn check_description(description: &str) -> Result<()> {
    if description.chars().count() > MAX_DESCRIPTION {
        return Err(Error::bad_request(format!("description is longer than {MAX_DESCRIPTION} characters")));
    }
    Ok(())
}

fn check_filters(filters: &[WidgetFilter]) -> Result<()> {
    if filters.len() > MAX_FILTERS {
        return Err(Error::bad_request(format!("At most {MAX_FILTERS} filters")));
    }
    Ok(())
}

/// A placement's position on the grid.
fn check_position(x: i64, y: i64, width: i64, height: i64) -> Result<()> {
    let fits = (0..GRID_COLUMNS).contains(&x)
        && (1..=GRID_COLUMNS).contains(&width)
        && x + width <= GRID_COLUMNS
        && (0..=MAX_ROW).contains(&y)
        && (1..=MAX_HEIGHT).contains(&height);
    if !fits {
        return Err(Error::bad_request(format!(
            "A placement lies on the {GRID_COLUMNS}-column grid: 0 <= x, 1 <= width, x + width <= {GRID_COLUMNS}, \
             0 <= y <= {MAX_ROW}, 1 <= height <= {MAX_HEIGHT}"
        )));
    }
    Ok(())
}

fn check_id(what: &str, id: &str) -> Result<()> {
    if id.is_empty() || id.len() > MAX_ID {
        return Err(Error::bad_request(format!("{what} must be 1 to {MAX_ID} characters")));
    }
    Ok(())
}

/// A whole definition: the grid, unique placement ids, and every widget of the project.
async fn check_definition(tx: &mut sqlx::PgConnection, project: &str, definition: &Definition) -> Result<()> {
    if definition.widgets.len() > MAX_PLACEMENTS {
        return Err(Error::bad_request(format!("A dashboard holds at most {MAX_PLACEMENTS} placements")));
    }
    let mut ids = std::collections::HashSet::new();
    for p in &definition.widgets {
        check_id("placement id", &p.id)?;
        if !ids.insert(p.id.as_str()) {
            return Err(Error::bad_request(format!("Duplicate placement id `{}`", p.id)));
        }
        check_position(p.x, p.y, p.width, p.height)?;
        match (p.kind.as_str(), &p.widget_id, &p.preset_id) {
            ("widget", Some(widget), None) => {
                if !widgets::exists(tx, project, widget).await? {
                    return Err(Error::bad_request(format!("Widget `{widget}` not found in this project")));
                }
            }
            ("preset", None, Some(preset)) => check_id("presetId", preset)?,
            _ => {
                return Err(Error::bad_request(
                    "A placement is {type: \"widget\", widgetId} or {type: \"preset\", presetId}",
                ));
            }
        }
    }
    Ok(())
}

fn not_found() -> Error {
    Error::not_found("Dashboard not found")
}

async fn find(tx: &mut sqlx::PgConnection, project: &str, id: &str, lock: &str) -> Result<Row> {
    let sql = format!("SELECT {COLUMNS} FROM dashboards WHERE project_id = $1 AND id = $2{lock}");
    let row: Option<Row> =
        sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(project).bind(id).fetch_optional(tx).await?;
    row.ok_or_else(not_found)
}

/// `POST /api/public/unstable/dashboards`.
pub async fn create(pool: &PgPool, project: &str, new: NewDashboard) -> Result<DashboardBody> {
    check_name(&new.name)?;
    let description = new.description.unwrap_or_default();
    check_description(&description)?;
    let definition = new.definition.unwrap_or_default();
    let filters = new.filters.unwrap_or_default();
    check_filters(&filters)?;
    let mut tx = pool.begin().await?;
    check_definition(&mut tx, project, &definition).await?;
    let count = count_in_project(&mut *tx, "dashboards", project).await?;
    if count >= MAX_DASHBOARDS {
        return Err(Error::bad_request(format!("A project keeps at most {MAX_DASHBOARDS} dashboards")));
    }
    let sql = format!(
        "INSERT INTO dashboards (id, project_id, name, description, definition, filters) \
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING {COLUMNS}"
    );
    let row: Row = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(uuid::Uuid::now_v7().to_string())
        .bind(project)
        .bind(new.name.trim())
        .bind(&description)
        .bind(Json(&definition))
        .bind(Json(&filters))
        .fetch_one(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(row.into())
}

/// `GET /api/public/unstable/dashboards/{dashboardId}`.
pub async fn get(pool: &PgPool, project: &str, id: &str) -> Result<DashboardBody> {
    let mut conn = pool.acquire().await?;
    Ok(find(&mut conn, project, id, "").await?.into())
}

/// `GET /api/public/unstable/dashboards?page=&limit=`, most recently updated first.
pub async fn list(pool: &PgPool, project: &str, params: &Params) -> Result<Page<DashboardBody>> {
    let page = PageRequest::parse(params)?;
    let (rows, total): (Vec<Row>, _) =
        project_page(pool, "dashboards", COLUMNS, "updated_at DESC, id", project, &page).await?;
    Ok(Page::new(rows.into_iter().map(DashboardBody::from).collect(), &page, total))
}

/// `PATCH /api/public/unstable/dashboards/{dashboardId}`: absent fields keep their value.
pub async fn update(pool: &PgPool, project: &str, id: &str, patch: DashboardPatch) -> Result<DashboardBody> {
    let mut tx = pool.begin().await?;
    let row = find(&mut tx, project, id, " FOR UPDATE").await?;
    if let Some(name) = &patch.name {
        check_name(name)?;
    }
    if let Some(description) = &patch.description {
        check_description(description)?;
    }
    if let Some(filters) = &patch.filters {
        check_filters(filters)?;
    }
    if let Some(definition) = &patch.definition {
        check_definition(&mut tx, project, definition).await?;
    }
    let sql = format!(
        "UPDATE dashboards SET name = $3, description = $4, definition = $5, filters = $6, updated_at = now() \
         WHERE project_id = $1 AND id = $2 RETURNING {COLUMNS}"
    );
    let row: Row = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(project)
        .bind(id)
        .bind(patch.name.as_deref().map_or(row.name.as_str(), str::trim))
        .bind(patch.description.as_deref().unwrap_or(&row.description))
        .bind(Json(patch.definition.as_ref().unwrap_or(&row.definition.0)))
        .bind(Json(patch.filters.as_ref().unwrap_or(&row.filters.0)))
        .fetch_one(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(row.into())
}

/// `DELETE /api/public/unstable/dashboards/{dashboardId}`; its widgets stay.
pub async fn delete(pool: &PgPool, project: &str, id: &str) -> Result<Message> {
    let done = sqlx::query("DELETE FROM dashboards WHERE project_id = $1 AND id = $2")
        .bind(project)
        .bind(id)
        .execute(pool)
        .await?;
    if done.rows_affected() == 0 {
        return Err(not_found());
    }
    Ok(Message { message: "Dashboard successfully deleted" })
}

/// Stores a changed definition (the placements' routes).
async fn save_definition(
    tx: &mut sqlx::PgConnection,
    project: &str,
    id: &str,
    definition: &Definition,
) -> Result<()> {
    sqlx::query(
        "UPDATE dashboards SET definition = $3, updated_at = now() WHERE project_id = $1 AND id = $2",
    )
    .bind(project)
    .bind(id)
    .bind(Json(definition))
    .execute(tx)
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placements_stay_on_the_grid() {
        assert!(check_position(0, 0, 12, 1).is_ok());
        assert!(check_position(6, 3, 6, 6).is_ok());
        assert!(check_position(7, 0, 6, 6).is_err());
        assert!(check_position(-1, 0, 6, 6).is_err());
        assert!(check_position(0, 0, 0, 6).is_err());
        assert!(check_position(0, 0, 6, 101).is_err());
    }
}
