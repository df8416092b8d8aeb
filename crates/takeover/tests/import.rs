//! The import as a library against real databases: a v3 database built from Langfuse's schema
//! (`test_support::langfuse_v3`), Loupe's migrated schema, the import, then what Loupe's tables
//! hold; a re-run changes nothing, a dry run writes nothing, an unknown schema version is refused.

#![allow(clippy::unwrap_used)]

use secrecy::SecretString;
use sqlx::PgPool;

use domain::secrets::EncryptionKey;
use takeover::{ImportError, NEWEST_SUPPORTED, Options, Report};
use test_support::{TestPostgres, langfuse_v3};

const LOUPE_KEY: &str = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90";
const V3_KEY: &str = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0";

async fn loupe() -> (TestPostgres, PgPool) {
    let db = TestPostgres::create().await;
    let pool = db.pool().await;
    storage::postgres::MIGRATOR.run(&pool).await.unwrap();
    (db, pool)
}

fn options(source: &TestPostgres, dry_run: bool) -> Options {
    Options {
        source_url: source.url.clone(),
        v3_salt: SecretString::from("v3-salt"),
        v3_encryption_key: Some(EncryptionKey::parse(V3_KEY).unwrap()),
        loupe_salt: SecretString::from("loupe-salt"),
        loupe_encryption_key: Some(EncryptionKey::parse(LOUPE_KEY).unwrap()),
        dry_run,
        page_rows: 2,
    }
}

async fn import(target: &PgPool, options: &Options) -> Report {
    let mut lines = Vec::new();
    let report = takeover::run(target, options, &mut |line: &str| lines.push(line.to_owned())).await.unwrap();
    assert!(lines.iter().any(|l| l.starts_with("prompts: ")), "progress per table: {lines:?}");
    report
}

async fn count(pool: &PgPool, table: &str) -> i64 {
    sqlx::query_scalar(sqlx::AssertSqlSafe(format!("SELECT count(*) FROM {table}")))
        .fetch_one(pool)
        .await
        .unwrap()
}

