//! Claiming and running executions: at most `max_per_project` running per project across every
//! worker (claims serialise on a per-project advisory lock and count the live leases), at most
//! `max_per_worker` in this worker, each claimed row leased to this worker so no two run it.

use std::sync::Arc;

use bytes::Bytes;
use chrono::Utc;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use ingestion::accept::Sender;

use super::judge::{self, JudgeCall, ScoreTarget};
use super::{Engine, source};
use crate::definition::VariableMapping;

pub(super) struct Executor {
    engine: Engine,
    slots: Arc<Semaphore>,
}

#[derive(Debug, Clone, sqlx::FromRow)]
struct Claimed {
    id: String,
    project_id: String,
    rule_id: Option<String>,
    evaluator_id: Option<String>,
    trace_id: String,
    observation_id: String,
    /// `observation` or `trace`.
    object_kind: String,
    attempts: i32,
}

/// How an attempt ended.
enum Outcome {
    Completed {
        version: String,
        score: String,
        judge_trace: String,
    },
    /// Try again after the wait (a 429, a 5xx, a timeout, an unavailable store).
    Retry {
        error: String,
        wait: Option<std::time::Duration>,
    },
    Failed(String),
    Cancelled(String),
    /// The evaluator was paused after the claim: back to waiting, the attempt not counted.
    Paused,
}

impl Executor {
    pub(super) fn new(engine: Engine) -> Self {
        let slots = Arc::new(Semaphore::new(engine.settings.max_per_worker));
        Self { engine, slots }
    }

    pub(super) async fn run(self, shutdown: CancellationToken) {
        loop {
            match self.claim_all().await {
                Ok(claimed) if claimed > 0 => continue,
                Ok(_) => {}
                Err(error) => tracing::warn!(%error, "evaluations: claiming executions failed; retrying"),
            }
            if !self.engine.idle(&shutdown).await {
                // In-flight executions finish or keep their lease, which runs out for another worker.
                return;
            }
        }
    }

    /// Claims what this worker has room for, project by project; how many it started.
    async fn claim_all(&self) -> storage::Result<usize> {
        let projects: Vec<(String,)> = sqlx::query_as(
            "SELECT DISTINCT project_id FROM evaluation_executions x
             WHERE not_before <= now() AND (status = 'pending' OR (status = 'running' AND lease_until < now()))
               AND NOT EXISTS (SELECT 1 FROM evaluators e WHERE e.id = x.evaluator_id AND e.paused_at IS NOT NULL)",
        )
        .fetch_all(&self.engine.postgres)
        .await?;
        let mut started = 0;
        for (project,) in projects {
            let room = self.slots.available_permits();
            if room == 0 {
                break;
            }
            for claimed in self.claim(&project, room).await? {
                let permit = self.slots.clone().acquire_owned().await.expect("the semaphore is never closed");
                let engine = self.engine.clone();
                started += 1;
                tokio::spawn(async move {
                    let _permit = permit;
                    let outcome = attempt(&engine, &claimed).await;
                    if let Err(error) = finish(&engine, &claimed, outcome).await {
                        tracing::warn!(%error, execution = %claimed.id, "evaluations: recording an outcome failed; the lease will free it");
                    }
                });
            }
        }
        Ok(started)
    }

