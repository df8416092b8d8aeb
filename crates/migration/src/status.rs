//! `worker migration-status`: one screen with where the migration stands and whether cutover to
//! `events_only` is safe (spec/v4-migration-spec.md §3.1 transition conditions, §9.4). Every "no" says what to do.

use std::fmt::Write as _;

use chrono::{DateTime, Duration, Utc};
use sqlx::PgPool;

use domain::config::{MigrationSettings, OtelBehaviour, PropagationSettings, WriteMode};
use domain::sdk::{SdkFamily, SdkInfo};
use storage::background_migrations::StepStatus;
use storage::clickhouse::ClickHouse;
use storage::sdk_usage::SdkUsage;

use crate::backfill::{Step, StepProgress};
use crate::propagation_health::{self, PropagationHealth};

/// One readiness condition.
#[derive(Debug, Clone)]
pub struct Check {
    pub ok: bool,
    pub title: &'static str,
    /// What was found, and for a "no", what to do about it.
    pub detail: String,
}

#[derive(Debug, Clone)]
pub struct MigrationStatus {
    pub migration: MigrationSettings,
    pub propagation: PropagationHealth,
    pub steps: Vec<StepProgress>,
    pub readiness: Vec<Check>,
}

impl MigrationStatus {
    pub fn ready(&self) -> bool {
        self.readiness.iter().all(|check| check.ok)
    }
}

pub async fn gather(
    ch: &ClickHouse,
    pg: &PgPool,
    migration: &MigrationSettings,
    propagation: &PropagationSettings,
    producer_days: u32,
    now: DateTime<Utc>,
) -> storage::Result<MigrationStatus> {
    let health = propagation_health::check(ch, pg, migration, propagation, now).await?;
    let steps: Vec<StepProgress> = storage::background_migrations::list(pg)
        .await?
        .into_iter()
        .map(|row| StepProgress::of(row, now))
        .collect();
    let since = now - Duration::days(i64::from(producer_days));
    let producers: Vec<SdkUsage> =
        storage::sdk_usage::list(pg, None).await?.into_iter().filter(|u| u.last_seen_at >= since).collect();
    let dual_since = storage::write_modes::first_seen(pg, WriteMode::Dual.as_str()).await?;
    let retention = storage::projects::retention_days(pg).await?;
    let readiness = vec![
        producers_check(&producers, migration.otel_behaviour, producer_days),
        historic_check(&steps, dual_since, &retention, now),
        propagation_check(migration.write_mode, &health),
    ];
    Ok(MigrationStatus { migration: migration.clone(), propagation: health, steps, readiness })
}

/// Whether a producer's data may be written straight to the v4 tables once legacy writes stop.
pub fn compatible(usage: &SdkUsage, otel: OtelBehaviour) -> bool {
    let info = SdkInfo {
        name: Some(usage.sdk_name.clone()),
        version: Some(usage.sdk_version.clone()),
        ingestion_version: usage.ingestion_version.and_then(|v| u32::try_from(v).ok()),
    };
    match info.family() {
        Some(SdkFamily::Python | SdkFamily::JavaScript) => info.propagates_trace_attributes(),
        // Plain OTel exporters: compatible when they propagate user and session ids themselves,
        // which `direct` declares.
        _ => info.otel_direct_write(otel),
    }
}

fn producers_check(producers: &[SdkUsage], otel: OtelBehaviour, days: u32) -> Check {
    let old: Vec<String> = producers
        .iter()
        .filter(|usage| !compatible(usage, otel))
        .map(|u| {
            format!(
                "{} {} (project {}, last seen {})",
                u.sdk_name, u.sdk_version, u.project_id, u.last_seen_at
            )
        })
        .collect();
    let title = "all producers are on compatible SDKs";
    if old.is_empty() {
        Check {
            ok: true,
            title,
            detail: format!(
                "{} client versions seen in the last {days} days, all compatible",
                producers.len()
            ),
        }
    } else {
        Check {
            ok: false,
            title,
            detail: format!(
                "{} incompatible client versions seen in the last {days} days: {}. Upgrade them to Python SDK \
                 >= 4.7 or JS/TS SDK >= 5.4 (or an OTel exporter that sets user and session ids on every span); \
                 after cutover their legacy batches are rejected",
                old.len(),
                old.join("; ")
            ),
        }
    }
}

