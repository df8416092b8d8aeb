//! Datasets (reference/public-api.md §4.9): named datasets, their items with every past version
//! (so `version` lists are exact), and the runs that link items to the traces that ran them.
//!
//! Runs and run items are the v3 experiment model: each run item is also written to ClickHouse
//! `dataset_run_items_rmt`, which the v4 backfill (M4) turns into experiment spans. The run
//! endpoints answer only while the v3 tables are written (spec/v4-migration-spec.md §4.1; `runs_served`).

mod body;
mod budget;
mod clickhouse;
mod dataset;
mod dataset_row;
mod experiment_links;
mod item_list;
mod items;
mod overview;
mod run_item;
mod run_items;
mod runs;
mod schema;

use serde::{Deserialize, Deserializer};
use serde_json::Value;
use sqlx::types::Json;

use domain::config::WriteMode;

pub use body::{
    Dataset, DatasetItem, DatasetRun, DatasetRunItem, DatasetRunWithItems, DatasetWithItemIds,
    DatasetWithItems,
};
pub use dataset::{NewDataset, get, get_v1, list, list_v1, upsert, upsert_v1};
pub use experiment_links::{ExperimentLink, Linked, link_experiment_items};
pub use item_list::list_items;
pub use items::{NewItem, delete_item, get_item, upsert_item};
pub use overview::{DatasetOverview, overview};
pub use run_items::{NewRunItem, create_run_item, list_run_items, run_id};
pub use runs::{delete_run, get_run, list_runs};

/// The time a write stamps: its transaction's start on the database's clock (one clock for every
/// web instance, the same value for every column), at full precision so that lists ordered by
/// creation keep the order of the writes.
const NOW: &str = "now()";

/// The time an item version starts: the clock when it is written (after any lock wait), cut to the
/// milliseconds the API shows, so a `version` read back from `updatedAt` names exactly the version
/// it came from.
const VERSION_NOW: &str = "date_trunc('milliseconds', clock_timestamp())";

const DATASET_NOT_FOUND: &str = "Dataset not found";
const ITEM_NOT_FOUND: &str = "Dataset item not found";
const RUN_NOT_FOUND: &str = "Dataset run not found";

/// For body keys where "sent as null" (clear it) differs from "not sent" (keep it): with
/// `#[serde(default, deserialize_with = "present")]`, absent is `None` and null is `Some(Null)`.
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

/// JSON for a JSONB column: a JSON null is stored as SQL NULL, so every absent value reads back
/// the same way.
fn stored(value: Option<Value>) -> Option<Json<Value>> {
    value.filter(|value| !value.is_null()).map(Json)
}

/// A nullable JSONB column as it appears in a body: `null` when unset.
fn shown(value: &Option<Json<Value>>) -> Option<Value> {
    value.as_ref().map(|json| json.0.clone())
}

/// Runs and run items are the v3 experiment model: they answer while the v3 tables are written
/// (`legacy`, `dual`) and are 404 with upstream's message in `events_only` (spec/v4-migration-spec.md §4.1), where
/// experiments go through OTLP and the experiments API instead.
fn runs_served(mode: WriteMode) -> crate::Result<()> {
    Ok(reads::gate::legacy(mode)?)
}

/// A required name (dataset, run): refused when empty or blank.
fn require_name(what: &str, name: &str) -> crate::Result<()> {
    if name.trim().is_empty() {
        return Err(crate::Error::bad_request(format!("`{what}` must not be empty")));
    }
    Ok(())
}