    async fn claim(&self, project: &str, room: usize) -> storage::Result<Vec<Claimed>> {
        let settings = &self.engine.settings;
        let mut tx = self.engine.postgres.begin().await?;
        sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended('loupe-evaluations:' || $1, 0))")
            .bind(project)
            .execute(&mut *tx)
            .await?;
        let (running,): (i64,) = sqlx::query_as(
            "SELECT count(*) FROM evaluation_executions WHERE project_id = $1 AND status = 'running' AND lease_until >= now()",
        )
        .bind(project)
        .fetch_one(&mut *tx)
        .await?;
        let free = (settings.max_per_project as i64 - running).min(room as i64);
        if free <= 0 {
            return Ok(Vec::new());
        }
        let claimed: Vec<Claimed> = sqlx::query_as(
            "UPDATE evaluation_executions SET status = 'running', lease_owner = $2,
                lease_until = now() + make_interval(secs => $3), attempts = attempts + 1,
                started_at = coalesce(started_at, now())
             WHERE id IN (SELECT id FROM evaluation_executions x
                          WHERE project_id = $1 AND not_before <= now()
                            AND (status = 'pending' OR (status = 'running' AND lease_until < now()))
                            -- a paused evaluator's executions wait for it to resume
                            AND NOT EXISTS (SELECT 1 FROM evaluators e WHERE e.id = x.evaluator_id AND e.paused_at IS NOT NULL)
                          ORDER BY not_before, id LIMIT $4 FOR UPDATE SKIP LOCKED)
             RETURNING id, project_id, rule_id, evaluator_id, trace_id, observation_id, object_kind, attempts",
        )
        .bind(project)
        .bind(&self.engine.holder)
        .bind(settings.lease.as_secs_f64())
        .bind(free)
        .fetch_all(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(claimed)
    }
}

/// The wait before retry `attempt` (1-based): doubling from `backoff`, capped.
fn backoff(engine: &Engine, attempt: i32) -> std::time::Duration {
    let factor = 2u32.saturating_pow(attempt.saturating_sub(1).clamp(0, 16) as u32);
    engine.settings.backoff.saturating_mul(factor).min(engine.settings.max_backoff)
}

async fn finish(engine: &Engine, claimed: &Claimed, outcome: Outcome) -> storage::Result<()> {
    let db = &engine.postgres;
    let fenced = "WHERE id = $1 AND lease_owner = $2 AND status = 'running'";
    match outcome {
        Outcome::Completed { version, score, judge_trace } => {
            let sql = format!(
                "UPDATE evaluation_executions SET status = 'completed', finished_at = now(), error = NULL, lease_until = NULL,
                    evaluator_version_id = $3, score_id = $4, execution_trace_id = $5 {fenced}"
            );
            sqlx::query(sqlx::AssertSqlSafe(sql))
                .bind(&claimed.id)
                .bind(&engine.holder)
                .bind(version)
                .bind(score)
                .bind(judge_trace)
                .execute(db)
                .await?;
        }
        Outcome::Retry { error, wait } if claimed.attempts < engine.settings.max_attempts => {
            let wait = backoff(engine, claimed.attempts).max(wait.unwrap_or_default());
            tracing::info!(execution = %claimed.id, attempt = claimed.attempts, ?wait, %error, "evaluations: retrying");
            let sql = format!(
                "UPDATE evaluation_executions SET status = 'pending', error = $3, lease_until = NULL,
                    not_before = now() + make_interval(secs => $4) {fenced}"
            );
            sqlx::query(sqlx::AssertSqlSafe(sql))
                .bind(&claimed.id)
                .bind(&engine.holder)
                .bind(error)
                .bind(wait.as_secs_f64())
                .execute(db)
                .await?;
        }
        Outcome::Retry { error, .. } | Outcome::Failed(error) => {
            tracing::info!(execution = %claimed.id, %error, "evaluations: execution failed");
            let sql = format!(
                "UPDATE evaluation_executions SET status = 'error', error = $3, finished_at = now(), lease_until = NULL {fenced}"
            );
            sqlx::query(sqlx::AssertSqlSafe(sql))
                .bind(&claimed.id)
                .bind(&engine.holder)
                .bind(error)
                .execute(db)
                .await?;
        }
        Outcome::Paused => {
            let sql = format!(
                "UPDATE evaluation_executions SET status = 'pending', attempts = attempts - 1, lease_until = NULL {fenced}"
            );
            sqlx::query(sqlx::AssertSqlSafe(sql)).bind(&claimed.id).bind(&engine.holder).execute(db).await?;
        }
        Outcome::Cancelled(why) => {
            let sql = format!(
                "UPDATE evaluation_executions SET status = 'cancelled', error = $3, finished_at = now(), lease_until = NULL {fenced}"
            );
            sqlx::query(sqlx::AssertSqlSafe(sql))
                .bind(&claimed.id)
                .bind(&engine.holder)
                .bind(why)
                .execute(db)
                .await?;
        }
    }
    Ok(())
}