fn historic_check(
    steps: &[StepProgress],
    dual_since: Option<DateTime<Utc>>,
    retention: &[(String, Option<i32>)],
    now: DateTime<Utc>,
) -> Check {
    let title = "historic data is in the v4 tables";
    let backfilled = steps
        .iter()
        .filter(|s| Step::from_name(&s.name).is_some_and(|step| step != Step::DropScratchTable))
        .all(|s| s.status == StepStatus::Succeeded);
    if backfilled {
        return Check {
            ok: true,
            title,
            detail: "the historic backfill (M1–M4) succeeded (option A)".into(),
        };
    }
    // Option B: dual write has run for a whole retention window of every project, and the retention
    // job removes what is older, so from then on the events hold all the data any project keeps.
    let forever: Vec<&str> =
        retention.iter().filter(|(_, days)| days.is_none()).map(|(project, _)| project.as_str()).collect();
    let longest = retention.iter().filter_map(|(_, days)| *days).max();
    let option_b = match (dual_since, longest) {
        (Some(since), Some(days)) if forever.is_empty() => {
            let from = since + Duration::days(i64::from(days));
            let covered = now >= from;
            let when = if covered { "since" } else { "from" };
            Some((
                covered,
                format!(
                    "dual write since {since}; longest retention {days} days: the events hold every project's \
                     whole retention window {when} {from}{}",
                    if covered { ", cutover possible without backfill" } else { "" }
                ),
            ))
        }
        (Some(since), _) if !retention.is_empty() => Some((
            false,
            format!(
                "dual write since {since}, but {} projects keep data forever ({}); option B needs a retention \
                 on every project",
                forever.len(),
                forever.join(", ")
            ),
        )),
        _ => None,
    };
    match option_b {
        Some((true, detail)) => Check { ok: true, title, detail: format!("{detail} (option B)") },
        other => {
            let pending: Vec<String> = steps
                .iter()
                .filter(|s| s.status != StepStatus::Succeeded && s.status != StepStatus::Skipped)
                .map(|s| format!("step {} {}", s.position, s.status.as_str()))
                .collect();
            let b =
                other.map(|(_, detail)| format!("; option B not reached yet ({detail})")).unwrap_or_default();
            Check {
                ok: false,
                title,
                detail: format!(
                    "the backfill is not done ({}){b}. Let it finish with LANGFUSE_BACKGROUND_MIGRATION_V4_ENABLE_HISTORIC_BACKFILL=true \
                     in dual mode (watch /api/admin/background-migrations), or keep dual-writing for a full retention window",
                    pending.join(", ")
                ),
            }
        }
    }
}

fn propagation_check(mode: WriteMode, health: &PropagationHealth) -> Check {
    let title = "dual-write propagation is healthy";
    match mode {
        WriteMode::Legacy => Check {
            ok: false,
            title,
            detail:
                "the deployment is in legacy mode: switch to `dual`, confirm propagation is healthy, then \
                     enable the backfill"
                    .into(),
        },
        _ if health.stuck => {
            Check { ok: false, title, detail: format!("{}; fix it before cutting over", health.reason) }
        }
        _ => Check { ok: true, title, detail: health.reason.clone() },
    }
}

