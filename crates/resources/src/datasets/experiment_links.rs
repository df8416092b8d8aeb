//! Dataset runs recorded from experiment spans. SDK 5's `run_experiment` no longer calls
//! `POST /dataset-run-items`: it only marks each item's root span with `langfuse.experiment.*`
//! attributes. While the v3 tables are written (legacy and dual), the worker turns those marks into
//! the same run and run item a v3 SDK would have created, so the deprecated run reads, and the v4
//! backfill that enriches spans from run items, see experiments of every SDK generation. A run
//! item the SDK posted itself for the same trace (the JS SDK's runner does both) is that link:
//! a run has one item per (run, dataset item, trace).

use serde_json::Value;
use sqlx::PgPool;
use storage::clickhouse::ClickHouse;

use super::clickhouse::{RunItemRow, insert_run_item};
use super::items::active_at;
use super::run_item::RunItem;
use super::run_items::{RunFields, insert_item, linked_item, sha256_hex, upsert_run};
use crate::{Error, Result};

pub use domain::experiment::{ExperimentLink, Linked};

/// The run item's id: derived from what it links, so a re-delivered payload finds its row.
fn run_item_id(link: &ExperimentLink, run_id: &str) -> String {
    let linked = [run_id, &link.dataset_item_id, &link.trace_id, &link.observation_id];
    sha256_hex(&Value::from(linked.map(str::to_owned).to_vec()), 32)
}

/// Creates the run (by name, in the item's dataset) and the run item of every link, in PostgreSQL
/// and ClickHouse. Idempotent: a link already stored is left as it is. A store error is returned
/// for the caller to retry; an unknown item is counted and skipped, as retrying cannot fix it.
pub async fn link_experiment_items(
    pool: &PgPool,
    clickhouse: &ClickHouse,
    links: &[ExperimentLink],
) -> Result<Linked> {
    let mut linked = Linked::default();
    for link in links {
        let project = link.project_id.as_str();
        let version = Some(link.item_version.unwrap_or(link.created_at));
        let item = match active_at(pool, project, &link.dataset_item_id, version).await {
            Ok(item) => item,
            Err(Error::NotFound(_)) => {
                linked.unknown_items += 1;
                continue;
            }
            Err(other) => return Err(other),
        };
        let mut tx = pool.begin().await?;
        let fields = RunFields {
            name: &link.run_name,
            description: link.description.as_deref(),
            metadata: (!link.metadata.is_empty()).then(|| Value::Object(link.metadata.clone())),
            created_at: Some(link.created_at),
        };
        let run = upsert_run(&mut tx, project, &item.dataset_id, fields).await?;
        // One run item per (run, dataset item, trace): the SDK may have posted it already.
        let linked_before = linked_item(&mut tx, project, &run.id, &item.id, &link.trace_id).await?;
        let mut stored = RunItem {
            id: run_item_id(link, &run.id),
            dataset_run_id: run.id.clone(),
            dataset_run_name: link.run_name.clone(),
            dataset_item_id: item.id.clone(),
            trace_id: link.trace_id.clone(),
            observation_id: Some(link.observation_id.clone()),
            created_at: link.created_at,
            updated_at: link.created_at,
        };
        if let Some(before) = linked_before {
            stored = before;
            linked.existing += 1;
        } else {
            match insert_item(&mut tx, project, &item, &stored, Some(link.created_at)).await? {
                Some(created_at) => {
                    stored.created_at = created_at;
                    stored.updated_at = created_at;
                    linked.created += 1;
                }
                None => linked.existing += 1,
            }
        }
        // Written again for an existing link too (under that item's id): a crash between the two
        // stores may have left only the PostgreSQL row, and the replacing table keeps one copy
        // either way.
        let row = RunItemRow::new(project, &stored, &item, run.description, &run.metadata.0, run.created_at);
        insert_run_item(clickhouse, row).await?;
        tx.commit().await?;
    }
    Ok(linked)
}

#[cfg(test)]
mod tests {
    use chrono::DateTime;
    use serde_json::Map;

    use super::*;

    fn link() -> ExperimentLink {
        ExperimentLink {
            project_id: "p".into(),
            run_name: "run".into(),
            description: None,
            metadata: Map::new(),
            dataset_item_id: "item".into(),
            item_version: None,
            trace_id: "t".into(),
            observation_id: "o".into(),
            created_at: DateTime::UNIX_EPOCH,
        }
    }

    #[test]
    fn run_ids_are_the_ones_the_sdks_derive() {
        // Python SDK 5: sha256(json.dumps([...], separators=(",", ":"), ensure_ascii=False))[:16]
        let id = super::super::run_items::run_id("proj-1", "ds-1", "nightly é \"x\"");
        assert_eq!(id, "ff2e2a6abf38e6ed");
    }

    #[test]
    fn run_item_ids_are_stable_and_depend_on_every_part() {
        let a = link();
        assert_eq!(run_item_id(&a, "r"), run_item_id(&link(), "r"));
        assert_eq!(run_item_id(&a, "r").len(), 32);
        assert_ne!(run_item_id(&a, "r"), run_item_id(&a, "r2"));
        let other_trace = ExperimentLink { trace_id: "t2".into(), ..link() };
        assert_ne!(run_item_id(&a, "r"), run_item_id(&other_trace, "r"));
    }
}
