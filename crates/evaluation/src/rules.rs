//! `/api/public/v2/evaluation-rules`: create, list, get, update, delete. A rule selects a
//! project's new observations (its filter, sampling and delay) and names the evaluators to run on
//! them. Loupe adds three fields to the SDK's shape, which the SDK keeps as extra fields:
//! `target` (`observation`, or the v3 kinds `trace` / `dataset`), `delaySeconds`, and the
//! effective `status` with an `inactiveReason` (docs/evaluators.md).

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use sqlx::PgPool;
use utoipa::ToSchema;

use domain::config::WriteMode;

use crate::definition::VariableMapping;
use crate::error::{Code, Error, Issue, Issues, Result};
use crate::evaluators::Creator;
use crate::page::{self, CursorPage, PageQuery};
use crate::{filter, path};

mod checks;
use checks::{delay_of, object_of, parse_assignments, sampling_of};

/// The longest delay a rule may ask for before its evaluators run (a day).
pub const MAX_DELAY_SECONDS: i64 = 86_400;

pub const V3_STOPPED: &str = "Trace-level and dataset evaluation rules run on the v3 tables, which the events_only write mode no longer writes; they stopped at the cutover. Recreate them as observation-level rules.";
pub const EVALUATORS_PAUSED: &str = "Every evaluator this rule runs is paused (see their pausedReason and pausedMessage, e.g. a deleted LLM connection); matching observations wait and are judged when an evaluator resumes.";
pub const NO_EVENTS: &str = "Observation-level rules read the events tables, which the legacy write mode does not write; they start in dual or events_only.";

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Assignment {
    pub evaluator_id: String,
    pub variable_mapping: Option<Vec<VariableMapping>>,
}

/// The SDK's `EvaluationRule`, plus Loupe's `target`, `delaySeconds`, `status`, `inactiveReason`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RuleBody {
    pub id: String,
    pub name: String,
    pub created_by: Option<Creator>,
    /// Whether live execution runs: false when disabled, or when the write mode stops this kind.
    pub enabled: bool,
    pub sampling: f64,
    #[schema(value_type = Vec<Object>)]
    pub filter: Vec<Value>,
    pub evaluator_assignments: Vec<Assignment>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// `observation` (the v4 kind), `trace` or `dataset` (the v3 kinds).
    pub target: String,
    pub delay_seconds: i32,
    /// `active`, `inactive`, or `paused` (every evaluator it runs is paused; it resumes with them).
    pub status: &'static str,
    /// Why an enabled rule does not run (the write mode, or its paused evaluators); `null` otherwise.
    pub inactive_reason: Option<&'static str>,
}

#[derive(sqlx::FromRow)]
struct Row {
    id: String,
    name: String,
    created_by: Option<String>,
    created_by_name: Option<String>,
    enabled: bool,
    sampling: f64,
    filter: Value,
    target: String,
    delay_seconds: i32,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
    /// Assigned evaluators, and how many of them are paused.
    assigned: i64,
    paused: i64,
}

impl page::Keyed for Row {
    fn created_at(&self) -> DateTime<Utc> {
        self.created_at
    }
    fn id(&self) -> &str {
        &self.id
    }
}

const SELECT: &str = "SELECT r.id, r.name, r.created_by, u.name AS created_by_name, r.enabled, r.sampling,
        r.filter, r.target, r.delay_seconds, r.created_at, r.updated_at,
        (SELECT count(*) FROM evaluation_rule_evaluators a WHERE a.rule_id = r.id) AS assigned,
        (SELECT count(*) FROM evaluation_rule_evaluators a JOIN evaluators e ON e.id = a.evaluator_id
          WHERE a.rule_id = r.id AND e.paused_at IS NOT NULL) AS paused
    FROM evaluation_rules r LEFT JOIN users u ON u.id = r.created_by";

/// Why a rule of `target` cannot run in `mode`, if it cannot.
pub fn stopped_by(target: &str, mode: WriteMode) -> Option<&'static str> {
    match (target, mode) {
        ("trace" | "dataset", WriteMode::EventsOnly) => Some(V3_STOPPED),
        ("observation", WriteMode::Legacy) => Some(NO_EVENTS),
        _ => None,
    }
}

