//! `GET /api/public/v3/scores` (reference/public-api.md §4.3): cursor pages, csv filters, optional
//! field groups, a typed `value` and a `subject`.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use storage::clickhouse::ClickHouse;
use utoipa::ToSchema;

use super::{SCORE_COLUMNS, ScoreRow, ScoreValue, Subject};
use crate::latest;
use crate::page::CursorPage;
use crate::sql::{Sql, all_of, and, one_of, project, time_bound};
use crate::{Params, ReadError, Result, cursor};

const GROUPS: &[&str] = &["core", "details", "subject", "annotation"];
const DATA_TYPES: &[&str] = &["NUMERIC", "BOOLEAN", "CATEGORICAL", "TEXT", "CORRECTION"];
const SOURCES: &[&str] = &["API", "ANNOTATION", "EVAL"];

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Cursor {
    v: u8,
    last_timestamp: String,
    last_id: String,
}

/// A ScoreV3 with the flat keys both SDKs expect; the optional groups only when asked for.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScoreV3 {
    pub id: String,
    pub project_id: String,
    pub name: String,
    pub source: String,
    pub timestamp: String,
    pub environment: String,
    pub created_at: String,
    pub updated_at: String,
    pub data_type: String,
    pub value: ScoreValue,
    /// `fields=details`.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub details: Option<ScoreDetails>,
    /// `fields=annotation`.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub annotation: Option<ScoreAnnotation>,
    /// `fields=subject`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subject: Option<Subject>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScoreDetails {
    pub comment: Option<String>,
    pub config_id: Option<String>,
    /// The score's metadata, each value parsed when it is JSON (`render::metadata_value`).
    #[schema(value_type = Object, required = false)]
    pub metadata: Value,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScoreAnnotation {
    pub author_user_id: Option<String>,
    pub queue_id: Option<String>,
}

pub async fn list(clickhouse: &ClickHouse, project_id: &str, params: &Params) -> Result<CursorPage<ScoreV3>> {
    let limit = params.int("limit", 50, 1, 100)?;
    let groups = groups(params)?;
    let matching = and(&conditions_of(params)?);
    let scope = project(project_id);
    let mut cursor_condition = Sql::default();
    if let Some(raw) = params.get("cursor") {
        let c: Cursor = cursor::decode(raw)?;
        let at = crate::params::parse_datetime("cursor", &c.last_timestamp)
            .map_err(|_| ReadError::bad_request("Invalid cursor format"))?;
        cursor_condition.push("(timestamp, id) < (fromUnixTimestamp64Milli(toInt64(");
        cursor_condition.bind(at.timestamp_millis()).push(")), ").bind(c.last_id).push(")");
    }
    // 1. The page's keys (any version matching), then 2. the newest versions still matching:
    // see `latest` for why both.
    let mut candidates = Sql::new("SELECT id, toDateTime64(timestamp, 3) AS timestamp FROM scores WHERE ");
    candidates
        .append(&all_of(&[scope.clone(), matching.clone(), cursor_condition]))
        .push(" ORDER BY timestamp DESC, id DESC LIMIT 1 BY id LIMIT ")
        .bind(limit + 1);
    let mut candidates: Vec<Candidate> = candidates.fetch(clickhouse).await?;
    let next = cursor::cut_page(&mut candidates, limit, |last| Cursor {
        v: 1,
        last_timestamp: last.timestamp.clone(),
        last_id: last.id.clone(),
    });
    let keys: Vec<String> = candidates.into_iter().map(|c| c.id).collect();
    let rows: Vec<ScoreRow> = if keys.is_empty() {
        Vec::new()
    } else {
        let mut sql = Sql::new(&format!("SELECT {SCORE_COLUMNS} FROM "));
        sql.append(&latest::SCORES.newest_of(&scope, keys, &matching))
            .push(" ORDER BY timestamp DESC, id DESC");
        sql.fetch(clickhouse).await?
    };
    let data = rows.into_iter().filter_map(|row| render_row(row, &groups)).collect();
    let mut page = CursorPage::new(data, next);
    page.meta.limit = Some(limit);
    Ok(page)
}