#[tokio::test]
async fn imports_a_v3_database_once_and_re_runs_change_nothing() {
    let source = langfuse_v3::source().await;
    let v3 = source.pool().await;
    // An LLM connection, encrypted with v3's ENCRYPTION_KEY: reported, and it checks the key.
    let secret = EncryptionKey::parse(V3_KEY).unwrap().encrypt("sk-openai");
    sqlx::query(
        "INSERT INTO llm_api_keys (id, provider, adapter, display_secret_key, secret_key, project_id) \
                 VALUES ('llm-1', 'openai', 'openai', '...enai', $1, 'proj-v3')",
    )
    .bind(secret)
    .execute(&v3)
    .await
    .unwrap();
    // The export's bucket credentials, encrypted with v3's key too.
    sqlx::query("UPDATE blob_storage_integrations SET access_key_id = 'AKIA0000', secret_access_key = $1")
        .bind(EncryptionKey::parse(V3_KEY).unwrap().encrypt("blob-secret"))
        .execute(&v3)
        .await
        .unwrap();
    let (_db, loupe) = loupe().await;
    // A Loupe user already has one of the v3 addresses, under another id.
    sqlx::query("INSERT INTO users (id, email) VALUES ('loupe-clash', 'CLASH@acme.test')")
        .execute(&loupe)
        .await
        .unwrap();

    let dry = import(&loupe, &options(&source, true)).await;
    assert!(dry.dry_run);
    assert_eq!(count(&loupe, "organizations").await, 0, "a dry run writes nothing");
    assert_eq!(count(&loupe, "prompts").await, 0);
    assert_eq!(dry.table("prompts").unwrap().inserted, 3, "{}", dry.render());

    let first = import(&loupe, &options(&source, false)).await;
    let text = first.render();
    assert_eq!(
        dry.table("dataset_item_versions").unwrap().inserted,
        first.table("dataset_item_versions").unwrap().inserted
    );
    for (table, new) in [
        ("organizations", 1),
        ("projects", 1),
        ("users", 2),
        ("organization_memberships", 2),
        ("project_memberships", 1),
        ("api_keys", 2),
        ("prompts", 3),
        ("datasets", 1),
        ("dataset_item_versions", 5),
        ("dataset_runs", 1),
        ("dataset_run_items", 2),
        ("score_configs", 2),
        ("comments", 2),
        ("models", 1),
        ("media", 1),
        ("media_links", 2),
        ("annotation_queues", 1),
        ("annotation_queue_items", 2),
        ("annotation_queue_assignments", 1),
        ("dashboard_widgets", 1),
        ("dashboards", 1),
        ("evaluators", 2),
        ("evaluator_versions", 3),
        ("evaluation_rules", 2),
        ("evaluation_rule_evaluators", 2),
        ("blob_storage_integrations", 1),
    ] {
        assert_eq!(first.table(table).unwrap().inserted, new, "{table}:\n{text}");
    }
    assert!(text.contains("skipped proj-gone: deleted in v3"), "{text}");
    assert!(
        text.contains("skipped clash@acme.test: a Loupe user with another id has this email address"),
        "{text}"
    );
    assert!(text.contains("skipped pk-lf-v3-gone: its project is not imported"), "{text}");
    assert!(text.contains("a widget over v3's TRACES view"), "{text}");
    assert_eq!(first.table("llm_api_keys").unwrap().inserted, 1, "{text}");
    let stored: String = sqlx::query_scalar("SELECT secret_key FROM llm_api_keys WHERE id = 'llm-1'")
        .fetch_one(&loupe)
        .await
        .unwrap();
    assert_eq!(
        EncryptionKey::parse(LOUPE_KEY).unwrap().decrypt(&stored).unwrap(),
        "sk-openai",
        "re-encrypted with Loupe's key"
    );
    assert!(text.contains("--encryption-key decrypts v3's stored secrets"), "{text}");
    evaluators_and_exports_are_mapped(&loupe, &text).await;

    // What Loupe holds: ids, hashes and shapes as the API reads them.
    let (hash, org, scope): (String, Option<String>, String) = sqlx::query_as(
        "SELECT hashed_secret_key, org_id, scope FROM api_keys WHERE public_key = 'pk-lf-v3-org'",
    )
    .fetch_one(&loupe)
    .await
    .unwrap();
    assert!(hash.starts_with("$2") && org.as_deref() == Some("org-v3") && scope == "ORGANIZATION");
    assert!(domain::auth::imported_secret_matches(langfuse_v3::ORG_SECRET_KEY, &hash));
    let (password,): (Option<String>,) =
        sqlx::query_as("SELECT password_hash FROM users WHERE id = 'u-pw'").fetch_one(&loupe).await.unwrap();
    assert!(domain::password::verify_password(langfuse_v3::PASSWORD, &password.unwrap()));
    let (sso,): (Option<String>,) =
        sqlx::query_as("SELECT password_hash FROM users WHERE id = 'u-sso'").fetch_one(&loupe).await.unwrap();
    assert_eq!(sso, None, "an SSO-only user has no password");
    let (prices, models): (serde_json::Value, i64) = sqlx::query_as(
        "SELECT prices, (SELECT count(*) FROM models WHERE project_id IS NOT NULL) FROM models WHERE id = 'mdl-custom'",
    )
    .fetch_one(&loupe)
    .await
    .unwrap();
    assert_eq!((prices["input"].as_f64(), prices["output"].as_f64(), models), (Some(1e-6), Some(4e-6), 1));
    let (placements,): (serde_json::Value,) =
        sqlx::query_as("SELECT definition FROM dashboards WHERE id = 'dash-1'")
            .fetch_one(&loupe)
            .await
            .unwrap();
    assert_eq!(placements["widgets"][0]["width"], 6);
    assert_eq!(placements["widgets"][0]["height"], 4);
    let (version,): (String,) = sqlx::query_as(
        "SELECT to_char(dataset_item_version AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') FROM dataset_run_items WHERE id = 'ri-1'",
    )
    .fetch_one(&loupe)
    .await
    .unwrap();
    assert_eq!(version, "2025-02-06 10:00", "the item version current when the run item was written");
    let (retention, metadata): (Option<i32>, serde_json::Value) =
        sqlx::query_as("SELECT retention_days, metadata FROM projects WHERE id = 'proj-v3'")
            .fetch_one(&loupe)
            .await
            .unwrap();
    assert_eq!((retention, metadata), (Some(30), serde_json::json!({"team": "ml"})));

    // A re-run writes nothing; after a change in v3, exactly that row.
    let again = import(&loupe, &options(&source, false)).await;
    assert_eq!(again.written(), 0, "{}", again.render());
    sqlx::query(
        "UPDATE prompts SET tags = '{onboarding,v2}', updated_at = '2025-04-01' WHERE name = 'greeting'",
    )
    .execute(&v3)
    .await
    .unwrap();
    sqlx::query("INSERT INTO comments (id, project_id, object_type, object_id, content) VALUES ('cm-3', 'proj-v3', 'SESSION', 's-1', 'new')")
        .execute(&v3)
        .await
        .unwrap();
    // v3 edits an item as it does: the current version closes, a new one starts.
    sqlx::raw_sql(
        "UPDATE dataset_items SET valid_to = '2025-04-02' WHERE id = 'item-2' AND valid_to IS NULL; \
         INSERT INTO dataset_items (id, project_id, status, input, dataset_id, created_at, updated_at, valid_from) \
         VALUES ('item-2', 'proj-v3', 'ACTIVE', '{\"q\": \"pricing, again?\"}', 'ds-qa', '2025-02-05 10:02:00', \
         '2025-04-02', '2025-04-02')",
    )
    .execute(&v3)
    .await
    .unwrap();
    let changed = import(&loupe, &options(&source, false)).await;
    assert_eq!(
        (changed.table("prompts").unwrap().updated, changed.table("comments").unwrap().inserted),
        (2, 1)
    );
    let items = changed.table("dataset_item_versions").unwrap();
    assert_eq!((items.updated, items.inserted), (1, 1), "{}", changed.render());
    assert_eq!(changed.written(), 5, "{}", changed.render());
    let current: serde_json::Value = sqlx::query_scalar(
        "SELECT input FROM dataset_item_versions WHERE id = 'item-2' AND valid_to IS NULL",
    )
    .fetch_one(&loupe)
    .await
    .unwrap();
    assert_eq!(current["q"], "pricing, again?");

    // Once Loupe has written a newer version itself, a late re-run leaves Loupe's in place.
    sqlx::raw_sql(
        "UPDATE dataset_item_versions SET valid_to = '2025-05-01' WHERE id = 'item-2' AND valid_to IS NULL; \
         INSERT INTO dataset_item_versions (project_id, id, dataset_id, status, input, created_at, valid_from) \
         VALUES ('proj-v3', 'item-2', 'ds-qa', 'ACTIVE', '{\"q\": \"loupe edit\"}', '2025-02-05 10:02:00', '2025-05-01')",
    )
    .execute(&loupe)
    .await
    .unwrap();
    let late = import(&loupe, &options(&source, false)).await;
    assert!(late.render().contains("Loupe has a newer version of this item"), "{}", late.render());
}

