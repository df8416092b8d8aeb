//! `/api/public/v2/evaluators`: create, list, get, update, delete, versions. An evaluator is a
//! row of `evaluators` plus versions; every definition change adds a version, rules always use the
//! newest. Code evaluators are refused with 501 until a sandbox runs them (docs/evaluators.md).

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::{Map, Value};
use sqlx::PgPool;
use utoipa::ToSchema;

use crate::definition::{self, ChatMessage, JudgeDefinition, ModelConfig, OutputDefinition, VariableMapping};
use crate::error::{Code, Error, Issues, Result};
use crate::page::{self, CursorPage, PageQuery};
use crate::path;

pub const CODE_EVALUATORS_501: &str = "Code evaluators (PYTHON, TYPESCRIPT) are not available on this server yet: they need a sandbox (a separate process without network or secrets, with CPU, memory and time limits) that Loupe does not have. Use an llm_as_judge evaluator.";

/// Who created something, with their name when they are a known person.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Creator {
    pub id: String,
    pub name: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RuleAssignment {
    pub evaluation_rule_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variable_mapping_override: Option<Vec<VariableMapping>>,
}

/// The SDK's `Evaluator` (type `llm_as_judge`): metadata, status, rule assignments and the newest
/// version's definition, flattened.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EvaluatorBody {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub id: String,
    pub name: String,
    pub description: Option<String>,
    pub created_by: Option<Creator>,
    /// `active` or `paused`.
    pub status: &'static str,
    pub paused_at: Option<DateTime<Utc>>,
    pub paused_reason: Option<String>,
    pub paused_message: Option<String>,
    pub evaluation_rule_assignments: Vec<RuleAssignment>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub version_id: String,
    pub version: i32,
    pub version_created_at: DateTime<Utc>,
    pub version_created_by: Option<Creator>,
    pub prompt: Vec<ChatMessage>,
    pub variables: Vec<String>,
    pub variable_mapping: Option<Vec<VariableMapping>>,
    pub model_config: Option<ModelConfig>,
    pub output_definition: OutputDefinition,
}

/// The SDK's `EvaluatorVersion` (type `llm_as_judge`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VersionBody {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub id: String,
    pub version: i32,
    pub created_at: DateTime<Utc>,
    pub created_by: Option<Creator>,
    pub prompt: Vec<ChatMessage>,
    pub variables: Vec<String>,
    pub variable_mapping: Option<Vec<VariableMapping>>,
    pub model_config: Option<ModelConfig>,
    pub output_definition: OutputDefinition,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Deleted {
    pub id: String,
}

/// Refuses code evaluators (501) and anything but `llm_as_judge`; the body as an object.
fn judge_body(body: &Value) -> Result<&Map<String, Value>> {
    let Some(object) = body.as_object() else {
        return Err(Error::invalid_body(vec![crate::error::Issue {
            code: "invalid_type".into(),
            message: "the body must be a JSON object".into(),
            path: vec![],
        }]));
    };
    match object.get("type").and_then(Value::as_str) {
        Some("llm_as_judge") => Ok(object),
        Some("code") => Err(Error::refused(Code::NotImplemented, CODE_EVALUATORS_501)),
        _ => Err(Error::invalid_body(vec![crate::error::Issue {
            code: "invalid_union_discriminator".into(),
            message: "type must be \"llm_as_judge\" or \"code\"".into(),
            path: path!["type"].to_vec(),
        }])),
    }
}

fn name_of(object: &Map<String, Value>, required: bool, issues: &mut Issues) -> Option<String> {
    match object.get("name") {
        Some(Value::String(name)) if !name.trim().is_empty() && name.len() <= 255 => {
            Some(name.trim().to_owned())
        }
        None if !required => None,
        _ => {
            issues.add(
                &path!["name"],
                "invalid_type",
                "name must be a non-empty string of at most 255 characters",
            );
            None
        }
    }
}

/// `Some(new description)` when the body sets it (`Some(None)` clears it).
fn description_of(object: &Map<String, Value>, issues: &mut Issues) -> Option<Option<String>> {
    match object.get("description") {
        None => None,
        Some(Value::Null) => Some(None),
        Some(Value::String(text)) => Some(Some(text.clone())),
        Some(_) => {
            issues.add(&path!["description"], "invalid_type", "description must be a string or null");
            None
        }
    }
}