#[derive(Deserialize)]
struct Candidate {
    id: String,
    timestamp: String,
}

/// One ScoreV3 with the groups asked for; `None` for a deleted score.
pub(crate) fn render_row(mut row: ScoreRow, groups: &[&str]) -> Option<ScoreV3> {
    if row.deleted == 1 {
        return None;
    }
    let value = row.typed_value();
    let subject = groups.contains(&"subject").then(|| row.subject());
    let details = groups.contains(&"details").then(|| ScoreDetails {
        comment: row.comment.take(),
        config_id: row.config_id.take(),
        metadata: row.metadata.take(),
    });
    let annotation = groups.contains(&"annotation").then(|| ScoreAnnotation {
        author_user_id: row.author_user_id.take(),
        queue_id: row.queue_id.take(),
    });
    Some(ScoreV3 {
        id: row.id,
        project_id: row.project_id,
        name: row.name,
        source: row.source,
        timestamp: row.timestamp,
        environment: row.environment,
        created_at: row.created_at,
        updated_at: row.updated_at,
        data_type: row.data_type,
        value,
        details,
        annotation,
        subject,
    })
}

fn groups(params: &Params) -> Result<Vec<&'static str>> {
    let mut out = vec!["core"];
    for name in params.list("fields") {
        if name == "trace" {
            return Err(ReadError::bad_request(
                "The `trace` field group is reserved and not supported in v3; read traces with the observations API",
            ));
        }
        let group = GROUPS.iter().find(|g| **g == name).ok_or_else(|| {
            ReadError::bad_request(format!(
                "Unknown field group `{name}`. Must be one of: {}",
                GROUPS.join(", ")
            ))
        })?;
        if !out.contains(group) {
            out.push(group);
        }
    }
    Ok(out)
}

fn conditions_of(params: &Params) -> Result<Vec<Sql>> {
    for unsupported in ["userId", "traceTags"] {
        if params.get(unsupported).is_some() {
            return Err(ReadError::bad_request(format!(
                "`{unsupported}` requires a trace JOIN and is not supported in v3"
            )));
        }
    }
    let mut out = Vec::new();
    for (param, column) in [
        ("id", "id"),
        ("name", "name"),
        ("environment", "environment"),
        ("configId", "config_id"),
        ("queueId", "queue_id"),
        ("authorUserId", "author_user_id"),
    ] {
        let values = params.list(param);
        if !values.is_empty() {
            out.push(one_of(column, values));
        }
    }
    let sources = upper_choices(params, "source", SOURCES)?;
    if !sources.is_empty() {
        out.push(one_of("source", sources));
    }
    let data_types = upper_choices(params, "dataType", DATA_TYPES)?;
    if !data_types.is_empty() {
        out.push(one_of("data_type", data_types.clone()));
    }
    out.extend(value_conditions(params, &data_types)?);
    out.extend(subject_conditions(params)?);
    for (param, op) in [("fromTimestamp", ">="), ("toTimestamp", "<")] {
        if let Some(at) = params.datetime(param)? {
            out.push(time_bound("timestamp", op, at));
        }
    }
    Ok(out)
}

fn upper_choices(params: &Params, key: &str, allowed: &[&str]) -> Result<Vec<String>> {
    params
        .list(key)
        .into_iter()
        .map(|v| {
            let upper = v.to_uppercase();
            if allowed.contains(&upper.as_str()) {
                Ok(upper)
            } else {
                Err(ReadError::bad_request(format!(
                    "Invalid {key} `{v}`. Must be one of: {}",
                    allowed.join(", ")
                )))
            }
        })
        .collect()
}

