//! The field checks of a rule's create and update bodies that both share: the body is an object,
//! `sampling` and `delaySeconds` are in range, and each evaluator assignment names an evaluator of
//! the project once, with a mapping of that evaluator's prompt variables.

use serde_json::{Map, Value};
use sqlx::PgPool;

use super::MAX_DELAY_SECONDS;
use crate::definition::{self, VariableMapping};
use crate::error::{Error, Issue, Issues, Result};
use crate::path;

/// A checked assignment list: each evaluator of this project, once, with a mapping of its prompt's
/// variables when one is given.
pub(super) async fn parse_assignments(
    db: &PgPool,
    project: &str,
    value: &Value,
    issues: &mut Issues,
) -> Result<Vec<(String, Option<Vec<VariableMapping>>)>> {
    let Value::Array(items) = value else {
        issues.add(&path!["evaluatorAssignments"], "invalid_type", "evaluatorAssignments must be a list");
        return Ok(Vec::new());
    };
    let mut out: Vec<(String, Option<Vec<VariableMapping>>)> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let Some(id) = item.get("evaluatorId").and_then(Value::as_str) else {
            issues.add(
                &path!["evaluatorAssignments", i, "evaluatorId"],
                "invalid_type",
                "evaluatorId must be a string",
            );
            continue;
        };
        if out.iter().any(|(e, _)| e == id) {
            issues.add(
                &path!["evaluatorAssignments", i, "evaluatorId"],
                "custom",
                format!("evaluator {id} is assigned more than once"),
            );
            continue;
        }
        let Some((_, _, definition, _)) = crate::evaluators::newest(db, id).await?.filter(|_| true) else {
            return Err(Error::not_found(format!("Evaluator {id} not found")));
        };
        let owner: Option<(String,)> =
            sqlx::query_as("SELECT id FROM evaluators WHERE id = $1 AND project_id = $2")
                .bind(id)
                .bind(project)
                .fetch_optional(db)
                .await?;
        if owner.is_none() {
            return Err(Error::not_found(format!("Evaluator {id} not found")));
        }
        let at = path!["evaluatorAssignments", i];
        let mapping = match item.get("variableMapping") {
            None | Some(Value::Null) => None,
            Some(value) => {
                definition::parse_mapping(value, &definition.variables(), "variableMapping", &at, issues)
            }
        };
        out.push((id.to_owned(), mapping));
    }
    Ok(out)
}

pub(super) fn sampling_of(object: &Map<String, Value>, issues: &mut Issues) -> Option<f64> {
    match object.get("sampling") {
        None => None,
        Some(v) => match v.as_f64() {
            Some(s) if (0.0..=1.0).contains(&s) => Some(s),
            _ => {
                issues.add(
                    &path!["sampling"],
                    "invalid_type",
                    "sampling must be a number from 0 to 1 (omit it for 1)",
                );
                None
            }
        },
    }
}

pub(super) fn delay_of(object: &Map<String, Value>, issues: &mut Issues) -> Option<i32> {
    match object.get("delaySeconds") {
        None | Some(Value::Null) => None,
        Some(v) => match v.as_i64() {
            Some(d) if (0..=MAX_DELAY_SECONDS).contains(&d) => Some(d as i32),
            _ => {
                issues.add(
                    &path!["delaySeconds"],
                    "invalid_type",
                    format!("delaySeconds must be an integer from 0 to {MAX_DELAY_SECONDS}"),
                );
                None
            }
        },
    }
}

pub(super) fn object_of(body: &Value) -> Result<&Map<String, Value>> {
    body.as_object().ok_or_else(|| {
        Error::invalid_body(vec![Issue {
            code: "invalid_type".into(),
            message: "the body must be a JSON object".into(),
            path: vec![],
        }])
    })
}
