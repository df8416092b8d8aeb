//! One page of source rows upserted into a Loupe table in one statement: the rows arrive as a JSON
//! array (each row shaped into the table's columns by its SELECT), are typed by
//! `jsonb_populate_recordset` against the table itself, the skipped ones set aside with their
//! reason, and the rest inserted, or updated only where something differs — so a re-run over
//! unchanged data writes nothing.

use sqlx::PgConnection;

use crate::tables::Table;

/// What one page did.
#[derive(Debug, Default)]
pub struct PageOutcome {
    pub inserted: u64,
    pub updated: u64,
    /// `(row, reason)`
    pub skipped: Vec<(String, String)>,
}

/// The statement for a table; `$1` is the page as a JSON array.
pub fn statement(table: &Table) -> String {
    let columns = table.columns.join(", ");
    let reason = if table.skips.is_empty() {
        "NULL::text".to_owned()
    } else {
        let cases: String = table
            .skips
            .iter()
            .map(|(condition, why)| format!(" WHEN {condition} THEN '{}'", why.replace('\'', "''")))
            .collect();
        format!("CASE{cases} END")
    };
    let updated: Vec<&str> = table
        .columns
        .iter()
        .copied()
        .filter(|c| !table.insert_only.contains(c) && !is_key(table, c))
        .collect();
    let on_conflict = if updated.is_empty() {
        "DO NOTHING".to_owned()
    } else {
        let set: Vec<String> = updated.iter().map(|c| format!("{c} = EXCLUDED.{c}")).collect();
        let ours: Vec<String> = updated.iter().map(|c| format!("t.{c}")).collect();
        let theirs: Vec<String> = updated.iter().map(|c| format!("EXCLUDED.{c}")).collect();
        format!(
            "DO UPDATE SET {} WHERE ({}) IS DISTINCT FROM ({})",
            set.join(", "),
            ours.join(", "),
            theirs.join(", ")
        )
    };
    format!(
        "WITH s AS (SELECT * FROM jsonb_populate_recordset(NULL::{target}, $1::jsonb)), \
         marked AS (SELECT s.*, {reason} AS loupe_skip FROM s), \
         written AS (INSERT INTO {target} AS t ({columns}) SELECT {columns} FROM marked WHERE loupe_skip IS NULL \
           ON CONFLICT {conflict} {on_conflict} RETURNING (xmax = 0) AS inserted) \
         SELECT (SELECT count(*) FROM written WHERE inserted), (SELECT count(*) FROM written WHERE NOT inserted), \
           (SELECT COALESCE(jsonb_agg(jsonb_build_array(COALESCE(({label})::text, '?'), s.loupe_skip)), '[]'::jsonb)::text \
            FROM marked s WHERE s.loupe_skip IS NOT NULL)",
        target = table.target,
        conflict = table.conflict,
        label = table.label,
    )
}

fn is_key(table: &Table, column: &str) -> bool {
    table.conflict.trim_matches(|c| c == '(' || c == ')').split(',').any(|k| k.trim() == column)
}

pub async fn write_page(
    conn: &mut PgConnection,
    statement: &str,
    page: &str,
) -> Result<PageOutcome, sqlx::Error> {
    let (inserted, updated, skipped): (i64, i64, String) =
        sqlx::query_as(sqlx::AssertSqlSafe(statement.to_owned())).bind(page).fetch_one(conn).await?;
    let skipped: Vec<(String, String)> = serde_json::from_str(&skipped).unwrap_or_default();
    Ok(PageOutcome {
        inserted: u64::try_from(inserted).unwrap_or(0),
        updated: u64::try_from(updated).unwrap_or(0),
        skipped,
    })
}
