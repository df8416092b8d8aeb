//! `worker verify-migration [--project ID]`: does v4 hold everything v3 holds? Every trace has its
//! root span, every observation its event, server-propagated events carry their trace's
//! attributes, scores point at spans that exist, and every dataset run item's span carries its
//! experiment. Counts and the first mismatches of each check are printed; exit 0 only when none.
//!
//! Each comparison is one set query in the engine (anti-joins over deduplicated rows), so the
//! worker's memory does not depend on the data.

use std::fmt::Write as _;

use storage::clickhouse::{ClickHouse, Work};

const SAMPLE: usize = 10;

#[derive(Debug, Clone)]
pub struct CheckResult {
    pub title: &'static str,
    pub checked: u64,
    pub mismatches: u64,
    pub first: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct Verification {
    pub project: Option<String>,
    pub checks: Vec<CheckResult>,
}

impl Verification {
    pub fn mismatches(&self) -> u64 {
        self.checks.iter().map(|c| c.mismatches).sum()
    }
}

struct Check {
    title: &'static str,
    /// Rows checked. `{p}` stands for the project filter.
    checked: &'static str,
    /// One descriptive string per mismatch.
    mismatches: &'static str,
}

/// Events written by the server's own propagation (the others carry what the client sent).
const PROPAGATED: &str =
    "('ingestion-api-backfill', 'otel-backfill', 'ingestion-api-dual-write', 'otel-dual-write')";

fn checks() -> Vec<Check> {
    vec![
        Check {
            title: "traces with a root span",
            checked: "SELECT count() FROM traces FINAL WHERE is_deleted = 0 {p}",
            mismatches: "SELECT concat('trace ', project_id, '/', id, ' has no root span') FROM traces FINAL \
                 WHERE is_deleted = 0 {p} AND (project_id, id) NOT IN \
                 (SELECT project_id, trace_id FROM events_full WHERE parent_span_id = '' {p})",
        },
        Check {
            title: "observations with an event",
            checked: "SELECT count() FROM observations FINAL WHERE is_deleted = 0 {p}",
            mismatches: "SELECT concat('observation ', project_id, '/', trace_id, '/', id, ' has no event') \
                 FROM observations FINAL WHERE is_deleted = 0 {p} AND (project_id, id) NOT IN \
                 (SELECT project_id, span_id FROM events_full WHERE 1 {p})",
        },
        Check {
            title: "propagated events carrying their trace's attributes",
            checked: "SELECT count() FROM (SELECT DISTINCT project_id, span_id FROM events_full \
                 WHERE source IN {propagated} {p})",
            mismatches: "SELECT concat('event ', e.project_id, '/', e.span_id, ': user ', e.user_id, '/', \
                 coalesce(t.user_id, ''), ', session ', e.session_id, '/', coalesce(t.session_id, ''), ', trace name ', \
                 e.trace_name, '/', t.name, ' (event/trace)') \
                 FROM (SELECT project_id, span_id, argMax(trace_id, event_ts) AS trace_id, \
                   argMax(user_id, event_ts) AS user_id, argMax(session_id, event_ts) AS session_id, \
                   argMax(trace_name, event_ts) AS trace_name, argMax(source, event_ts) AS source \
                   FROM events_full WHERE 1 {p} GROUP BY project_id, span_id) AS e \
                 INNER JOIN (SELECT project_id, id, name, user_id, session_id FROM traces FINAL \
                   WHERE is_deleted = 0 {p}) AS t ON e.project_id = t.project_id AND e.trace_id = t.id \
                 WHERE e.source IN {propagated} AND (e.user_id != coalesce(t.user_id, '') \
                   OR e.session_id != coalesce(t.session_id, '') OR e.trace_name != t.name)",
        },
        Check {
            title: "scores attached to an existing trace or span",
            checked: "SELECT count() FROM scores FINAL WHERE is_deleted = 0 {p}",
            mismatches: "SELECT concat('score ', project_id, '/', id, ' on ', \
                 if(observation_id IS NULL, concat('trace ', ifNull(trace_id, '')), concat('observation ', \
                 assumeNotNull(observation_id))), ' has nothing to attach to') \
                 FROM scores FINAL WHERE is_deleted = 0 {p} AND ( \
                 (observation_id IS NOT NULL AND (project_id, assumeNotNull(observation_id)) NOT IN \
                   (SELECT project_id, span_id FROM events_full WHERE 1 {p})) \
                 OR (observation_id IS NULL AND trace_id IS NOT NULL AND (project_id, assumeNotNull(trace_id)) NOT IN \
                   (SELECT project_id, trace_id FROM events_full WHERE 1 {p})))",
        },
        Check {
            title: "dataset run items with their experiment on their span",
            checked: "SELECT count() FROM dataset_run_items_rmt FINAL WHERE is_deleted = 0 {p}",
            mismatches: "SELECT concat('run item span ', d.project_id, '/', d.root, ': experiment ', \
                 if(e.experiment = '', '(none)', e.experiment), ', expected ', d.run) \
                 FROM (SELECT project_id, if(ifNull(observation_id, '') = '', concat('t-', trace_id), \
                   assumeNotNull(observation_id)) AS root, argMax(dataset_run_id, created_at) AS run \
                   FROM dataset_run_items_rmt FINAL WHERE is_deleted = 0 {p} GROUP BY project_id, root) AS d \
                 LEFT JOIN (SELECT project_id, span_id, argMax(experiment_id, event_ts) AS experiment \
                   FROM events_full WHERE 1 {p} GROUP BY project_id, span_id) AS e \
                 ON d.project_id = e.project_id AND d.root = e.span_id WHERE e.experiment != d.run",
        },
    ]
}

fn prepare(ch: &ClickHouse, template: &str, project: Option<&str>) -> clickhouse::query::Query {
    let filter = if project.is_some() { "AND project_id = ?" } else { "" };
    let sql = template.replace("{propagated}", PROPAGATED).replace("{p}", filter);
    // Whole-table comparisons: bounded as a bulk copy, not as a request.
    let mut query = ch
        .client()
        .query(&sql)
        .with_setting("max_execution_time", Work::Bulk.timeout().as_secs().to_string());
    if let Some(project) = project {
        for _ in 0..sql.matches('?').count() {
            query = query.bind(project);
        }
    }
    query
}

pub async fn verify(ch: &ClickHouse, project: Option<&str>) -> storage::Result<Verification> {
    let mut results = Vec::new();
    for check in checks() {
        let checked: u64 = prepare(ch, check.checked, project).fetch_one().await?;
        let count_sql = format!("SELECT count() FROM ({})", check.mismatches);
        let mismatches: u64 = prepare(ch, &count_sql, project).fetch_one().await?;
        let sample_sql = format!("{} LIMIT {SAMPLE}", check.mismatches);
        let first: Vec<String> =
            if mismatches > 0 { prepare(ch, &sample_sql, project).fetch_all().await? } else { Vec::new() };
        results.push(CheckResult { title: check.title, checked, mismatches, first });
    }
    Ok(Verification { project: project.map(str::to_owned), checks: results })
}

pub fn render(verification: &Verification) -> String {
    let mut out = String::new();
    let scope = verification.project.as_deref().map_or("all projects".to_owned(), |p| format!("project {p}"));
    let _ = writeln!(out, "Loupe verify-migration ({scope})");
    for check in &verification.checks {
        let _ = writeln!(
            out,
            "  {:<55} checked {:>9}  mismatches {}",
            check.title, check.checked, check.mismatches
        );
        for line in &check.first {
            let _ = writeln!(out, "      - {line}");
        }
    }
    let _ = writeln!(out, "mismatches: {}", verification.mismatches());
    out
}
