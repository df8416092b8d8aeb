//! v3's evaluator templates (`eval_templates`) and job configurations (`job_configurations`) as
//! Loupe's evaluators and evaluation rules (docs/takeover.md, **Evaluators**).
//!
//! - A v3 template is versioned by name (one row per version); a Loupe evaluator holds its
//!   versions. A v3 score is named by the job (`score_name`), a Loupe score by its evaluator. So an
//!   evaluator is one (project, template name, score name): a project's template gives one under
//!   its own name (all its versions, v3's row ids kept), and a job whose score name differs, or
//!   that uses one of Langfuse's own templates (no project), gives one more in the job's project
//!   under the score name, with ids `md5(project:name:template row id)` as UUIDs, the same on every
//!   run. An evaluator's id is its first version's.
//! - A job is a rule with the job's id, named by its score name, running that evaluator: `trace`
//!   and `dataset` jobs become Loupe's v3-kind rules, `event` jobs (v3's observation-level ones)
//!   observation rules. Filters and variable mappings are translated and checked by Loupe's own
//!   parsers ([`shape_rule`]); what Loupe cannot run is skipped with its reason.
//! - An active job's rule starts (`enabled_at`, which Loupe's follower reads as "only what is
//!   accepted after this is new") where v3's evaluations of it stopped: at the newest execution v3
//!   recorded for the job, else when the job was last changed. What v3 evaluated is not evaluated
//!   again, and a re-run over an unchanged v3 changes nothing. v3's executions themselves are
//!   history and stay behind (`super::NOT_IMPORTED`).

use serde_json::{Map, Value};

use evaluation::definition;
use evaluation::error::Issues;
use evaluation::jsonpath::JsonPath;

use super::{Keys, NO_PROJECT, Schema, Table};

/// The evaluators as `keyed` (one row per version, with its evaluator's id), for the SELECTs.
fn evaluators_cte(schema: &Schema) -> String {
    let output_definition = schema.or("eval_templates", "t", "output_definition", "NULL::jsonb");
    let kind = if schema.has("eval_templates", "type") { "t.type::text" } else { "'LLM_AS_JUDGE'" };
    format!(
        "WITH uses AS (\
           SELECT DISTINCT j.project_id AS owner, t.project_id AS tpl_project, t.name AS tpl_name, j.score_name AS name \
           FROM job_configurations j JOIN eval_templates t ON t.id = j.eval_template_id \
           UNION SELECT t.project_id, t.project_id, t.name, t.name FROM eval_templates t WHERE t.project_id IS NOT NULL), \
         versions AS (\
           SELECT u.owner, u.tpl_project, u.tpl_name, u.name, t.id AS template_id, t.version, t.prompt, t.provider, \
           t.model, t.output_schema::jsonb AS output_schema, {output_definition}::jsonb AS output_definition, \
           {kind} AS template_type, t.created_at, t.updated_at, \
           CASE WHEN u.owner = t.project_id AND u.name = t.name THEN t.id \
             ELSE md5(u.owner || ':' || u.name || ':' || t.id)::uuid::text END AS version_id \
           FROM uses u JOIN eval_templates t ON t.project_id IS NOT DISTINCT FROM u.tpl_project AND t.name = u.tpl_name), \
         keyed AS (\
           SELECT v.*, first_value(v.version_id) OVER (PARTITION BY v.owner, v.tpl_project, v.tpl_name, v.name \
             ORDER BY v.version, v.template_id) AS evaluator_id, \
           max(v.updated_at) OVER (PARTITION BY v.owner, v.tpl_project, v.tpl_name, v.name) AS last_updated_at \
           FROM versions v)"
    )
}

/// The evaluator a job runs and its template's type, over `keyed` (NULL when v3 deleted the
/// template).
const JOB_EVALUATOR: &str = "(SELECT k.evaluator_id FROM keyed k JOIN eval_templates t ON t.id = j.eval_template_id \
    WHERE k.owner = j.project_id AND k.tpl_project IS NOT DISTINCT FROM t.project_id AND k.tpl_name = t.name \
    AND k.name = j.score_name LIMIT 1)";
const JOB_TEMPLATE_TYPE: &str =
    "(SELECT k.template_type FROM keyed k WHERE k.template_id = j.eval_template_id LIMIT 1)";