pub async fn create(db: &PgPool, project: &str, user: Option<&str>, body: &Value) -> Result<EvaluatorBody> {
    let object = judge_body(body)?;
    let mut issues = Issues::default();
    let name = name_of(object, true, &mut issues);
    let description = description_of(object, &mut issues).flatten();
    let definition = definition::parse_definition(object, &mut issues);
    issues.finish()?;
    let (Some(name), Some(definition)) = (name, definition) else { unreachable!("issues were reported") };
    let id = uuid::Uuid::now_v7().to_string();
    let mut tx = db.begin().await?;
    sqlx::query(
        "INSERT INTO evaluators (id, project_id, name, description, kind, created_by) VALUES ($1, $2, $3, $4, 'llm_as_judge', $5)",
    )
    .bind(&id)
    .bind(project)
    .bind(&name)
    .bind(&description)
    .bind(user)
    .execute(&mut *tx)
    .await?;
    add_version(&mut tx, &id, 1, &definition, user).await?;
    tx.commit().await?;
    get(db, project, &id).await
}

async fn add_version(
    tx: &mut sqlx::Transaction<'_, sqlx::Postgres>,
    evaluator: &str,
    version: i32,
    definition: &JudgeDefinition,
    user: Option<&str>,
) -> Result<()> {
    let json = serde_json::to_value(definition)
        .map_err(|e| storage::Error::new(storage::ErrorKind::Internal, e.to_string()))?;
    sqlx::query("INSERT INTO evaluator_versions (id, evaluator_id, version, definition, created_by) VALUES ($1, $2, $3, $4, $5)")
        .bind(uuid::Uuid::now_v7().to_string())
        .bind(evaluator)
        .bind(version)
        .bind(json)
        .bind(user)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

#[derive(sqlx::FromRow)]
struct Row {
    id: String,
    name: String,
    description: Option<String>,
    created_by: Option<String>,
    created_by_name: Option<String>,
    paused_at: Option<DateTime<Utc>>,
    paused_reason: Option<String>,
    paused_message: Option<String>,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
    version_id: String,
    version: i32,
    definition: Value,
    version_created_at: DateTime<Utc>,
    version_created_by: Option<String>,
    version_created_by_name: Option<String>,
}

impl page::Keyed for Row {
    fn created_at(&self) -> DateTime<Utc> {
        self.created_at
    }
    fn id(&self) -> &str {
        &self.id
    }
}

const SELECT: &str = "SELECT e.id, e.name, e.description, e.created_by, cu.name AS created_by_name,
        e.paused_at, e.paused_reason, e.paused_message, e.created_at, e.updated_at,
        v.id AS version_id, v.version, v.definition, v.created_at AS version_created_at,
        v.created_by AS version_created_by, vu.name AS version_created_by_name
    FROM evaluators e
    JOIN LATERAL (SELECT * FROM evaluator_versions WHERE evaluator_id = e.id ORDER BY version DESC LIMIT 1) v ON true
    LEFT JOIN users cu ON cu.id = e.created_by
    LEFT JOIN users vu ON vu.id = v.created_by";

fn creator(id: Option<String>, name: Option<String>) -> Option<Creator> {
    id.map(|id| Creator { id, name })
}

fn stored(definition: Value) -> Result<JudgeDefinition> {
    serde_json::from_value(definition).map_err(|e| {
        storage::Error::new(
            storage::ErrorKind::Internal,
            format!("a stored evaluator definition does not parse: {e}"),
        )
        .into()
    })
}

fn body(row: Row, assignments: Vec<RuleAssignment>) -> Result<EvaluatorBody> {
    let def = stored(row.definition)?;
    Ok(EvaluatorBody {
        kind: "llm_as_judge",
        status: if row.paused_at.is_some() { "paused" } else { "active" },
        id: row.id,
        name: row.name,
        description: row.description,
        created_by: creator(row.created_by, row.created_by_name),
        paused_at: row.paused_at,
        paused_reason: row.paused_reason,
        paused_message: row.paused_message,
        evaluation_rule_assignments: assignments,
        created_at: row.created_at,
        updated_at: row.updated_at,
        version_id: row.version_id,
        version: row.version,
        version_created_at: row.version_created_at,
        version_created_by: creator(row.version_created_by, row.version_created_by_name),
        variables: def.variables(),
        prompt: def.prompt,
        variable_mapping: def.variable_mapping,
        model_config: def.model_config,
        output_definition: def.output_definition,
    })
}

async fn assignments(db: &PgPool, evaluator_ids: &[String]) -> Result<Vec<(String, RuleAssignment)>> {
    let rows: Vec<(String, String, Option<Value>)> = sqlx::query_as(
        "SELECT evaluator_id, rule_id, variable_mapping FROM evaluation_rule_evaluators
         WHERE evaluator_id = ANY($1) ORDER BY created_at DESC, rule_id",
    )
    .bind(evaluator_ids)
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(|(evaluator, rule, mapping)| {
            let variable_mapping_override = mapping.and_then(|m| serde_json::from_value(m).ok());
            (evaluator, RuleAssignment { evaluation_rule_id: rule, variable_mapping_override })
        })
        .collect())
}

