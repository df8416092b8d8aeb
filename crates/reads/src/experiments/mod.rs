//! `GET /api/public/experiments` and `GET /api/public/experiment-items` (reference/public-api.md
//! §4.4): experiments are the dataset runs recorded on the events, an item is the root span of one
//! dataset item's run (`span_id = experiment_item_root_span_id`).

mod bodies;
mod sources;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use storage::clickhouse::ClickHouse;
use storage::clickhouse::NEWEST_BY_ID;

use crate::page::CursorPage;
use crate::scores::ScoreRow;
use crate::scores::v3::ScoreV3;
use crate::sql::{Sql, all_of};
use crate::{Params, ReadError, Result, cursor};
use bodies::ItemRow;
pub use bodies::{Experiment, ExperimentItem, ItemDataset, ItemExperiment, ItemIo};
use sources::{Range, filters};

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Cursor {
    v: u8,
    last_time: String,
    #[serde(default)]
    last_trace_id: String,
    #[serde(default)]
    last_id: String,
    #[serde(default)]
    last_experiment_id: String,
}

/// Both sources' rows, one per `key` (the events' when both have it), past the cursor, newest
/// first: `SELECT * FROM (<events> UNION ALL <runs>) … LIMIT n`.
fn union(events: Sql, runs: Sql, key: &str, after: Option<Sql>, order: &str, limit: i64) -> Sql {
    let mut sql = Sql::new("SELECT *, toString(_sortTime) AS _cursorTime FROM (SELECT * FROM (");
    sql.append(&events)
        .push(" UNION ALL ")
        .append(&runs)
        .push(&format!(") ORDER BY _source LIMIT 1 BY {key})"));
    if let Some(after) = after {
        sql.push(" WHERE ").append(&after);
    }
    sql.push(&format!(" ORDER BY {order} LIMIT ")).bind(limit);
    sql
}

/// `<select> <source> WHERE <conditions> GROUP BY <group>` (no GROUP BY when `group` is empty).
fn branch(select: &str, source: Sql, conditions: &[Sql], group: &str) -> Sql {
    let mut sql = Sql::new(select);
    sql.append(&source).push(" WHERE ").append(&all_of(conditions));
    if !group.is_empty() {
        sql.push(&format!(" GROUP BY {group}"));
    }
    sql
}

fn groups(params: &Params, allowed: &[&'static str], default: &[&'static str]) -> Result<Vec<&'static str>> {
    let asked = params.list("fields");
    if asked.is_empty() {
        return Ok(default.to_vec());
    }
    let mut out = vec!["core"];
    for name in asked {
        let group = allowed.iter().find(|g| **g == name).ok_or_else(|| {
            ReadError::bad_request(format!(
                "Unknown field group `{name}`. Must be one of: {}",
                allowed.join(", ")
            ))
        })?;
        out.push(group);
    }
    Ok(out)
}

pub async fn list(
    clickhouse: &ClickHouse,
    project_id: &str,
    params: &Params,
) -> Result<CursorPage<Experiment>> {
    let limit = params.int("limit", 50, 1, 100)?;
    let score_limit = params.int("scoreLimit", 50, 1, 50)?;
    let groups = groups(params, &["core", "metadata", "scores"], &["core"])?;
    let range = Range::parse(params)?;
    let events = branch(
        sources::EVENT_EXPERIMENT_SELECT,
        sources::event_item_roots(project_id, &range),
        &filters(params, sources::EVENT_EXPERIMENTS)?,
        "experiment_id",
    );
    let runs = branch(
        sources::RUN_EXPERIMENT_SELECT,
        sources::run_items(project_id, &range),
        &filters(params, sources::RUN_EXPERIMENTS)?,
        "dataset_run_id",
    );
    let after = match params.get("cursor") {
        Some(raw) => {
            let c: Cursor = cursor::decode(raw)?;
            let mut sql = Sql::new("(_sortTime, id) < (parseDateTime64BestEffort(");
            sql.bind(c.last_time).push(", 6), ").bind(c.last_experiment_id).push(")");
            Some(sql)
        }
        None => None,
    };
    let sql = union(events, runs, "id", after, "_sortTime DESC, id DESC", limit + 1);
    let mut rows: Vec<Experiment> = sql.fetch(clickhouse).await?;
    let next = cursor::cut_page(&mut rows, limit, |last| Cursor {
        v: 1,
        last_time: last.cursor_time.clone(),
        last_trace_id: String::new(),
        last_id: String::new(),
        last_experiment_id: last.id.clone(),
    });
    let ids: Vec<String> = rows.iter().map(|r| r.id.clone()).collect();
    let scores = if groups.contains(&"scores") && !ids.is_empty() {
        scores_of(clickhouse, project_id, "dataset_run_id", ids, score_limit).await?
    } else {
        Vec::new()
    };
    for row in &mut rows {
        if !groups.contains(&"metadata") {
            row.metadata = Value::Null;
        }
        if groups.contains(&"scores") {
            row.scores = Some(scores_for(&scores, Some(&row.id)));
        }
    }
    Ok(CursorPage::new(rows, next))
}