/// v3's templates, jobs and export as Loupe holds them (docs/takeover.md, **Evaluators**).
async fn evaluators_and_exports_are_mapped(loupe: &PgPool, text: &str) {
    assert!(text.contains(r#"reads the generation named "llm-call""#), "{text}");
    assert!(
        text.contains(r#"a filter on "bookmarked", which Loupe's trace rules cannot filter on"#),
        "{text}"
    );
    assert!(text.contains("job_executions                 2 rows, not imported: history"), "{text}");
    // The project's template: one evaluator, both versions, v3's ids; the rule runs it.
    let versions: Vec<(String, i32, serde_json::Value)> = sqlx::query_as(
        "SELECT v.id, v.version, v.definition FROM evaluator_versions v JOIN evaluators e ON e.id = v.evaluator_id \
         WHERE e.id = 'et-1' AND e.name = 'hallucination' ORDER BY v.version",
    )
    .fetch_all(loupe)
    .await
    .unwrap();
    assert_eq!(
        versions.iter().map(|(id, v, _)| (id.as_str(), *v)).collect::<Vec<_>>(),
        [("et-1", 1), ("et-2", 2)]
    );
    let newest = &versions[1].2;
    assert_eq!(newest["modelConfig"], serde_json::json!({"provider": "openai", "model": "gpt-4o-mini"}));
    assert_eq!(newest["prompt"][0]["role"], "user");
    assert_eq!(newest["outputDefinition"]["dataType"], "NUMERIC");
    assert_eq!(newest["outputDefinition"]["scoreReasoningInstructions"], "one sentence");
    assert_eq!(versions[0].2["modelConfig"], serde_json::Value::Null, "v1 used the project's default model");
    type Rule = (
        String,
        String,
        bool,
        Option<String>,
        f64,
        i32,
        serde_json::Value,
        String,
        Option<serde_json::Value>,
    );
    let rules: Vec<Rule> = sqlx::query_as(
        "SELECT r.id, r.target, r.enabled, to_char(r.enabled_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI'), r.sampling, \
         r.delay_seconds, r.filter, a.evaluator_id, a.variable_mapping FROM evaluation_rules r \
         JOIN evaluation_rule_evaluators a ON a.rule_id = r.id ORDER BY r.id",
    )
    .fetch_all(loupe)
    .await
    .unwrap();
    assert_eq!(rules.len(), 2, "{rules:?}");
    let (id, target, enabled, started, sampling, delay, filter, evaluator, mapping) = &rules[0];
    assert_eq!(
        (id.as_str(), target.as_str(), *enabled, started.as_deref(), *sampling, *delay, evaluator.as_str()),
        ("jc-1", "trace", true, Some("2025-03-01 08:00"), 0.5, 30, "et-1"),
        "starts at v3's newest execution for the job"
    );
    assert_eq!(filter[1]["column"], "userId", "a column v3 named by its label: {filter}");
    assert_eq!(
        mapping.as_ref().unwrap()[0],
        serde_json::json!({"variable": "output", "source": "output", "jsonPath": "$.text"})
    );
    // Langfuse's own template, used under another score name: an evaluator of the job's project.
    let (id, target, enabled, started, _, _, _, evaluator, mapping) = &rules[1];
    assert_eq!((id.as_str(), target.as_str(), *enabled, started), ("jc-2", "dataset", false, &None));
    let (name, project): (String, String) =
        sqlx::query_as("SELECT name, project_id FROM evaluators WHERE id = $1")
            .bind(evaluator)
            .fetch_one(loupe)
            .await
            .unwrap();
    assert_eq!((name.as_str(), project.as_str(), evaluator.len()), ("toxic", "proj-v3", 36));
    assert_eq!(mapping.as_ref().unwrap()[1]["source"], "expected_output");

    type Export = (String, String, String, String, Option<String>, Option<String>, String);
    let (file_type, mode, source, start, last, secret, region): Export = sqlx::query_as(
        "SELECT file_type, export_mode, export_source, to_char(start_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI'), \
         to_char(last_sync_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI'), secret_access_key, region \
         FROM blob_storage_integrations WHERE project_id = 'proj-v3'",
    )
    .fetch_one(loupe)
    .await
    .unwrap();
    assert_eq!(
        (
            file_type.as_str(),
            mode.as_str(),
            source.as_str(),
            start.as_str(),
            last.as_deref(),
            region.as_str()
        ),
        (
            "JSONL",
            "FROM_TODAY",
            "LEGACY_TRACES_OBSERVATIONS",
            "2025-02-15 00:00",
            Some("2025-02-22 00:00"),
            "eu-west-1"
        ),
        "goes on after the last window v3 exported"
    );
    assert_eq!(EncryptionKey::parse(LOUPE_KEY).unwrap().decrypt(&secret.unwrap()).unwrap(), "blob-secret");
}

#[tokio::test]
async fn an_unknown_schema_version_is_refused() {
    let source = langfuse_v3::source().await;
    let v3 = source.pool().await;
    sqlx::query(
        "INSERT INTO _prisma_migrations (id, checksum, finished_at, migration_name) \
         VALUES ('99', 'x', now(), '20990101000000_from_the_future')",
    )
    .execute(&v3)
    .await
    .unwrap();
    let (_db, loupe) = loupe().await;
    let error = takeover::run(&loupe, &options(&source, false), &mut |_: &str| {}).await.unwrap_err();
    assert!(matches!(error, ImportError::UnsupportedVersion { .. }), "{error}");
    let message = error.to_string();
    assert!(
        message.contains("20990101000000_from_the_future") && message.contains(NEWEST_SUPPORTED),
        "{message}"
    );
    assert_eq!(count(&loupe, "organizations").await, 0);
}

/// A database of the first v3 releases: no item versions, no pricing tiers (prices on the model),
/// no project retention or metadata, no organization keys, no dashboards.
const EARLY_V3: &str = "
    ALTER TABLE dataset_items DROP CONSTRAINT dataset_items_pkey;
    DELETE FROM dataset_items WHERE valid_to IS NOT NULL;
    ALTER TABLE dataset_items DROP COLUMN valid_from, DROP COLUMN valid_to, DROP COLUMN is_deleted,
        ADD PRIMARY KEY (id, project_id);
    DROP TABLE prices; DROP TABLE pricing_tiers;
    UPDATE models SET input_price = 0.000001, output_price = 0.000004 WHERE id = 'mdl-custom';
    ALTER TABLE projects DROP COLUMN retention_days, DROP COLUMN metadata, DROP COLUMN deleted_at;
    DELETE FROM api_keys WHERE scope = 'ORGANIZATION';
    ALTER TABLE api_keys DROP COLUMN scope, DROP COLUMN organization_id, DROP COLUMN expires_at;
    ALTER TABLE datasets DROP COLUMN input_schema, DROP COLUMN expected_output_schema;
    ALTER TABLE organizations DROP COLUMN metadata;
    DROP TABLE dashboards; DROP TABLE dashboard_widgets;
    UPDATE _prisma_migrations SET rolled_back_at = now() WHERE migration_name LIKE '2025%';
";

#[tokio::test]
async fn imports_a_database_of_the_first_v3_releases() {
    let source = langfuse_v3::source().await;
    sqlx::raw_sql(EARLY_V3).execute(&source.pool().await).await.unwrap();
    let (_db, loupe) = loupe().await;
    let report = import(&loupe, &options(&source, false)).await;
    let text = report.render();
    assert!(text.contains("source schema at 20240424150909_add_job_execution_index"), "{text}");
    assert_eq!(report.table("dataset_item_versions").unwrap().inserted, 3, "one version per item: {text}");
    assert_eq!(
        report.table("projects").unwrap().inserted,
        2,
        "without deleted_at no project is skipped: {text}"
    );
    assert_eq!(report.table("api_keys").unwrap().inserted, 2, "{text}");
    assert!(
        report.table("dashboards").unwrap().note.as_deref().unwrap_or("").contains("not in this v3 schema")
    );
    let prices: serde_json::Value = sqlx::query_scalar("SELECT prices FROM models WHERE id = 'mdl-custom'")
        .fetch_one(&loupe)
        .await
        .unwrap();
    assert_eq!((prices["input"].as_f64(), prices["output"].as_f64()), (Some(1e-6), Some(4e-6)), "{prices}");
    let (from, item): (String, serde_json::Value) = sqlx::query_as(
        "SELECT to_char(valid_from AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI'), input FROM dataset_item_versions \
         WHERE id = 'item-1'",
    )
    .fetch_one(&loupe)
    .await
    .unwrap();
    assert_eq!(
        (from.as_str(), &item["q"]),
        ("2025-02-05 10:01", &serde_json::json!("how do I reset my password?"))
    );
    let again = import(&loupe, &options(&source, false)).await;
    assert_eq!(again.written(), 0, "{}", again.render());
}
