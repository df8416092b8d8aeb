//! A project's connections to the outside: LLM connections and blob-storage exports, whose secrets
//! v3 stores encrypted under its ENCRYPTION_KEY: decrypted with `--encryption-key` and encrypted
//! with Loupe's `ENCRYPTION_KEY` while the page is in memory (the shapes below). A fresh encryption
//! differs every time, so a secret is written only when its row is new (`insert_only`).

use serde_json::{Map, Value};

use super::{Keys, NO_PROJECT, Table};

pub const TABLES: &[Table] = &[
    Table {
        target: "llm_api_keys",
        sources: &["llm_api_keys"],
        // LLM connections; the secret and the headers are moved to Loupe's key (`shape_llm_connection`).
        select: |schema| {
            format!(
                "SELECT c.id, c.project_id, c.provider, c.adapter, c.secret_key, c.display_secret_key, c.base_url, \
                 COALESCE(c.custom_models, '{{}}') AS custom_models, c.with_default_models, {headers} AS extra_headers, \
                 COALESCE({header_keys}, '{{}}') AS extra_header_keys, {config} AS config, c.created_at, c.updated_at \
                 FROM llm_api_keys c ORDER BY c.id",
                headers = schema.or("llm_api_keys", "c", "extra_headers", "NULL::text"),
                header_keys = schema.or("llm_api_keys", "c", "extra_header_keys", "NULL::text[]"),
                config = schema.or("llm_api_keys", "c", "config", "NULL::jsonb"),
            )
        },
        columns: &[
            "id",
            "project_id",
            "provider",
            "adapter",
            "secret_key",
            "display_secret_key",
            "base_url",
            "custom_models",
            "with_default_models",
            "extra_headers",
            "extra_header_keys",
            "config",
            "created_at",
            "updated_at",
        ],
        conflict: "(id)",
        insert_only: &["secret_key", "extra_headers"],
        label: "s.provider",
        skips: &[
            NO_PROJECT,
            ("s.secret_key IS NULL", "its secret does not decrypt with --encryption-key"),
            (
                "EXISTS (SELECT 1 FROM llm_api_keys t WHERE t.project_id = s.project_id AND t.provider = s.provider AND t.id <> s.id)",
                "Loupe already has a connection of this name under another id",
            ),
        ],
    },
    Table {
        target: "blob_storage_integrations",
        sources: &["blob_storage_integrations"],
        // Scheduled exports, one per project in both. Columns v3 added later (file type, export
        // mode and start date, compression, source) take v3's own earlier behaviour where missing:
        // CSV, full history, gzip, the legacy traces/observations tables. v3 exported every
        // column, so every field group is on. `start_at` follows the mode as Loupe's API sets it
        // (FROM_TODAY: the day the integration was made). v3's `last_sync_at` is kept, so Loupe
        // goes on from the last window v3 exported instead of exporting it all again.
        select: |schema| {
            let column = |name: &str, fallback: &str| {
                if schema.has("blob_storage_integrations", name) {
                    format!("b.{name}::text")
                } else {
                    fallback.to_owned()
                }
            };
            let mode = column("export_mode", "'FULL_HISTORY'");
            let start = schema.or("blob_storage_integrations", "b", "export_start_date", "NULL::timestamp");
            let groups: Vec<String> =
                exports::model::FieldGroup::ALL.iter().map(|g| format!("'{}'", g.as_str())).collect();
            format!(
                "SELECT b.project_id, b.type::text AS type, b.bucket_name, NULLIF(b.endpoint, '') AS endpoint, \
                 b.region, NULLIF(b.access_key_id, '') AS access_key_id, b.secret_access_key, b.prefix, \
                 b.export_frequency, b.enabled, b.force_path_style, {file_type} AS file_type, {mode} AS export_mode, \
                 {start} AS export_start_date, {compressed} AS compressed, {source} AS export_source, \
                 ARRAY[{groups}] AS export_field_groups, \
                 CASE {mode} WHEN 'FROM_TODAY' THEN date_trunc('day', b.created_at) \
                   WHEN 'FROM_CUSTOM_DATE' THEN COALESCE({start}, b.created_at) ELSE 'epoch'::timestamp END AS start_at, \
                 b.last_sync_at, CASE WHEN b.enabled THEN COALESCE(b.next_sync_at, b.updated_at) END AS next_sync_at, \
                 b.created_at, b.updated_at FROM blob_storage_integrations b ORDER BY b.project_id",
                file_type = column("file_type", "'CSV'"),
                compressed = schema.or("blob_storage_integrations", "b", "compressed", "true"),
                source = column("export_source", "'LEGACY_TRACES_OBSERVATIONS'"),
                groups = groups.join(", "),
            )
        },
        columns: &[
            "project_id",
            "type",
            "bucket_name",
            "endpoint",
            "region",
            "access_key_id",
            "secret_access_key",
            "prefix",
            "export_frequency",
            "enabled",
            "force_path_style",
            "file_type",
            "export_mode",
            "export_start_date",
            "compressed",
            "export_source",
            "export_field_groups",
            "start_at",
            "last_sync_at",
            "next_sync_at",
            "created_at",
            "updated_at",
        ],
        conflict: "(project_id)",
        insert_only: &["secret_access_key"],
        label: "s.project_id || ' ' || s.bucket_name",
        skips: &[
            NO_PROJECT,
            (
                "s.type NOT IN ('S3', 'S3_COMPATIBLE', 'AZURE_BLOB_STORAGE')",
                "a storage type Loupe does not export to",
            ),
            (
                "s.export_frequency NOT IN ('every_20_minutes', 'hourly', 'daily', 'weekly')",
                "an export frequency Loupe does not know",
            ),
            ("s.file_type NOT IN ('JSON', 'CSV', 'JSONL', 'PARQUET')", "a file type Loupe does not know"),
            (
                "s.export_source NOT IN ('LEGACY_TRACES_OBSERVATIONS', 'OBSERVATIONS_V2', \
                 'LEGACY_TRACES_AND_ENRICHED_OBSERVATIONS')",
                "an export source Loupe does not know",
            ),
        ],
    },
];

/// LLM connections: the key and the extra headers (a JSON object, encrypted whole) to Loupe's key.
pub fn shape_llm_connection(row: &mut Map<String, Value>, keys: &Keys) -> Result<(), String> {
    move_secret(row, "secret_key", keys)?;
    move_secret(row, "extra_headers", keys)
}

/// Blob-storage integrations: the secret access key (none when v3 used the host's credentials).
pub fn shape_blob_storage(row: &mut Map<String, Value>, keys: &Keys) -> Result<(), String> {
    move_secret(row, "secret_access_key", keys)
}

/// Decrypts `column` with v3's key and encrypts it with Loupe's; a row without the column's secret
/// is left as it is.
fn move_secret(row: &mut Map<String, Value>, column: &str, keys: &Keys) -> Result<(), String> {
    let Some(Value::String(stored)) = row.get(column) else {
        return Ok(());
    };
    let (Some(v3), Some(loupe)) = (keys.v3, keys.loupe) else {
        return Err("its secret needs --encryption-key and Loupe's ENCRYPTION_KEY".to_owned());
    };
    let plain =
        v3.decrypt(stored).map_err(|_| "its secret does not decrypt with --encryption-key".to_owned())?;
    row.insert(column.to_owned(), Value::String(loupe.encrypt(&plain)));
    Ok(())
}