fn body(row: Row, assignments: Vec<Assignment>, mode: WriteMode) -> RuleBody {
    let reason = stopped_by(&row.target, mode);
    let paused = reason.is_none() && row.assigned > 0 && row.paused == row.assigned;
    let filter = match row.filter {
        Value::Array(items) => items,
        _ => Vec::new(),
    };
    RuleBody {
        enabled: row.enabled && reason.is_none(),
        status: match (row.enabled, reason, paused) {
            (true, None, false) => "active",
            (true, None, true) => "paused",
            _ => "inactive",
        },
        inactive_reason: match (row.enabled, paused) {
            (false, _) => None,
            (true, true) => Some(EVALUATORS_PAUSED),
            (true, false) => reason,
        },
        created_by: row.created_by.map(|id| Creator { id, name: row.created_by_name }),
        id: row.id,
        name: row.name,
        sampling: row.sampling,
        filter,
        evaluator_assignments: assignments,
        created_at: row.created_at,
        updated_at: row.updated_at,
        target: row.target,
        delay_seconds: row.delay_seconds,
    }
}

async fn assignments_of(db: &PgPool, rules: &[String]) -> Result<Vec<(String, Assignment)>> {
    let rows: Vec<(String, String, Option<Value>)> = sqlx::query_as(
        "SELECT rule_id, evaluator_id, variable_mapping FROM evaluation_rule_evaluators WHERE rule_id = ANY($1) ORDER BY position",
    )
    .bind(rules)
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(|(rule, evaluator_id, mapping)| {
            (
                rule,
                Assignment {
                    evaluator_id,
                    variable_mapping: mapping.and_then(|m| serde_json::from_value(m).ok()),
                },
            )
        })
        .collect())
}

pub async fn get(db: &PgPool, project: &str, id: &str, mode: WriteMode) -> Result<RuleBody> {
    let sql = format!("{SELECT} WHERE r.project_id = $1 AND r.id = $2");
    let row: Option<Row> =
        sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(project).bind(id).fetch_optional(db).await?;
    let row = row.ok_or_else(|| Error::not_found(format!("Evaluation rule {id} not found")))?;
    let assigned =
        assignments_of(db, std::slice::from_ref(&row.id)).await?.into_iter().map(|(_, a)| a).collect();
    Ok(body(row, assigned, mode))
}

pub async fn list(
    db: &PgPool,
    project: &str,
    query: &PageQuery,
    mode: WriteMode,
) -> Result<CursorPage<RuleBody>> {
    let keyed = page::newest_first::<Row>(db, SELECT, "r", project, query).await?;
    let ids: Vec<String> = keyed.data.iter().map(|r| r.id.clone()).collect();
    let mut assigned = assignments_of(db, &ids).await?;
    let data = keyed
        .data
        .into_iter()
        .map(|row| {
            let (mine, rest): (Vec<_>, Vec<_>) =
                std::mem::take(&mut assigned).into_iter().partition(|(r, _)| *r == row.id);
            assigned = rest;
            body(row, mine.into_iter().map(|(_, a)| a).collect(), mode)
        })
        .collect();
    Ok(CursorPage { data, meta: keyed.meta })
}