fn transient(error: impl std::fmt::Display) -> Outcome {
    Outcome::Retry { error: error.to_string(), wait: None }
}

/// The sender judge traces and scores are ingested as: the project, under a key name no client
/// can have, counted as a v4 producer.
fn sender(project: &str) -> Sender {
    Sender {
        project_id: project.to_owned(),
        public_key: "loupe-evaluator".to_owned(),
        sdk: domain::sdk::SdkInfo {
            name: Some("loupe-evaluator".to_owned()),
            version: Some(env!("CARGO_PKG_VERSION").to_owned()),
            ingestion_version: Some(domain::sdk::MAX_INGESTION_VERSION),
        },
        scores_only: false,
    }
}

async fn attempt(engine: &Engine, claimed: &Claimed) -> Outcome {
    let (Some(rule_id), Some(evaluator_id)) = (&claimed.rule_id, &claimed.evaluator_id) else {
        return Outcome::Cancelled("its rule or evaluator was deleted".to_owned());
    };
    let db = &engine.postgres;
    let evaluator = match crate::evaluators::newest(db, evaluator_id).await {
        Ok(Some(found)) => found,
        Ok(None) => return Outcome::Cancelled("its evaluator was deleted".to_owned()),
        Err(error) => return transient(error),
    };
    let (version, name, definition, paused) = evaluator;
    if paused {
        return Outcome::Paused;
    }
    let assignment: Result<Option<(Option<serde_json::Value>,)>, _> = sqlx::query_as(
        "SELECT variable_mapping FROM evaluation_rule_evaluators WHERE rule_id = $1 AND evaluator_id = $2",
    )
    .bind(rule_id)
    .bind(evaluator_id)
    .fetch_optional(db)
    .await;
    let mapping: Vec<VariableMapping> = match assignment {
        Ok(Some((Some(over),))) => serde_json::from_value(over).unwrap_or_default(),
        Ok(Some((None,))) => definition.variable_mapping.clone().unwrap_or_default(),
        // An unassigned evaluator (a rule changed since) still runs with its default mapping.
        Ok(None) => definition.variable_mapping.clone().unwrap_or_default(),
        Err(error) => return transient(error),
    };
    let (ch, project) = (&engine.clickhouse, &claimed.project_id);
    // A dataset run item is evaluated on its trace, with the item's expected output and metadata.
    let run_item = match claimed.object_kind.as_str() {
        "dataset" => match source::run_item(ch, project, &claimed.observation_id).await {
            Ok(Some(item)) => Some(item),
            Ok(None) => return Outcome::Failed("the dataset run item was not found (deleted?)".to_owned()),
            Err(error) => return transient(error),
        },
        _ => None,
    };
    let found = match (claimed.object_kind.as_str(), &run_item) {
        ("trace", _) => source::trace(ch, project, &claimed.trace_id).await,
        (_, Some(item)) => source::trace(ch, project, &item.trace_id).await,
        _ => source::observation(ch, project, &claimed.trace_id, &claimed.observation_id).await,
    };
    let mut observation = match found {
        Ok(Some(o)) => o,
        // A run item may be recorded before its trace is stored: worth another attempt.
        Ok(None) if run_item.is_some() => return transient("the dataset run item's trace is not stored yet"),
        Ok(None) => return Outcome::Failed(format!("the {} was not found (deleted?)", claimed.object_kind)),
        Err(error) => return transient(error),
    };
    if let Some(item) = &run_item {
        observation.span_id.clone_from(&item.observation_id);
        observation.experiment_item_expected_output.clone_from(&item.expected_output);
        observation.experiment_item_metadata_names.clone_from(&item.metadata_names);
        observation.experiment_item_metadata_values.clone_from(&item.metadata_values);
    }
    let resolved = match &definition.model_config {
        Some(config) => engine
            .connections
            .named(&claimed.project_id, &config.provider)
            .await
            .map(|c| c.map(|c| (c, config.model.clone())))
            .map_err(|e| (e, format!("LLM connection {:?}", config.provider))),
        None => engine
            .connections
            .default_model(&claimed.project_id)
            .await
            .map_err(|e| (e, "default model".to_owned())),
    };
    let (connection, model) = match resolved {
        Ok(Some(found)) => found,
        Ok(None) => {
            return Outcome::Failed(match &definition.model_config {
                Some(config) => format!("the project has no LLM connection named {:?} (PUT /api/public/llm-connections)", config.provider),
                None => "the evaluator has no modelConfig and the project has no default evaluation model: add an LLM connection with a custom model (docs/evaluators.md)".to_owned(),
            });
        }
        Err((error, what)) => return Outcome::Failed(format!("the {what} cannot be used: {error}")),
    };
    let messages = judge::messages(&definition, &mapping, &observation);
    let request = llm::ChatRequest {
        model: model.clone(),
        messages: messages.clone(),
        params: llm::ModelParams { temperature: Some(0.0), ..Default::default() },
        output: Some(judge::output_schema(&definition.output_definition)),
    };
    let judge_trace_id = judge::judge_trace_id(&claimed.id);
    let target = ScoreTarget {
        execution_id: &claimed.id,
        rule_id,
        evaluator_id,
        name: &name,
        trace_id: &observation.trace_id,
        observation_id: (claimed.object_kind != "trace" && !observation.span_id.is_empty())
            .then_some(observation.span_id.as_str()),
        environment: &observation.environment,
        judge_trace_id: &judge_trace_id,
    };
    let started = Utc::now();
    let reply = engine.llm.chat(&connection, &request).await;
    let ended = Utc::now();
    let sender = sender(&claimed.project_id);
    let (text, usage, error) = match &reply {
        Ok(r) => (r.text.clone(), r.usage, None),
        Err(e) => (String::new(), None, Some(e.to_string())),
    };
    let call = JudgeCall {
        target: &target,
        model: &model,
        messages: &messages,
        reply: &text,
        usage: usage.as_ref(),
        started,
        ended,
        error: error.as_deref(),
    };
    let trace = Bytes::from(judge::judge_trace(&call).to_string());
    if let Err(error) = engine.ingestion.otlp(&sender, trace, Some("application/json"), None).await {
        tracing::warn!(%error, execution = %claimed.id, "evaluations: the judge call's trace was not accepted");
    }
    let response = match reply {
        Ok(response) => response,
        Err(error) if error.retryable() => {
            return Outcome::Retry { wait: error.retry_after(), error: error.to_string() };
        }
        Err(error) => return Outcome::Failed(error.to_string()),
    };
    let object = response.structured.clone().or_else(|| serde_json::from_str(&response.text).ok());
    let Some(object) = object else {
        return Outcome::Failed(format!("the judge did not answer with a JSON object: {}", response.text));
    };
    let (values, reasoning) = match judge::read_reply(&definition.output_definition, &object) {
        Ok(read) => read,
        Err(why) => return Outcome::Failed(why),
    };
    let batch = Bytes::from(judge::score_batch(&target, &values, &reasoning).to_string());
    match engine.ingestion.batch(&sender, batch).await {
        Ok(answer) if answer.errors.is_empty() => {}
        Ok(answer) => {
            let why = serde_json::to_string(&answer.errors).unwrap_or_default();
            return Outcome::Failed(format!("the score was refused by ingestion: {why}"));
        }
        Err(error) => return transient(format!("the score was not accepted: {}", error.message)),
    }
    Outcome::Completed { version, score: judge::score_id(&claimed.id, 0), judge_trace: judge_trace_id }
}
