//! `/api/public/unstable/dashboards/{dashboardId}/placements…`: adding, moving and removing one
//! tile of a dashboard, under a row lock on the dashboard so two edits cannot lose each other.

use serde::Deserialize;
use sqlx::PgPool;
use utoipa::ToSchema;

use super::{
    Definition, MAX_PLACEMENTS, Placement, check_id, check_position, find, save_definition, widgets,
};
use crate::{Error, Message, Result};

/// New tiles are half the grid wide and six rows high, as upstream's UI makes them.
const DEFAULT_SIZE: i64 = 6;

/// The body of `POST …/placements` (the SDK's `CreateDashboardPlacementRequest`): `type`
/// `widget` with a `widgetId` or `preset` with a `presetId`; `id` and the position are optional.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = CreateDashboardPlacementRequest)]
pub struct NewPlacement {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub widget_id: Option<String>,
    #[serde(default)]
    pub preset_id: Option<String>,
    #[serde(default)]
    pub x: Option<i64>,
    #[serde(default)]
    pub y: Option<i64>,
    #[serde(default)]
    pub width: Option<i64>,
    #[serde(default)]
    pub height: Option<i64>,
}

/// The body of `PATCH …/placements/{placementId}` (`UpdateDashboardPlacementRequest`).
#[derive(Debug, Deserialize, ToSchema)]
#[schema(as = UpdateDashboardPlacementRequest)]
pub struct PlacementPatch {
    #[serde(default)]
    pub x: Option<i64>,
    #[serde(default)]
    pub y: Option<i64>,
    #[serde(default)]
    pub width: Option<i64>,
    #[serde(default)]
    pub height: Option<i64>,
}

fn placement_not_found() -> Error {
    Error::not_found("Placement not found on this dashboard")
}

/// `POST /api/public/unstable/dashboards/{dashboardId}/placements`: appended below every tile
/// unless placed; 404 for a widget not of the project, 409 for an id already on the dashboard.
pub async fn add_placement(
    pool: &PgPool,
    project: &str,
    dashboard: &str,
    new: NewPlacement,
) -> Result<Placement> {
    let mut tx = pool.begin().await?;
    let row = find(&mut tx, project, dashboard, " FOR UPDATE").await?;
    let mut definition: Definition = row.definition.0;
    match (new.kind.as_str(), &new.widget_id, &new.preset_id) {
        ("widget", Some(widget), None) => {
            if !widgets::exists(&mut tx, project, widget).await? {
                return Err(Error::not_found(format!("Widget `{widget}` not found in this project")));
            }
        }
        ("preset", None, Some(preset)) => check_id("presetId", preset)?,
        _ => {
            return Err(Error::bad_request(
                "A placement is {type: \"widget\", widgetId} or {type: \"preset\", presetId}",
            ));
        }
    }
    let id = new.id.unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    check_id("id", &id)?;
    if definition.widgets.iter().any(|p| p.id == id) {
        return Err(Error::Conflict(format!("A placement with id `{id}` already exists on this dashboard")));
    }
    if definition.widgets.len() >= MAX_PLACEMENTS {
        return Err(Error::bad_request(format!("A dashboard holds at most {MAX_PLACEMENTS} placements")));
    }
    let below = definition.widgets.iter().map(|p| p.y + p.height).max().unwrap_or(0);
    let placement = Placement {
        kind: new.kind,
        id,
        widget_id: new.widget_id,
        preset_id: new.preset_id,
        x: new.x.unwrap_or(0),
        y: new.y.unwrap_or(below),
        width: new.width.unwrap_or(DEFAULT_SIZE),
        height: new.height.unwrap_or(DEFAULT_SIZE),
    };
    check_position(placement.x, placement.y, placement.width, placement.height)?;
    definition.widgets.push(placement.clone());
    save_definition(&mut tx, project, dashboard, &definition).await?;
    tx.commit().await?;
    Ok(placement)
}

/// `PATCH /api/public/unstable/dashboards/{dashboardId}/placements/{placementId}`: moves or
/// resizes; at least one field.
pub async fn update_placement(
    pool: &PgPool,
    project: &str,
    dashboard: &str,
    id: &str,
    patch: PlacementPatch,
) -> Result<Placement> {
    if patch.x.is_none() && patch.y.is_none() && patch.width.is_none() && patch.height.is_none() {
        return Err(Error::bad_request("At least one of x, y, width, height is required"));
    }
    let mut tx = pool.begin().await?;
    let mut definition = find(&mut tx, project, dashboard, " FOR UPDATE").await?.definition.0;
    let placement = definition.widgets.iter_mut().find(|p| p.id == id).ok_or_else(placement_not_found)?;
    placement.x = patch.x.unwrap_or(placement.x);
    placement.y = patch.y.unwrap_or(placement.y);
    placement.width = patch.width.unwrap_or(placement.width);
    placement.height = patch.height.unwrap_or(placement.height);
    check_position(placement.x, placement.y, placement.width, placement.height)?;
    let placement = placement.clone();
    save_definition(&mut tx, project, dashboard, &definition).await?;
    tx.commit().await?;
    Ok(placement)
}

/// `DELETE /api/public/unstable/dashboards/{dashboardId}/placements/{placementId}`; the widget stays.
pub async fn delete_placement(pool: &PgPool, project: &str, dashboard: &str, id: &str) -> Result<Message> {
    let mut tx = pool.begin().await?;
    let mut definition = find(&mut tx, project, dashboard, " FOR UPDATE").await?.definition.0;
    let before = definition.widgets.len();
    definition.widgets.retain(|p| p.id != id);
    if definition.widgets.len() == before {
        return Err(placement_not_found());
    }
    save_definition(&mut tx, project, dashboard, &definition).await?;
    tx.commit().await?;
    Ok(Message { message: "Placement successfully removed" })
}
