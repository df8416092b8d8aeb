//! Evaluators paused because the LLM connection they call is gone (docs/evaluators.md). Deleting a
//! connection pauses every evaluator whose newest definition names its provider; a connection for
//! that provider (re)created resumes them, as does a new definition. Evaluators without a
//! `modelConfig` call the project's default model, which any connection with a custom model
//! serves: they pause while no connection has one and resume when one does. While paused, their
//! executions wait (the executor skips them) instead of failing one by one.

use sqlx::PgPool;

use storage::Result;

/// The `pausedReason` of an evaluator whose provider has no LLM connection any more.
pub const CONNECTION_DELETED: &str = "llm_connection_deleted";

/// The newest definition's `modelConfig.provider` of evaluator `e` (null without a modelConfig).
const NEWEST_PROVIDER: &str = "(SELECT v.definition -> 'modelConfig' ->> 'provider' FROM evaluator_versions v
      WHERE v.evaluator_id = e.id ORDER BY v.version DESC LIMIT 1)";

/// Whether the project has a connection that serves the default evaluation model: the worker takes
/// the first custom model of the oldest connection with one (`bins/worker/src/evaluations.rs`).
const DEFAULT_MODEL_SERVED: &str =
    "EXISTS (SELECT 1 FROM llm_api_keys k WHERE k.project_id = $1 AND cardinality(k.custom_models) > 0)";

/// After the connection of `provider` was deleted: pauses the project's active evaluators that
/// call it. Guarded by the connection's absence, so a connection re-created meanwhile wins.
/// The same for the evaluators on the default model when no connection with a custom model is
/// left. Returns how many were paused.
pub async fn connection_deleted(db: &PgPool, project: &str, provider: &str) -> Result<u64> {
    let message = format!(
        "The LLM connection for provider {provider:?} was deleted. Add a connection for {provider:?} \
         (PUT /api/public/llm-connections) or give the evaluator another modelConfig to resume it."
    );
    let sql = format!(
        "UPDATE evaluators e SET paused_at = now(), paused_reason = $3, paused_message = $4, updated_at = now()
         WHERE e.project_id = $1 AND e.paused_at IS NULL AND {NEWEST_PROVIDER} = $2
           AND NOT EXISTS (SELECT 1 FROM llm_api_keys k WHERE k.project_id = $1 AND k.provider = $2)"
    );
    let done = sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(project)
        .bind(provider)
        .bind(CONNECTION_DELETED)
        .bind(message)
        .execute(db)
        .await?;
    Ok(done.rows_affected() + default_model_settled(db, project).await?)
}

/// After a connection for `provider` was saved: resumes the evaluators paused for its absence, and
/// settles those on the default model (a save may add the first custom model or drop the last).
/// Returns how many changed.
pub async fn connection_saved(db: &PgPool, project: &str, provider: &str) -> Result<u64> {
    let sql = format!(
        "UPDATE evaluators e SET paused_at = NULL, paused_reason = NULL, paused_message = NULL, updated_at = now()
         WHERE e.project_id = $1 AND e.paused_reason = $3 AND {NEWEST_PROVIDER} = $2
           AND EXISTS (SELECT 1 FROM llm_api_keys k WHERE k.project_id = $1 AND k.provider = $2)"
    );
    let done = sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(project)
        .bind(provider)
        .bind(CONNECTION_DELETED)
        .execute(db)
        .await?;
    Ok(done.rows_affected() + default_model_settled(db, project).await?)
}

/// Pauses the project's active evaluators without a `modelConfig` while no connection serves the
/// default model, and resumes the ones paused for that once one does. Each statement checks the
/// connections itself, so a save and a delete racing leave the state the last one saw. Returns
/// how many changed.
async fn default_model_settled(db: &PgPool, project: &str) -> Result<u64> {
    let message = "No LLM connection of this project has a custom model any more, so the project's \
                   default evaluation model is gone. Save a connection with customModels \
                   (PUT /api/public/llm-connections) or give the evaluator a modelConfig to resume it.";
    let pause = format!(
        "UPDATE evaluators e SET paused_at = now(), paused_reason = $2, paused_message = $3, updated_at = now()
         WHERE e.project_id = $1 AND e.paused_at IS NULL AND {NEWEST_PROVIDER} IS NULL
           AND NOT {DEFAULT_MODEL_SERVED}"
    );
    let paused = sqlx::query(sqlx::AssertSqlSafe(pause))
        .bind(project)
        .bind(CONNECTION_DELETED)
        .bind(message)
        .execute(db)
        .await?;
    let resume = format!(
        "UPDATE evaluators e SET paused_at = NULL, paused_reason = NULL, paused_message = NULL, updated_at = now()
         WHERE e.project_id = $1 AND e.paused_reason = $2 AND {NEWEST_PROVIDER} IS NULL
           AND {DEFAULT_MODEL_SERVED}"
    );
    let resumed =
        sqlx::query(sqlx::AssertSqlSafe(resume)).bind(project).bind(CONNECTION_DELETED).execute(db).await?;
    Ok(paused.rows_affected() + resumed.rows_affected())
}