pub async fn create(
    db: &PgPool,
    project: &str,
    user: Option<&str>,
    body: &Value,
    mode: WriteMode,
) -> Result<RuleBody> {
    let object = object_of(body)?;
    let mut issues = Issues::default();
    let name = match object.get("name") {
        Some(Value::String(n)) if !n.trim().is_empty() => Some(n.trim().to_owned()),
        _ => {
            issues.add(&path!["name"], "invalid_type", "name must be a non-empty string");
            None
        }
    };
    let enabled = object.get("enabled").and_then(Value::as_bool);
    if enabled.is_none() {
        issues.add(&path!["enabled"], "invalid_type", "enabled must be true or false");
    }
    let sampling = sampling_of(object, &mut issues).unwrap_or(1.0);
    let delay = delay_of(object, &mut issues).unwrap_or(0);
    let filter = filter::parse(object.get("filter"), &mut issues);
    let target = match object.get("target") {
        None | Some(Value::Null) => "observation",
        Some(Value::String(t)) if ["observation", "trace", "dataset"].contains(&t.as_str()) => t.as_str(),
        Some(_) => {
            issues.add(
                &path!["target"],
                "invalid_enum_value",
                "target must be observation, trace or dataset",
            );
            "observation"
        }
    };
    let assignments = match object.get("evaluatorAssignments") {
        Some(value) => parse_assignments(db, project, value, &mut issues).await?,
        None => {
            issues.add(
                &path!["evaluatorAssignments"],
                "invalid_type",
                "evaluatorAssignments is required (an empty list for a disabled draft)",
            );
            Vec::new()
        }
    };
    if enabled == Some(true) && assignments.is_empty() && issues.is_empty() {
        issues.add(
            &path!["evaluatorAssignments"],
            "custom",
            "an enabled rule needs at least one evaluator assignment",
        );
    }
    issues.finish()?;
    if target != "observation" && mode == WriteMode::EventsOnly {
        return Err(Error::refused(Code::InvalidRequest, V3_STOPPED));
    }
    let enabled = enabled.unwrap_or_default();
    let id = uuid::Uuid::now_v7().to_string();
    let mut tx = db.begin().await?;
    sqlx::query(
        "INSERT INTO evaluation_rules (id, project_id, name, target, enabled, enabled_at, sampling, delay_seconds, filter, created_by)
         VALUES ($1, $2, $3, $4, $5, CASE WHEN $5 THEN now() END, $6, $7, $8, $9)",
    )
    .bind(&id)
    .bind(project)
    .bind(name)
    .bind(target)
    .bind(enabled)
    .bind(sampling)
    .bind(delay)
    .bind(Value::Array(filter))
    .bind(user)
    .execute(&mut *tx)
    .await?;
    store_assignments(&mut tx, &id, &assignments).await?;
    tx.commit().await?;
    get(db, project, &id, mode).await
}

async fn store_assignments(
    tx: &mut sqlx::Transaction<'_, sqlx::Postgres>,
    rule: &str,
    assignments: &[(String, Option<Vec<VariableMapping>>)],
) -> Result<()> {
    sqlx::query("DELETE FROM evaluation_rule_evaluators WHERE rule_id = $1")
        .bind(rule)
        .execute(&mut **tx)
        .await?;
    for (position, (evaluator, mapping)) in assignments.iter().enumerate() {
        let mapping = mapping.as_ref().map(|m| serde_json::to_value(m).unwrap_or(Value::Null));
        sqlx::query("INSERT INTO evaluation_rule_evaluators (rule_id, evaluator_id, position, variable_mapping) VALUES ($1, $2, $3, $4)")
            .bind(rule)
            .bind(evaluator)
            .bind(position as i32)
            .bind(mapping)
            .execute(&mut **tx)
            .await?;
    }
    Ok(())
}

