//! `GET /api/public/experiments` and `GET /api/public/experiment-items` (reference/public-api.md
//! §4.4): experiments are the dataset runs recorded on the events, an item is the root span of one
//! dataset item's run (`span_id = experiment_item_root_span_id`).

mod sources;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use storage::clickhouse::ClickHouse;

use crate::render::{self, take};
use crate::sql::{JsonRow, Sql, all_of};
use crate::{Params, ReadError, Result, cursor};
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

pub async fn list(clickhouse: &ClickHouse, project_id: &str, params: &Params) -> Result<Value> {
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
    let mut rows = sql.fetch_json(clickhouse).await?;
    let next = cursor::cut_page(&mut rows, limit, |last| Cursor {
        v: 1,
        last_time: last["_cursorTime"].as_str().unwrap_or_default().to_owned(),
        last_trace_id: String::new(),
        last_id: String::new(),
        last_experiment_id: last["id"].as_str().unwrap_or_default().to_owned(),
    });
    let ids: Vec<String> = rows.iter().filter_map(|r| r["id"].as_str().map(str::to_owned)).collect();
    let scores = if groups.contains(&"scores") && !ids.is_empty() {
        scores_of(clickhouse, project_id, "dataset_run_id", ids, score_limit).await?
    } else {
        Vec::new()
    };
    let data: Vec<Value> = rows
        .into_iter()
        .map(|mut row| {
            for helper in ["_cursorTime", "_sortTime", "_source"] {
                take(&mut row, helper);
            }
            let metadata = render::metadata_values(take(&mut row, "metadata"));
            if groups.contains(&"metadata") {
                row.insert("metadata".into(), metadata);
            }
            if groups.contains(&"scores") {
                row.insert("scores".into(), scores_for(&scores, row["id"].as_str()));
            }
            Value::Object(row)
        })
        .collect();
    Ok(cursor::page_body(data, next, Map::new()))
}

pub async fn items(clickhouse: &ClickHouse, project_id: &str, params: &Params) -> Result<Value> {
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
    let mut rows = sql.fetch_json(clickhouse).await?;
    let next = cursor::cut_page(&mut rows, limit, |last| Cursor {
        v: 1,
        last_time: last["_cursorTime"].as_str().unwrap_or_default().to_owned(),
        last_trace_id: last["traceId"].as_str().unwrap_or_default().to_owned(),
        last_id: last["id"].as_str().unwrap_or_default().to_owned(),
        last_experiment_id: last["experimentId"].as_str().unwrap_or_default().to_owned(),
    });
    let traces: Vec<String> = rows.iter().filter_map(|r| r["traceId"].as_str().map(str::to_owned)).collect();
    let scores = if groups.contains(&"scores") && !traces.is_empty() {
        scores_of(clickhouse, project_id, "trace_id", traces, score_limit).await?
    } else {
        Vec::new()
    };
    let keep = |group: &str, keys: &[&str], row: &mut JsonRow| {
        if !groups.contains(&group) {
            for key in keys {
                row.remove(*key);
            }
        }
    };
    let data: Vec<Value> = rows
        .into_iter()
        .map(|mut row| {
            for helper in ["_cursorTime", "_sortTime", "_source"] {
                take(&mut row, helper);
            }
            render::parse_json_keys(&mut row, &["input", "output", "expectedOutput"]);
            for key in ["metadata", "experimentItemMetadata", "experimentMetadata"] {
                let value = render::metadata_values(take(&mut row, key));
                row.insert(key.into(), value);
            }
            keep("dataset", &["experimentDatasetId", "experimentItemVersion"], &mut row);
            keep("io", &["input", "output", "expectedOutput"], &mut row);
            keep("metadata", &["metadata"], &mut row);
            keep("itemMetadata", &["experimentItemMetadata"], &mut row);
            keep("experimentMetadata", &["experimentMetadata", "experimentDescription"], &mut row);
            if groups.contains(&"scores") {
                let trace = row["traceId"].as_str().map(str::to_owned);
                row.insert("scores".into(), scores_for(&scores, trace.as_deref()));
            }
            Value::Object(row)
        })
        .collect();
    Ok(cursor::page_body(data, next, Map::new()))
}

/// Up to `per_key` newest scores for each value of `column`, as ScoreV3 with its subject.
async fn scores_of(
    clickhouse: &ClickHouse,
    project_id: &str,
    column: &str,
    keys: Vec<String>,
    per_key: i64,
) -> Result<Vec<(String, Value)>> {
    let mut sql = Sql::new(&format!(
        "SELECT {}, {column} AS _key FROM (SELECT * FROM scores WHERE project_id = ",
        crate::scores::SCORE_COLUMNS
    ));
    sql.bind(project_id)
        .push(&format!(" AND {column} IN "))
        .bind(keys)
        // Deleted scores go before the per-key limit, or they would take places in it.
        .push(" ORDER BY event_ts DESC LIMIT 1 BY id) WHERE is_deleted = 0 ORDER BY timestamp DESC LIMIT ")
        .bind(per_key)
        .push(&format!(" BY {column}"));
    let rows = sql.fetch_json(clickhouse).await?;
    Ok(rows
        .into_iter()
        .filter_map(|mut row| {
            let key = render::take_str(&mut row, "_key");
            crate::scores::v3::render_row(row, &["core", "subject"]).map(|score| (key, score))
        })
        .collect())
}

fn scores_for(scores: &[(String, Value)], key: Option<&str>) -> Value {
    Value::Array(scores.iter().filter(|(k, _)| Some(k.as_str()) == key).map(|(_, s)| s.clone()).collect())
}