pub async fn items(
    clickhouse: &ClickHouse,
    project_id: &str,
    params: &Params,
) -> Result<CursorPage<ExperimentItem>> {
    let limit = params.int("limit", 50, 1, 100)?;
    let score_limit = params.int("scoreLimit", 50, 1, 50)?;
    let groups = groups(
        params,
        &["core", "dataset", "io", "metadata", "itemMetadata", "experimentMetadata", "scores"],
        &["core", "dataset"],
    )?;
    let range = Range::parse(params)?;
    let events = branch(
        sources::EVENT_ITEM_SELECT,
        sources::event_item_roots(project_id, &range),
        &filters(params, sources::EVENT_ITEMS)?,
        "",
    );
    let runs = branch(
        sources::RUN_ITEM_SELECT,
        sources::run_items(project_id, &range),
        &filters(params, sources::RUN_ITEMS)?,
        "",
    );
    let after = match params.get("cursor") {
        Some(raw) => {
            let c: Cursor = cursor::decode(raw)?;
            let mut sql = Sql::new("(_sortTime, traceId, id) < (parseDateTime64BestEffort(");
            sql.bind(c.last_time).push(", 6), ").bind(c.last_trace_id).push(", ").bind(c.last_id).push(")");
            Some(sql)
        }
        None => None,
    };
    let key = "experimentId, traceId, experimentItemId";
    let sql = union(events, runs, key, after, "_sortTime DESC, traceId DESC, id DESC", limit + 1);
    let mut rows: Vec<ItemRow> = sql.fetch(clickhouse).await?;
    let next = cursor::cut_page(&mut rows, limit, |last| Cursor {
        v: 1,
        last_time: last.cursor_time.clone(),
        last_trace_id: last.trace_id.clone(),
        last_id: last.id.clone(),
        last_experiment_id: last.experiment_id.clone(),
    });
    let traces: Vec<String> = rows.iter().map(|r| r.trace_id.clone()).collect();
    let scores = if groups.contains(&"scores") && !traces.is_empty() {
        scores_of(clickhouse, project_id, "trace_id", traces, score_limit).await?
    } else {
        Vec::new()
    };
    let data = rows
        .into_iter()
        .map(|row| {
            let trace = row.trace_id.clone();
            let mut item = row.into_item(&groups);
            if groups.contains(&"scores") {
                item.scores = Some(scores_for(&scores, Some(&trace)));
            }
            item
        })
        .collect();
    Ok(CursorPage::new(data, next))
}

/// Up to `per_key` newest scores for each value of `column`, as ScoreV3 with its subject.
async fn scores_of(
    clickhouse: &ClickHouse,
    project_id: &str,
    column: &str,
    keys: Vec<String>,
    per_key: i64,
) -> Result<Vec<(String, ScoreV3)>> {
    let mut sql = Sql::new(&format!(
        "SELECT {}, {column} AS _key FROM (SELECT * FROM scores WHERE project_id = ",
        crate::scores::SCORE_COLUMNS
    ));
    sql.bind(project_id)
        .push(&format!(" AND {column} IN "))
        .bind(keys)
        // Deleted scores go before the per-key limit, or they would take places in it.
        .push(NEWEST_BY_ID)
        .push(") WHERE is_deleted = 0 ORDER BY timestamp DESC LIMIT ")
        .bind(per_key)
        .push(&format!(" BY {column}"));
    let rows: Vec<ScoreRow> = sql.fetch(clickhouse).await?;
    Ok(rows
        .into_iter()
        .filter_map(|mut row| {
            let key = row.key.take().unwrap_or_default();
            crate::scores::v3::render_row(row, &["core", "subject"]).map(|score| (key, score))
        })
        .collect())
}

fn scores_for(scores: &[(String, ScoreV3)], key: Option<&str>) -> Vec<ScoreV3> {
    scores.iter().filter(|(k, _)| Some(k.as_str()) == key).map(|(_, s)| s.clone()).collect()
}