pub async fn update(db: &PgPool, project: &str, id: &str, body: &Value, mode: WriteMode) -> Result<RuleBody> {
    let object = object_of(body)?;
    let current = get(db, project, id, mode).await?;
    const FIELDS: [&str; 6] =
        ["name", "enabled", "sampling", "filter", "evaluatorAssignments", "delaySeconds"];
    if !FIELDS.iter().any(|f| object.contains_key(*f)) {
        return Err(Error::invalid_body(vec![Issue {
            code: "custom".into(),
            message: "provide at least one field to change".into(),
            path: vec![],
        }]));
    }
    let legacy = current.target != "observation";
    if legacy
        && (FIELDS.iter().any(|f| *f != "enabled" && object.contains_key(*f))
            || object.get("enabled") == Some(&Value::Bool(true)) && mode == WriteMode::EventsOnly)
    {
        return Err(Error::refused(
            Code::InvalidRequest,
            if mode == WriteMode::EventsOnly {
                V3_STOPPED
            } else {
                "Trace-level and dataset rules can only be disabled (enabled=false) or deleted through this API"
            },
        ));
    }
    let mut issues = Issues::default();
    let name = match object.get("name") {
        None => None,
        Some(Value::String(n)) if !n.trim().is_empty() => Some(n.trim().to_owned()),
        Some(_) => {
            issues.add(&path!["name"], "invalid_type", "name must be a non-empty string");
            None
        }
    };
    let enabled = match object.get("enabled") {
        None | Some(Value::Null) => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(_) => {
            issues.add(&path!["enabled"], "invalid_type", "enabled must be true or false");
            None
        }
    };
    let sampling = sampling_of(object, &mut issues);
    let delay = delay_of(object, &mut issues);
    let filter = object.contains_key("filter").then(|| filter::parse(object.get("filter"), &mut issues));
    let assignments = match object.get("evaluatorAssignments") {
        None | Some(Value::Null) => None,
        Some(value) => Some(parse_assignments(db, project, value, &mut issues).await?),
    };
    let assigned_after = assignments.as_ref().map_or(current.evaluator_assignments.len(), Vec::len);
    // An empty replacement list disables the rule; enabling needs an evaluator.
    let enabled_after = if assignments.as_ref().is_some_and(Vec::is_empty) && enabled != Some(true) {
        Some(false)
    } else {
        enabled
    };
    if enabled_after == Some(true) && assigned_after == 0 {
        issues.add(&path!["enabled"], "custom", "an enabled rule needs at least one evaluator assignment");
    }
    issues.finish()?;
    let mut tx = db.begin().await?;
    sqlx::query(
        "UPDATE evaluation_rules SET name = coalesce($3, name),
            enabled_at = CASE WHEN $4 AND NOT enabled THEN now() ELSE enabled_at END,
            enabled = coalesce($4, enabled),
            sampling = coalesce($5, sampling), delay_seconds = coalesce($6, delay_seconds),
            filter = coalesce($7, filter), updated_at = now()
         WHERE project_id = $1 AND id = $2",
    )
    .bind(project)
    .bind(id)
    .bind(name)
    .bind(enabled_after)
    .bind(sampling)
    .bind(delay)
    .bind(filter.map(Value::Array))
    .execute(&mut *tx)
    .await?;
    if let Some(assignments) = &assignments {
        store_assignments(&mut tx, id, assignments).await?;
    }
    tx.commit().await?;
    get(db, project, id, mode).await
}

pub async fn delete(db: &PgPool, project: &str, id: &str) -> Result<crate::evaluators::Deleted> {
    let done = sqlx::query("DELETE FROM evaluation_rules WHERE project_id = $1 AND id = $2")
        .bind(project)
        .bind(id)
        .execute(db)
        .await?;
    if done.rows_affected() == 0 {
        return Err(Error::not_found(format!("Evaluation rule {id} not found")));
    }
    // Executions not yet started are dropped with their rule; finished ones stay as history.
    sqlx::query("UPDATE evaluation_executions SET status = 'cancelled', finished_at = now() WHERE rule_id = $1 AND status = 'pending'")
        .bind(id)
        .execute(db)
        .await?;
    Ok(crate::evaluators::Deleted { id: id.to_owned() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_runs_in_the_write_modes_that_write_its_tables() {
        assert_eq!(stopped_by("observation", WriteMode::EventsOnly), None);
        assert_eq!(stopped_by("observation", WriteMode::Dual), None);
        assert_eq!(stopped_by("observation", WriteMode::Legacy), Some(NO_EVENTS));
        assert_eq!(stopped_by("trace", WriteMode::Legacy), None);
        assert_eq!(stopped_by("trace", WriteMode::Dual), None);
        assert_eq!(stopped_by("trace", WriteMode::EventsOnly), Some(V3_STOPPED));
        assert_eq!(stopped_by("dataset", WriteMode::EventsOnly), Some(V3_STOPPED));
    }
}
