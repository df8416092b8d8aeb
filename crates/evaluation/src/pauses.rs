//! Evaluators paused because the LLM connection they call is gone (docs/evaluators.md). Deleting a
//! connection pauses every evaluator whose newest definition names its provider; a connection for
//! that provider (re)created resumes them, as does a new definition. While paused, their
//! executions wait (the executor skips them) instead of failing one by one.

use sqlx::PgPool;

use storage::Result;

/// The `pausedReason` of an evaluator whose provider has no LLM connection any more.
pub const CONNECTION_DELETED: &str = "llm_connection_deleted";

/// The newest definition's `modelConfig.provider` of evaluator `e` (null without a modelConfig).
const NEWEST_PROVIDER: &str = "(SELECT v.definition -> 'modelConfig' ->> 'provider' FROM evaluator_versions v
      WHERE v.evaluator_id = e.id ORDER BY v.version DESC LIMIT 1)";

/// After the connection of `provider` was deleted: pauses the project's active evaluators that
/// call it. Guarded by the connection's absence, so a connection re-created meanwhile wins.
/// Returns how many were paused.
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
    Ok(done.rows_affected())
}

/// After a connection for `provider` was saved: resumes the evaluators paused for its absence.
/// Returns how many were resumed.
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
    Ok(done.rows_affected())
}