fn value_conditions(params: &Params, data_types: &[String]) -> Result<Vec<Sql>> {
    let mut out = Vec::new();
    let values = params.list("value");
    if !values.is_empty() {
        let single = match data_types {
            [one] if one != "TEXT" && one != "CORRECTION" => one.as_str(),
            _ => {
                return Err(ReadError::bad_request(
                    "`value` needs exactly one `dataType` of NUMERIC, BOOLEAN or CATEGORICAL",
                ));
            }
        };
        let mut sql = Sql::default();
        match single {
            "CATEGORICAL" => {
                sql.push("string_value IN ").bind(values);
            }
            "BOOLEAN" => {
                let bits = values
                    .iter()
                    .map(|v| match v.as_str() {
                        "true" => Ok("1".to_owned()),
                        "false" => Ok("0".to_owned()),
                        _ => Err(ReadError::bad_request(format!(
                            "BOOLEAN values are `true` or `false`, got `{v}`"
                        ))),
                    })
                    .collect::<Result<Vec<_>>>()?;
                sql.push("toString(toUInt8(value)) IN ").bind(bits);
            }
            _ => {
                let numbers = values
                    .iter()
                    .map(|v| {
                        v.parse::<f64>().map(|n| n.to_string()).map_err(|_| {
                            ReadError::bad_request(format!("NUMERIC values are numbers, got `{v}`"))
                        })
                    })
                    .collect::<Result<Vec<_>>>()?;
                sql.push("toString(value) IN ").bind(numbers);
            }
        }
        out.push(sql);
    }
    let (min, max) = (params.float("valueMin")?, params.float("valueMax")?);
    if (min.is_some() || max.is_some()) && data_types != ["NUMERIC"] {
        return Err(ReadError::bad_request("`valueMin` and `valueMax` need `dataType=NUMERIC` alone"));
    }
    for (bound, op) in [(min, ">="), (max, "<=")] {
        if let Some(bound) = bound {
            let mut sql = Sql::new(&format!("value {op} "));
            sql.bind(bound);
            out.push(sql);
        }
    }
    Ok(out)
}

/// `traceId`, `sessionId`, `observationId`, `experimentId`: one subject kind at a time, except that
/// `observationId` needs its `traceId`.
fn subject_conditions(params: &Params) -> Result<Vec<Sql>> {
    let trace = params.list("traceId");
    let observation = params.list("observationId");
    let session = params.list("sessionId");
    let experiment = params.list("experimentId");
    if !observation.is_empty() && trace.is_empty() {
        return Err(ReadError::bad_request("`observationId` requires `traceId`"));
    }
    let kinds = [!trace.is_empty(), !session.is_empty(), !experiment.is_empty()];
    if kinds.iter().filter(|k| **k).count() > 1 {
        return Err(ReadError::bad_request(
            "At most one of traceId (with observationId), sessionId, experimentId may be specified",
        ));
    }
    let mut out = Vec::new();
    for (values, column) in [
        (trace, "trace_id"),
        (observation, "observation_id"),
        (session, "session_id"),
        (experiment, "dataset_run_id"),
    ] {
        if !values.is_empty() {
            out.push(one_of(column, values));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_groups_are_checked() {
        assert_eq!(
            groups(&Params::from_pairs([("fields", "subject,details")])).unwrap(),
            ["core", "subject", "details"]
        );
        assert!(
            groups(&Params::from_pairs([("fields", "trace")])).unwrap_err().to_string().contains("reserved")
        );
        assert!(groups(&Params::from_pairs([("fields", "nope")])).is_err());
    }

    #[test]
    fn subject_rules() {
        assert!(subject_conditions(&Params::from_pairs([("observationId", "o")])).is_err());
        assert_eq!(
            subject_conditions(&Params::from_pairs([("observationId", "o"), ("traceId", "t")]))
                .unwrap()
                .len(),
            2
        );
        assert!(subject_conditions(&Params::from_pairs([("sessionId", "s"), ("traceId", "t")])).is_err());
    }

    #[test]
    fn value_filters_need_one_data_type() {
        let p = Params::from_pairs([("value", "1")]);
        assert!(value_conditions(&p, &[]).is_err());
        assert!(value_conditions(&p, &["NUMERIC".into()]).is_ok());
        let p = Params::from_pairs([("value", "yes")]);
        assert!(value_conditions(&p, &["BOOLEAN".into()]).is_err());
        let p = Params::from_pairs([("valueMin", "1")]);
        assert!(value_conditions(&p, &["BOOLEAN".into()]).is_err());
        assert!(upper_choices(&Params::from_pairs([("source", "api,eval")]), "source", SOURCES).is_ok());
        assert!(upper_choices(&Params::from_pairs([("source", "robot")]), "source", SOURCES).is_err());
    }
}
