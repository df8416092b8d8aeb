//! What the instance keeps about a person beyond their account: whether they are an instance admin,
//! and their UI preferences (`users.instance_admin`, `users.preferences`).

use serde_json::Value;
use sqlx::PgPool;

use crate::Result;

/// Whether the person may see the instance's background migrations and mark other admins.
pub async fn is_instance_admin(pool: &PgPool, user_id: &str) -> Result<bool> {
    Ok(sqlx::query_scalar("SELECT instance_admin FROM users WHERE id = $1")
        .bind(user_id)
        .fetch_optional(pool)
        .await?
        .unwrap_or(false))
}

/// Marks or unmarks an instance admin; `false` when there is no such person.
pub async fn set_instance_admin(pool: &PgPool, user_id: &str, admin: bool) -> Result<bool> {
    let updated = sqlx::query("UPDATE users SET instance_admin = $2, updated_at = now() WHERE id = $1")
        .bind(user_id)
        .bind(admin)
        .execute(pool)
        .await?;
    Ok(updated.rows_affected() == 1)
}

/// A person as the instance admin's list shows them.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Person {
    pub id: String,
    pub email: String,
    pub name: Option<String>,
    pub instance_admin: bool,
    pub created_at: chrono::DateTime<chrono::Utc>,
}

/// Every person of the instance, oldest first, one page (`offset`, `limit`), and how many there are.
pub async fn people(pool: &PgPool, offset: i64, limit: i64) -> Result<(Vec<Person>, i64)> {
    let rows = sqlx::query_as(
        "SELECT id, email, name, instance_admin, created_at FROM users ORDER BY created_at, id \
         OFFSET $1 LIMIT $2",
    )
    .bind(offset)
    .bind(limit)
    .fetch_all(pool)
    .await?;
    let total = sqlx::query_scalar("SELECT count(*) FROM users").fetch_one(pool).await?;
    Ok((rows, total))
}

/// The person's stored preferences (an object; `{}` when none were saved).
pub async fn preferences(pool: &PgPool, user_id: &str) -> Result<Value> {
    Ok(sqlx::query_scalar("SELECT preferences FROM users WHERE id = $1")
        .bind(user_id)
        .fetch_optional(pool)
        .await?
        .unwrap_or_else(|| Value::Object(Default::default())))
}

/// Merges `changes` (an object) into the stored preferences and returns the result: keys absent from
/// `changes` keep their value, a `null` removes one.
pub async fn update_preferences(pool: &PgPool, user_id: &str, changes: &Value) -> Result<Value> {
    Ok(sqlx::query_scalar(
        "UPDATE users SET preferences = jsonb_strip_nulls(preferences || $2), updated_at = now() \
         WHERE id = $1 RETURNING preferences",
    )
    .bind(user_id)
    .bind(changes)
    .fetch_optional(pool)
    .await?
    .unwrap_or_else(|| Value::Object(Default::default())))
}