pub async fn get(db: &PgPool, project: &str, id: &str) -> Result<EvaluatorBody> {
    let sql = format!("{SELECT} WHERE e.project_id = $1 AND e.id = $2");
    let row: Option<Row> =
        sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(project).bind(id).fetch_optional(db).await?;
    let row = row.ok_or_else(|| Error::not_found(format!("Evaluator {id} not found")))?;
    let assigned =
        assignments(db, std::slice::from_ref(&row.id)).await?.into_iter().map(|(_, a)| a).collect();
    body(row, assigned)
}

pub async fn list(db: &PgPool, project: &str, query: &PageQuery) -> Result<CursorPage<EvaluatorBody>> {
    let keyed = page::newest_first::<Row>(db, SELECT, "e", project, query).await?;
    let ids: Vec<String> = keyed.data.iter().map(|r| r.id.clone()).collect();
    let mut assigned = assignments(db, &ids).await?;
    let mut data = Vec::with_capacity(keyed.data.len());
    for row in keyed.data {
        let (mine, rest): (Vec<_>, Vec<_>) = assigned.into_iter().partition(|(e, _)| *e == row.id);
        assigned = rest;
        data.push(body(row, mine.into_iter().map(|(_, a)| a).collect())?);
    }
    Ok(CursorPage { data, meta: keyed.meta })
}

/// A metadata-only change (name, description) or a complete new definition (a new version).
pub async fn update(
    db: &PgPool,
    project: &str,
    id: &str,
    user: Option<&str>,
    body: &Value,
) -> Result<EvaluatorBody> {
    let Some(object) = body.as_object() else {
        return Err(Error::invalid_body(vec![crate::error::Issue {
            code: "invalid_type".into(),
            message: "the body must be a JSON object".into(),
            path: vec![],
        }]));
    };
    let current = get(db, project, id).await?;
    const DEFINITION: [&str; 7] = [
        "type",
        "prompt",
        "modelConfig",
        "variableMapping",
        "outputDefinition",
        "sourceCode",
        "sourceCodeLanguage",
    ];
    let replaces = DEFINITION.iter().any(|k| object.contains_key(*k));
    if !replaces && !object.contains_key("name") && !object.contains_key("description") {
        return Err(Error::invalid_body(vec![crate::error::Issue {
            code: "custom".into(),
            message: "provide at least one field to change".into(),
            path: vec![],
        }]));
    }
    let mut issues = Issues::default();
    let name = name_of(object, false, &mut issues);
    let description = description_of(object, &mut issues);
    let definition = if replaces {
        match object.get("type").and_then(Value::as_str) {
            Some("llm_as_judge") => {}
            Some("code") => {
                return Err(Error::refused(
                    Code::InvalidBody,
                    "An evaluator's type cannot change (this one is llm_as_judge)",
                ));
            }
            _ => issues.add(
                &path!["type"],
                "invalid_type",
                "replacing the definition needs type \"llm_as_judge\" and every definition field",
            ),
        }
        definition::parse_definition(object, &mut issues)
    } else {
        None
    };
    issues.finish()?;
    let mut tx = db.begin().await?;
    sqlx::query(
        "UPDATE evaluators SET name = coalesce($3, name),
            description = CASE WHEN $4 THEN $5 ELSE description END,
            -- a new definition lifts a pause caused by its model configuration or its deleted
            -- connection (a provider still without one fails its executions with that message)
            paused_at = CASE WHEN $6 AND paused_reason IN ('invalid_model_config', $7) THEN NULL ELSE paused_at END,
            paused_message = CASE WHEN $6 AND paused_reason IN ('invalid_model_config', $7) THEN NULL ELSE paused_message END,
            paused_reason = CASE WHEN $6 AND paused_reason IN ('invalid_model_config', $7) THEN NULL ELSE paused_reason END,
            updated_at = now()
         WHERE project_id = $1 AND id = $2",
    )
    .bind(project)
    .bind(id)
    .bind(&name)
    .bind(description.is_some())
    .bind(description.flatten())
    .bind(definition.is_some())
    .bind(crate::pauses::CONNECTION_DELETED)
    .execute(&mut *tx)
    .await?;
    if let Some(definition) = &definition {
        add_version(&mut tx, id, current.version + 1, definition, user).await?;
    }
    tx.commit().await?;
    get(db, project, id).await
}

