//! Secrets a deployment generates for itself, once, and keeps in PostgreSQL: whichever instance
//! asks first creates the value, and every web and worker replica then reads the same one.
//!
//! The media URL signing key is one: web's media URLs are the credential (as a presigned S3 URL
//! is), and a key derived from `SALT` alone would be a public value wherever `SALT` was left unset
//! or at a documented placeholder.

use ring::rand::{SecureRandom, SystemRandom};
use sqlx::PgPool;

use crate::{Error, ErrorKind, Result};

/// The key web signs its own media URLs with (mixed with `SALT`).
pub const MEDIA_URL_KEY: &str = "media_url_key";

const KEY_BYTES: usize = 32;

/// The secret named `name`, created with 32 random bytes if no instance has made it yet.
pub async fn get_or_create(pool: &PgPool, name: &str) -> Result<Vec<u8>> {
    let mut fresh = [0u8; KEY_BYTES];
    SystemRandom::new()
        .fill(&mut fresh)
        .map_err(|_| Error::new(ErrorKind::Internal, "the system random source failed"))?;
    // Of several instances starting together, one inserts; the others' inserts wait on its
    // commit (the primary key) and do nothing, and the read below, a statement of its own, sees
    // the committed row.
    sqlx::query("INSERT INTO instance_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING")
        .bind(name)
        .bind(&fresh[..])
        .execute(pool)
        .await?;
    Ok(sqlx::query_scalar("SELECT value FROM instance_secrets WHERE name = $1")
        .bind(name)
        .fetch_one(pool)
        .await?)
}
