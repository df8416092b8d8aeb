//! `GET /api/public/experiments` and `GET /api/public/experiment-items` (reference/public-api.md
//! §4.4): experiments are the dataset runs recorded on the events, an item is the root span of one
//! dataset item's run (`span_id = experiment_item_root_span_id`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use storage::clickhouse::ClickHouse;

use crate::filter::{self, Column, Kind, col};
use crate::render::{self, take};
use crate::sql::{JsonRow, Sql, all_of, one_of, project, time_bound};
use crate::{Params, ReadError, Result, cursor};

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

/// Newest version of every experiment item root in the project and time range.
fn item_roots(project_id: &str, params: &Params) -> Result<Sql> {
    let from = params
        .datetime("fromStartTime")?
        .ok_or_else(|| ReadError::bad_request("`fromStartTime` is required"))?;
    let mut conditions = vec![
        project(project_id),
        Sql::new("experiment_id != '' AND span_id = experiment_item_root_span_id"),
        time_bound("start_time", ">=", from),
    ];
    if let Some(to) = params.datetime("toStartTime")? {
        conditions.push(time_bound("start_time", "<", to));
    }
    let mut sql = Sql::new("(SELECT * FROM events_full WHERE ");
    sql.append(&all_of(&conditions)).push(" ORDER BY event_ts DESC LIMIT 1 BY span_id)");
    Ok(sql)
}

fn id_filters(params: &Params, pairs: &[(&str, &str)], columns: &[Column]) -> Result<Vec<Sql>> {
    let mut out = Vec::new();
    for (param, column) in pairs {
        let values = params.list(param);
        if !values.is_empty() {
            out.push(one_of(column, values));
        }
    }
    if let Some(raw) = params.get("filter") {
        out.push(filter::to_sql(&filter::parse(raw)?, columns)?);
    }
    Ok(out)
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

const EXPERIMENT_COLUMNS: &[Column] = &[
    col("id", "experiment_id", Kind::Text),
    col("name", "experiment_name", Kind::Text),
    col("datasetId", "experiment_dataset_id", Kind::Text),
];

pub async fn list(clickhouse: &ClickHouse, project_id: &str, params: &Params) -> Result<Value> {
    let limit = params.int("limit", 50, 1, 100)?;
    let score_limit = params.int("scoreLimit", 50, 1, 50)?;
    let groups = groups(params, &["core", "metadata", "scores"], &["core"])?;
    let mut conditions = vec![Sql::new("is_deleted = 0")];
    conditions.extend(id_filters(
        params,
        &[("id", "experiment_id"), ("name", "experiment_name"), ("datasetId", "experiment_dataset_id")],
        EXPERIMENT_COLUMNS,
    )?);
    let mut having = Sql::default();
    if let Some(raw) = params.get("cursor") {
        let c: Cursor = cursor::decode(raw)?;
        having
            .push("(max(start_time), experiment_id) < (parseDateTime64BestEffort(")
            .bind(c.last_time)
            .push(", 6), ")
            .bind(c.last_experiment_id)
            .push(")");
    }
    let mut sql = Sql::new(
        "SELECT experiment_id AS id, any(experiment_name) AS name, nullIf(any(experiment_description), '') AS description, \
         toDateTime64(min(start_time), 3) AS startTime, toDateTime64(max(coalesce(end_time, start_time)), 3) AS endTime, \
         uniqExact(experiment_item_id) AS itemCount, nullIf(any(experiment_dataset_id), '') AS datasetId, \
         mapFromArrays(any(experiment_metadata_names), any(experiment_metadata_values)) AS metadata, \
         toString(max(start_time)) AS _cursorTime FROM ",
    );
    sql.append(&item_roots(project_id, params)?)
        .push(" WHERE ")
        .append(&all_of(&conditions))
        .push(" GROUP BY experiment_id");
    if !having.is_empty() {
        sql.push(" HAVING ").append(&having);
    }
    sql.push(" ORDER BY max(start_time) DESC, experiment_id DESC LIMIT ").bind(limit + 1);
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
            take(&mut row, "_cursorTime");
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

const ITEM_COLUMNS: &[Column] = &[
    col("experimentId", "experiment_id", Kind::Text),
    col("experimentName", "experiment_name", Kind::Text),
    col("experimentItemId", "experiment_item_id", Kind::Text),
    col("datasetId", "experiment_dataset_id", Kind::Text),
];

pub async fn items(clickhouse: &ClickHouse, project_id: &str, params: &Params) -> Result<Value> {
    let limit = params.int("limit", 50, 1, 100)?;
    let score_limit = params.int("scoreLimit", 50, 1, 50)?;
    let groups = groups(
        params,
        &["core", "dataset", "io", "metadata", "itemMetadata", "experimentMetadata", "scores"],
        &["core", "dataset"],
    )?;
    let mut conditions = vec![Sql::new("is_deleted = 0")];
    conditions.extend(id_filters(
        params,
        &[
            ("experimentId", "experiment_id"),
            ("experimentName", "experiment_name"),
            ("experimentItemId", "experiment_item_id"),
            ("datasetId", "experiment_dataset_id"),
        ],
        ITEM_COLUMNS,
    )?);
    if let Some(raw) = params.get("cursor") {
        let c: Cursor = cursor::decode(raw)?;
        let mut sql = Sql::new("(start_time, trace_id, span_id) < (parseDateTime64BestEffort(");
        sql.bind(c.last_time).push(", 6), ").bind(c.last_trace_id).push(", ").bind(c.last_id).push(")");
        conditions.push(sql);
    }
    let mut sql = Sql::new(
        "SELECT span_id AS id, trace_id AS traceId, toDateTime64(start_time, 3) AS startTime, \
         toDateTime64(end_time, 3) AS endTime, level, environment, experiment_id AS experimentId, \
         experiment_name AS experimentName, experiment_item_id AS experimentItemId, \
         nullIf(experiment_dataset_id, '') AS experimentDatasetId, \
         toDateTime64(experiment_item_version, 3) AS experimentItemVersion, input, output, \
         experiment_item_expected_output AS expectedOutput, \
         mapFromArrays(metadata_names, metadata_values) AS metadata, \
         mapFromArrays(experiment_item_metadata_names, experiment_item_metadata_values) AS experimentItemMetadata, \
         mapFromArrays(experiment_metadata_names, experiment_metadata_values) AS experimentMetadata, \
         nullIf(experiment_description, '') AS experimentDescription, toString(start_time) AS _cursorTime FROM ",
    );
    sql.append(&item_roots(project_id, params)?)
        .push(" WHERE ")
        .append(&all_of(&conditions))
        .push(" ORDER BY start_time DESC, trace_id DESC, span_id DESC LIMIT ")
        .bind(limit + 1);
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
            take(&mut row, "_cursorTime");
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
        .push(" ORDER BY event_ts DESC LIMIT 1 BY id) ORDER BY timestamp DESC LIMIT ")
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