/// What [`shape_rule`] reads of a job, beside the target table's own columns.
fn job_fields() -> String {
    format!(
        "{JOB_EVALUATOR} AS evaluator_id, {JOB_TEMPLATE_TYPE} AS template_type, j.target_object AS v3_target, \
         j.job_type::text AS job_type, j.filter::jsonb AS filter, j.variable_mapping::jsonb AS variable_mapping, \
         CASE j.target_object WHEN 'trace' THEN 'trace' WHEN 'dataset' THEN 'dataset' WHEN 'event' THEN 'observation' \
         END AS target"
    )
}

pub const TABLES: &[Table] = &[
    Table {
        target: "evaluators",
        sources: &["eval_templates", "job_configurations"],
        select: |schema| {
            format!(
                "{cte} SELECT DISTINCT ON (k.evaluator_id) k.evaluator_id AS id, k.owner AS project_id, k.name, \
                 NULL::text AS description, CASE WHEN k.template_type = 'LLM_AS_JUDGE' THEN 'llm_as_judge' ELSE 'code' END \
                 AS kind, NULL::text AS created_by, k.created_at, k.last_updated_at AS updated_at \
                 FROM keyed k ORDER BY k.evaluator_id, k.version",
                cte = evaluators_cte(schema)
            )
        },
        columns: &[
            "id",
            "project_id",
            "name",
            "description",
            "kind",
            "created_by",
            "created_at",
            "updated_at",
        ],
        conflict: "(id)",
        insert_only: &[],
        label: "s.name",
        skips: &[
            NO_PROJECT,
            (
                "s.kind <> 'llm_as_judge'",
                "a code evaluator: Loupe runs LLM-as-a-judge evaluators only (no sandbox for code)",
            ),
        ],
    },
    Table {
        target: "evaluator_versions",
        sources: &["eval_templates", "job_configurations"],
        // `definition` is made by `shape_version` from the template's prompt, model and output.
        select: |schema| {
            format!(
                "{cte} SELECT k.version_id AS id, k.evaluator_id, k.version, NULL::text AS created_by, k.created_at, \
                 k.prompt, k.provider, k.model, k.output_schema, k.output_definition, k.name \
                 FROM keyed k ORDER BY k.evaluator_id, k.version",
                cte = evaluators_cte(schema)
            )
        },
        columns: &["id", "evaluator_id", "version", "definition", "created_by", "created_at"],
        conflict: "(id)",
        insert_only: &[],
        label: "s.id",
        skips: &[
            (
                "NOT EXISTS (SELECT 1 FROM evaluators e WHERE e.id = s.evaluator_id)",
                "its evaluator is not imported",
            ),
            (
                "EXISTS (SELECT 1 FROM evaluator_versions t WHERE t.evaluator_id = s.evaluator_id \
                 AND t.version = s.version AND t.id <> s.id)",
                "Loupe already has this version of the evaluator under another id",
            ),
        ],
    },
    Table {
        target: "evaluation_rules",
        sources: &["job_configurations", "eval_templates"],
        select: |schema| {
            format!(
                "{cte} SELECT j.id, j.project_id, j.score_name AS name, j.status::text = 'ACTIVE' AS enabled, \
                 CASE WHEN j.status::text = 'ACTIVE' THEN {started} END AS enabled_at, \
                 j.sampling::float8 AS sampling, ceil(j.delay / 1000.0)::int AS delay_seconds, NULL::text AS created_by, \
                 j.created_at, j.updated_at, {fields} \
                 FROM job_configurations j ORDER BY j.id",
                cte = evaluators_cte(schema),
                fields = job_fields(),
                started = if schema.has_table("job_executions") {
                    "COALESCE((SELECT max(x.created_at) FROM job_executions x WHERE x.project_id = j.project_id \
                     AND x.job_configuration_id = j.id), j.updated_at)"
                } else {
                    "j.updated_at"
                },
            )
        },
        columns: &[
            "id",
            "project_id",
            "name",
            "target",
            "enabled",
            "enabled_at",
            "sampling",
            "delay_seconds",
            "filter",
            "created_by",
            "created_at",
            "updated_at",
        ],
        conflict: "(id)",
        insert_only: &[],
        label: "s.name",
        skips: &[
            NO_PROJECT,
            ("s.sampling < 0 OR s.sampling > 1", "a sampling rate outside 0 to 1"),
            (
                "s.delay_seconds < 0 OR s.delay_seconds > 86400",
                "a delay outside 0 to a day, which Loupe does not run",
            ),
        ],
    },
    Table {
        target: "evaluation_rule_evaluators",
        sources: &["job_configurations", "eval_templates"],
        select: |schema| {
            format!(
                "{cte} SELECT j.id AS rule_id, 0 AS position, j.created_at, j.id, j.score_name AS name, {fields} \
                 FROM job_configurations j ORDER BY j.id",
                cte = evaluators_cte(schema),
                fields = job_fields(),
            )
        },
        columns: &["rule_id", "evaluator_id", "position", "variable_mapping", "created_at"],
        conflict: "(rule_id, evaluator_id)",
        insert_only: &["created_at"],
        label: "s.rule_id",
        skips: &[
            (
                "NOT EXISTS (SELECT 1 FROM evaluation_rules r WHERE r.id = s.rule_id)",
                "its rule is not imported",
            ),
            (
                "NOT EXISTS (SELECT 1 FROM evaluators e WHERE e.id = s.evaluator_id)",
                "its evaluator is not imported",
            ),
        ],
    },
];