/// The screen.
pub fn render(status: &MigrationStatus) -> String {
    let mut out = String::new();
    let m = &status.migration;
    let _ = writeln!(out, "Loupe migration status");
    let _ = writeln!(
        out,
        "  write mode {} · OTel behaviour {} · v4 reads {} · historic backfill {}",
        m.write_mode,
        m.otel_behaviour,
        if m.allow_preview_opt_in { "on" } else { "off" },
        if m.enable_historic_backfill { "enabled" } else { "disabled" }
    );
    let p = &status.propagation;
    let _ = writeln!(out, "\nDual-write propagation");
    if p.enabled {
        let lag = p.propagation_delay_seconds.map_or("none yet".to_owned(), |s| format!("{s} s"));
        let _ = writeln!(
            out,
            "  {} · last partition {} · lag {lag} · {} partitions pending · {} rows propagated",
            if p.stuck { "STUCK" } else { "healthy" },
            p.last_processed_partition.map_or("none".to_owned(), |t| t.to_string()),
            p.pending_partitions,
            p.rows_propagated
        );
        let _ = writeln!(out, "  {}", p.reason);
        if let Some(error) = &p.last_error {
            let _ = writeln!(out, "  last error: {error}");
        }
    } else {
        let _ = writeln!(out, "  {}", p.reason);
    }
    let _ = writeln!(out, "\nHistoric backfill");
    for step in &status.steps {
        let total = step.rows_estimated.map_or("?".to_owned(), |t| t.to_string());
        let mut line = format!(
            "  {}. {:<9} {}/{} {}",
            step.position,
            step.status.as_str(),
            step.rows_done,
            total,
            step.unit
        );
        if let Some(rate) = step.rows_per_second {
            let _ = write!(line, " · {rate:.0}/s");
        }
        if let Some(eta) = step.eta_seconds {
            let _ = write!(line, " · ETA {eta} s");
        }
        let _ = writeln!(out, "{line} · {}", step.description);
        if let Some(error) = &step.last_error {
            let _ = writeln!(out, "     error: {error}");
        }
    }
    let _ = writeln!(out, "\nCutover readiness (events_only)");
    for check in &status.readiness {
        let _ =
            writeln!(out, "  [{}] {}: {}", if check.ok { "yes" } else { "no" }, check.title, check.detail);
    }
    let _ = writeln!(out, "\nready for cutover: {}", if status.ready() { "yes" } else { "no" });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(name: &str, version: &str, ingestion_version: Option<i32>) -> SdkUsage {
        SdkUsage {
            project_id: "p".into(),
            sdk_name: name.into(),
            sdk_version: version.into(),
            ingestion_version,
            first_seen_at: Utc::now(),
            last_seen_at: Utc::now(),
            payloads: 1,
        }
    }

    #[test]
    fn producers_are_judged_by_the_compatibility_matrix() {
        let direct = OtelBehaviour::Direct;
        assert!(compatible(&usage("python", "4.7.0", None), direct));
        assert!(!compatible(&usage("python", "3.9.0", None), direct));
        assert!(compatible(&usage("javascript", "5.4.1", None), direct));
        assert!(
            !compatible(&usage("langfuse-js", "3.38.0", None), direct),
            "direct does not excuse old SDKs"
        );
        assert!(compatible(&usage("python", "2.60.0", Some(4)), direct), "the header says v4");
        assert!(compatible(&usage("unknown", "unknown", None), direct), "plain OTel under `direct`");
        assert!(!compatible(&usage("unknown", "unknown", None), OtelBehaviour::DualWrite));
    }

    fn step(position: i32, status: StepStatus) -> StepProgress {
        let name = Step::ALL[usize::try_from(position - 1).unwrap_or(0)].name().to_owned();
        StepProgress::of(
            storage::background_migrations::BackgroundMigration {
                name,
                position,
                description: String::new(),
                status,
                state: serde_json::Value::Null,
                rows_done: 0,
                rows_estimated: None,
                started_at: None,
                finished_at: None,
                last_error: None,
                worker_id: None,
                updated_at: Utc::now(),
            },
            Utc::now(),
        )
    }

    #[test]
    fn history_is_covered_by_the_backfill_or_a_full_retention_window_of_dual_write() {
        use StepStatus::*;
        let done: Vec<_> = [Succeeded, Succeeded, Succeeded, Succeeded, Pending]
            .into_iter()
            .enumerate()
            .map(|(i, s)| step(i as i32 + 1, s))
            .collect();
        let now = Utc::now();
        assert!(historic_check(&done, None, &[], now).ok, "M5 is optional");
        let running: Vec<_> = [Succeeded, Running, Pending, Pending, Pending]
            .into_iter()
            .enumerate()
            .map(|(i, s)| step(i as i32 + 1, s))
            .collect();
        let retention = [("p".to_owned(), Some(30))];
        assert!(!historic_check(&running, None, &retention, now).ok);
        let since = now - Duration::days(29);
        let waiting = historic_check(&running, Some(since), &retention, now);
        assert!(!waiting.ok);
        let from = since + Duration::days(30);
        assert!(
            waiting.detail.contains(&format!("whole retention window from {from}")),
            "{}",
            waiting.detail
        );
        let covered = historic_check(&running, Some(now - Duration::days(31)), &retention, now);
        assert!(
            covered.ok && covered.detail.contains("cutover possible without backfill"),
            "{}",
            covered.detail
        );
        let forever = [("p".to_owned(), Some(30)), ("q".to_owned(), None)];
        let check = historic_check(&running, Some(now - Duration::days(400)), &forever, now);
        assert!(!check.ok, "a project keeping data forever needs the backfill");
        assert!(check.detail.contains("1 projects keep data forever (q)"), "{}", check.detail);
        assert!(
            check.detail.contains("LANGFUSE_BACKGROUND_MIGRATION_V4_ENABLE_HISTORIC_BACKFILL"),
            "{}",
            check.detail
        );
    }
}