pub async fn delete(db: &PgPool, project: &str, id: &str) -> Result<Deleted> {
    let done = sqlx::query("DELETE FROM evaluators WHERE project_id = $1 AND id = $2")
        .bind(project)
        .bind(id)
        .execute(db)
        .await?;
    if done.rows_affected() == 0 {
        return Err(Error::not_found(format!("Evaluator {id} not found")));
    }
    Ok(Deleted { id: id.to_owned() })
}

/// id, version, created at, created by (id, name), definition.
type VersionRow = (String, i32, DateTime<Utc>, Option<String>, Option<String>, Value);

pub async fn versions(
    db: &PgPool,
    project: &str,
    id: &str,
    query: &PageQuery,
) -> Result<CursorPage<VersionBody>> {
    let exists: Option<(String,)> =
        sqlx::query_as("SELECT id FROM evaluators WHERE project_id = $1 AND id = $2")
            .bind(project)
            .bind(id)
            .fetch_optional(db)
            .await?;
    if exists.is_none() {
        return Err(Error::not_found(format!("Evaluator {id} not found")));
    }
    let before: Option<i32> = match &query.after {
        Some(key) => Some(
            key.parse()
                .map_err(|_| Error::refused(Code::InvalidQuery, "cursor is not one this API returned"))?,
        ),
        None => None,
    };
    let rows: Vec<VersionRow> = sqlx::query_as(
        "SELECT v.id, v.version, v.created_at, v.created_by, u.name, v.definition FROM evaluator_versions v
         LEFT JOIN users u ON u.id = v.created_by
         WHERE v.evaluator_id = $1 AND ($2::int IS NULL OR v.version < $2) ORDER BY v.version DESC LIMIT $3",
    )
    .bind(id)
    .bind(before)
    .bind(query.limit + 1)
    .fetch_all(db)
    .await?;
    let keyed = page::finish(rows, query.limit, |r| r.1.to_string(), |r| r);
    let mut data = Vec::new();
    for (version_id, version, created_at, by, by_name, definition) in keyed.data {
        let def = stored(definition)?;
        data.push(VersionBody {
            kind: "llm_as_judge",
            id: version_id,
            version,
            created_at,
            created_by: creator(by, by_name),
            variables: def.variables(),
            prompt: def.prompt,
            variable_mapping: def.variable_mapping,
            model_config: def.model_config,
            output_definition: def.output_definition,
        });
    }
    Ok(CursorPage { data, meta: keyed.meta })
}

/// The newest version of an evaluator, for the engine: its id, name and definition.
pub async fn newest(db: &PgPool, evaluator: &str) -> Result<Option<(String, String, JudgeDefinition, bool)>> {
    let row: Option<(String, String, Value, Option<DateTime<Utc>>)> = sqlx::query_as(
        "SELECT v.id, e.name, v.definition, e.paused_at FROM evaluators e
         JOIN LATERAL (SELECT * FROM evaluator_versions WHERE evaluator_id = e.id ORDER BY version DESC LIMIT 1) v ON true
         WHERE e.id = $1",
    )
    .bind(evaluator)
    .fetch_optional(db)
    .await?;
    row.map(|(version, name, def, paused)| Ok((version, name, stored(def)?, paused.is_some()))).transpose()
}