/// A template version's definition in Loupe's stored form, made and checked by the evaluators API's
/// own parser: the prompt (v3's one text, which the API takes as one user message), the template's
/// model if it names one (else the project's default evaluation model, as in v3), and the output:
/// v3's output definition where it has one Loupe reads, else its `output_schema`
/// (`{score, reasoning}` instructions for a numeric score).
pub fn shape_version(row: &mut Map<String, Value>, _: &Keys) -> Result<(), String> {
    let mut body = Map::new();
    body.insert("prompt".into(), row.get("prompt").cloned().unwrap_or(Value::Null));
    if let (Some(Value::String(provider)), Some(Value::String(model))) =
        (row.get("provider"), row.get("model"))
    {
        body.insert("modelConfig".into(), serde_json::json!({"provider": provider, "model": model}));
    }
    let v3_definition = row
        .get("output_definition")
        .filter(|d| serde_json::from_value::<definition::OutputDefinition>((*d).clone()).is_ok());
    let output = match (v3_definition, row.get("output_schema")) {
        (Some(output), _) => output.clone(),
        (None, Some(Value::Object(schema))) => {
            let mut output = serde_json::json!({"dataType": "NUMERIC"});
            for (v3, loupe) in
                [("reasoning", "scoreReasoningInstructions"), ("score", "scoreValueInstructions")]
            {
                if let Some(Value::String(text)) =
                    schema.get(v3).filter(|t| t.as_str().is_some_and(|t| !t.is_empty()))
                {
                    output[loupe] = Value::String(text.clone());
                }
            }
            output
        }
        _ => return Err("an output definition Loupe cannot read".to_owned()),
    };
    body.insert("outputDefinition".into(), output);
    let mut issues = Issues::default();
    let parsed = definition::parse_definition(&body, &mut issues);
    match (parsed, issues.0.first()) {
        (Some(parsed), None) => {
            let stored = serde_json::to_value(parsed).map_err(|e| e.to_string())?;
            row.insert("definition".into(), stored);
            Ok(())
        }
        (_, Some(issue)) => Err(format!("a template Loupe cannot run: {}", issue.message)),
        (None, None) => Err("a template Loupe cannot run".to_owned()),
    }
}

/// A job's filter and variable mapping in Loupe's terms, checked by Loupe's parsers, for its rule
/// and its rule's assignment: what does not translate refuses the job, with the reason.
pub fn shape_rule(row: &mut Map<String, Value>, _: &Keys) -> Result<(), String> {
    let text = |key: &str| row.get(key).and_then(Value::as_str).map(str::to_owned);
    if text("job_type").as_deref() != Some("EVAL") {
        return Err(format!(
            "job type {}: Loupe runs evaluations only",
            text("job_type").unwrap_or_default()
        ));
    }
    let Some(target) = text("target") else {
        return Err(format!(
            "target {}: Loupe's rules target observations (v3 `event`), traces or dataset run items",
            text("v3_target").unwrap_or_default()
        ));
    };
    if row.get("evaluator_id").is_none_or(Value::is_null) {
        return Err("its evaluator template was deleted in v3".to_owned());
    }
    if text("template_type").as_deref() != Some("LLM_AS_JUDGE") {
        return Err("it runs a code evaluator, which Loupe does not run".to_owned());
    }
    let filter = translate_filter(&target, row.get("filter"))?;
    let mapping = translate_mapping(&target, row.get("variable_mapping"))?;
    row.insert("filter".into(), Value::Array(filter));
    row.insert(
        "variable_mapping".into(),
        if mapping.is_empty() { Value::Null } else { Value::Array(mapping) },
    );
    Ok(())
}

