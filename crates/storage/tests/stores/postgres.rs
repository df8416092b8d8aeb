//! Projects, API keys and the headless bootstrap on a real PostgreSQL.

use domain::auth::secret_matches;
use domain::config::BootstrapSettings;
use secrecy::SecretString;
use storage::ErrorKind;
use storage::projects::{bootstrap, find_api_key, find_project};
use test_support::TestPostgres;

fn settings(project: &str, public_key: &str, secret: &str) -> BootstrapSettings {
    BootstrapSettings {
        org_id: "org-1".into(),
        org_name: "Org One".into(),
        project_id: project.into(),
        project_name: format!("Project {project}"),
        public_key: public_key.into(),
        secret_key: secret.to_owned().into(),
    }
}

async fn migrated() -> (TestPostgres, sqlx::PgPool) {
    let pg = TestPostgres::create().await;
    let pool = pg.pool().await;
    storage::postgres::MIGRATOR.run(&pool).await.unwrap();
    (pg, pool)
}

#[tokio::test]
async fn bootstrap_is_idempotent_and_stores_only_a_hash() {
    let (_pg, pool) = migrated().await;
    let salt: SecretString = "salt".to_owned().into();
    let wanted = settings("p1", "pk-lf-1", "sk-lf-secret");
    bootstrap(&pool, &wanted, &salt).await.unwrap();
    bootstrap(&pool, &wanted, &salt).await.unwrap();

    let key = find_api_key(&pool, "pk-lf-1").await.unwrap().unwrap();
    assert_eq!(key.project.id, "p1");
    assert_eq!(key.project.org_name, "Org One");
    assert_ne!(key.hashed_secret_key, "sk-lf-secret");
    assert!(secret_matches("sk-lf-secret", &key.hashed_secret_key, &salt));
    let keys: i64 = sqlx::query_scalar("SELECT count(*) FROM api_keys").fetch_one(&pool).await.unwrap();
    assert_eq!(keys, 1);
    let stored_plain: i64 =
        sqlx::query_scalar("SELECT count(*) FROM api_keys WHERE hashed_secret_key LIKE '%sk-lf-secret%' OR display_secret_key = 'sk-lf-secret'")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(stored_plain, 0);
}

#[tokio::test]
async fn a_rotated_secret_replaces_the_old_one() {
    let (_pg, pool) = migrated().await;
    let salt: SecretString = "salt".to_owned().into();
    bootstrap(&pool, &settings("p1", "pk-lf-1", "sk-lf-old"), &salt).await.unwrap();
    bootstrap(&pool, &settings("p1", "pk-lf-1", "sk-lf-new"), &salt).await.unwrap();
    let key = find_api_key(&pool, "pk-lf-1").await.unwrap().unwrap();
    assert!(secret_matches("sk-lf-new", &key.hashed_secret_key, &salt));
    assert!(!secret_matches("sk-lf-old", &key.hashed_secret_key, &salt));
}

#[tokio::test]
async fn a_public_key_of_another_project_is_not_taken_over() {
    let (_pg, pool) = migrated().await;
    let salt: SecretString = "salt".to_owned().into();
    bootstrap(&pool, &settings("p1", "pk-lf-1", "sk-lf-1"), &salt).await.unwrap();
    let error = bootstrap(&pool, &settings("p2", "pk-lf-1", "sk-lf-2"), &salt).await.unwrap_err();
    assert_eq!(error.kind, ErrorKind::Conflict);
    // The failed attempt rolled back: no project p2 was left behind.
    assert!(find_project(&pool, "p2").await.unwrap().is_none());
    assert_eq!(find_api_key(&pool, "pk-lf-1").await.unwrap().unwrap().project.id, "p1");
}

#[tokio::test]
async fn unknown_keys_are_not_found() {
    let (_pg, pool) = migrated().await;
    assert!(find_api_key(&pool, "pk-lf-nobody").await.unwrap().is_none());
}

#[tokio::test]
async fn a_generated_secret_is_made_once_and_every_instance_reads_the_same() {
    use storage::instance_secrets::{MEDIA_URL_KEY, get_or_create};
    let (_pg, pool) = migrated().await;
    // Replicas starting together: one value wins, and all of them get it.
    let (a, b, c) = tokio::join!(
        get_or_create(&pool, MEDIA_URL_KEY),
        get_or_create(&pool, MEDIA_URL_KEY),
        get_or_create(&pool, MEDIA_URL_KEY)
    );
    let (a, b, c) = (a.unwrap(), b.unwrap(), c.unwrap());
    assert_eq!(a.len(), 32);
    assert!(a == b && b == c);
    assert_ne!(a, vec![0; 32]);
    assert_eq!(get_or_create(&pool, MEDIA_URL_KEY).await.unwrap(), a, "a restart reads it back");
    assert_ne!(get_or_create(&pool, "another").await.unwrap(), a, "each name its own random value");
}
