//! A Langfuse v3 PostgreSQL database for the takeover tests: the schema its prisma migrations
//! leave (`tests/fixtures/langfuse-v3/schema.sql`, written from Langfuse's public schema) with a
//! small team's rows (`seed.sql`), in a database of its own.

use crate::TestPostgres;

pub const SCHEMA: &str = include_str!("../../../tests/fixtures/langfuse-v3/schema.sql");
pub const SEED: &str = include_str!("../../../tests/fixtures/langfuse-v3/seed.sql");

/// The seeded project key pair (its secret hashed with bcrypt, as v3 does).
pub const PUBLIC_KEY: &str = "pk-lf-v3-project";
pub const SECRET_KEY: &str = "sk-lf-v3-project-secret";
pub const ORG_PUBLIC_KEY: &str = "pk-lf-v3-org";
pub const ORG_SECRET_KEY: &str = "sk-lf-v3-org-secret";
/// The seeded password user.
pub const PASSWORD_EMAIL: &str = "pat@acme.test";
pub const PASSWORD: &str = "v3 password!";
/// A seeded user whose address a Loupe user may already have.
pub const CLASHING_EMAIL: &str = "clash@acme.test";
pub const PROJECT_ID: &str = "proj-v3";
pub const ORG_ID: &str = "org-v3";

/// A new database holding the v3 schema and rows.
pub async fn source() -> TestPostgres {
    let db = TestPostgres::create().await;
    let pool = db.pool().await;
    sqlx::raw_sql(SCHEMA).execute(&pool).await.expect("create the v3 schema");
    sqlx::raw_sql(SEED).execute(&pool).await.expect("fill the v3 database");
    pool.close().await;
    db
}