/// v3 names a trace filter's column by its id or, in early releases, by its label.
const TRACE_COLUMNS: &[(&[&str], &str)] = &[
    (&["name", "Name", "traceName", "Trace Name"], "name"),
    (&["userId", "User ID", "User"], "userId"),
    (&["sessionId", "Session ID", "Session"], "sessionId"),
    (&["tags", "Tags"], "tags"),
    (&["environment", "Environment"], "environment"),
    (&["version", "Version"], "version"),
    (&["metadata", "Metadata"], "metadata"),
];
const DATASET_COLUMNS: &[(&[&str], &str)] = &[(&["datasetId", "Dataset", "dataset"], "datasetId")];

fn translate_filter(target: &str, filter: Option<&Value>) -> Result<Vec<Value>, String> {
    let conditions = match filter {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(conditions)) => conditions,
        Some(_) => return Err("a filter that is not a list".to_owned()),
    };
    let columns = match target {
        "trace" => Some(TRACE_COLUMNS),
        "dataset" => Some(DATASET_COLUMNS),
        // v3's observation-level filters already use the columns Loupe's observation rules take.
        _ => None,
    };
    let mut translated = Vec::with_capacity(conditions.len());
    for condition in conditions {
        let mut condition = condition.as_object().cloned().unwrap_or_default();
        let column = condition.get("column").and_then(Value::as_str).unwrap_or_default().to_owned();
        if let Some(columns) = columns {
            let Some((_, loupe)) = columns.iter().find(|(names, _)| names.contains(&column.as_str())) else {
                return Err(format!("a filter on {column:?}, which Loupe's {target} rules cannot filter on"));
            };
            condition.insert("column".into(), Value::from(*loupe));
        }
        translated.push(Value::Object(condition));
    }
    let mut issues = Issues::default();
    let parsed = evaluation::filter::parse(Some(&Value::Array(translated)), &mut issues);
    match issues.0.first() {
        Some(issue) => Err(format!("a filter Loupe cannot apply: {}", issue.message)),
        None => Ok(parsed),
    }
}

/// v3's `{templateVariable, langfuseObject, objectName, selectedColumnId, jsonSelector}` as
/// Loupe's `{variable, source, jsonPath}`. Trace rules read the trace; dataset rules the trace and
/// the run's dataset item; observation rules the observation itself.
fn translate_mapping(target: &str, mapping: Option<&Value>) -> Result<Vec<Value>, String> {
    let Some(Value::Array(items)) = mapping else { return Ok(Vec::new()) };
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let field = |key: &str| item.get(key).and_then(Value::as_str).unwrap_or_default();
        let (variable, column) = (field("templateVariable"), field("selectedColumnId"));
        let object = if target == "observation" { "observation" } else { field("langfuseObject") };
        let source = match (object, column) {
            ("trace" | "observation", "input" | "output" | "metadata") => column,
            ("observation", "tool_calls") => column,
            ("dataset_item", "expected_output") if target == "dataset" => "expected_output",
            ("dataset_item", "metadata") if target == "dataset" => "experiment_item_metadata",
            ("trace" | "dataset_item" | "observation", _) => {
                return Err(format!(
                    "variable {variable} reads {object} {column}, which Loupe's {target} rules do not"
                ));
            }
            (other, _) => {
                return Err(format!(
                    "variable {variable} reads the {other} named {:?}; Loupe's {target} rules read the {} itself",
                    field("objectName"),
                    if target == "dataset" { "trace and the dataset item" } else { target }
                ));
            }
        };
        let json_path = match item.get("jsonSelector").and_then(Value::as_str).filter(|s| !s.is_empty()) {
            None => Value::Null,
            Some(selector) => {
                let selector =
                    if selector.starts_with('$') { selector.to_owned() } else { format!("$.{selector}") };
                JsonPath::parse(&selector)
                    .map_err(|e| format!("variable {variable}: JSON selector {selector:?} ({e})"))?;
                Value::String(selector)
            }
        };
        out.push(serde_json::json!({"variable": variable, "source": source, "jsonPath": json_path}));
    }
    Ok(out)
}
