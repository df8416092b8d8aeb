//! Which window an integration exports next, and object names. Pure: tested without services.
//!
//! Windows are contiguous and half-open, `[from, end)`, so consecutive runs neither overlap nor
//! leave a gap. The first window runs from the start (the epoch, the day the integration was
//! turned on, or the custom date) up to the closed edge `now - LAG`; each later one is one
//! period long and runs once it has closed. A window's end is written down before its upload
//! starts, so a run resumed after a crash writes exactly the same window under the same names.

use chrono::{DateTime, Duration, Utc};

use crate::model::{FileType, Mode};

/// Rows younger than this are not exported yet: ingestion, the dual-write propagation and merges
/// settle within it (the SDK documents a 20-minute lag buffer).
pub const LAG: Duration = Duration::minutes(20);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plan {
    /// Export `[from, end)` now.
    Window { from: DateTime<Utc>, end: DateTime<Utc> },
    /// Nothing has closed yet; look again at this time.
    Wait(DateTime<Utc>),
}

/// Where exporting starts for a mode.
pub fn start_at(mode: Mode, custom: Option<DateTime<Utc>>, now: DateTime<Utc>) -> DateTime<Utc> {
    match mode {
        Mode::FullHistory => DateTime::UNIX_EPOCH,
        Mode::FromToday => now.date_naive().and_hms_opt(0, 0, 0).map_or(now, |d| d.and_utc()),
        Mode::FromCustomDate => custom.unwrap_or(now),
    }
}

pub fn plan(
    start: DateTime<Utc>,
    last_sync: Option<DateTime<Utc>>,
    pending_end: Option<DateTime<Utc>>,
    period: Duration,
    now: DateTime<Utc>,
) -> Plan {
    let from = last_sync.unwrap_or(start);
    if let Some(end) = pending_end {
        return Plan::Window { from, end };
    }
    let closed = now - LAG;
    let end = if last_sync.is_none() { closed } else { from + period };
    if end > from && end <= closed {
        Plan::Window { from, end }
    } else {
        // The first period after `from` closes then (for later windows that is `end + LAG`).
        Plan::Wait(from + period + LAG)
    }
}

/// When the run after a window ending at `end` is due: at once while closed periods remain
/// (catching up), else when the next period has closed.
pub fn next_after(end: DateTime<Utc>, period: Duration, now: DateTime<Utc>) -> DateTime<Utc> {
    let next_closes = end + period + LAG;
    if next_closes <= now { now } else { next_closes }
}

fn stamp(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%dT%H-%M-%SZ").to_string()
}

/// `{prefix}{projectId}/{kind}/{from}_{end}.{ext}[.gz]`: one object per window and kind, the
/// same name whenever the window is written again.
pub fn object_name(
    prefix: &str,
    project_id: &str,
    kind: &str,
    from: DateTime<Utc>,
    end: DateTime<Utc>,
    file_type: FileType,
    gzip: bool,
) -> String {
    let gz = if gzip { ".gz" } else { "" };
    format!("{prefix}{project_id}/{kind}/{}_{}.{}{gz}", stamp(from), stamp(end), file_type.extension())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn the_first_window_catches_up_to_the_closed_edge() {
        let now = at("2026-01-02T10:30:00Z");
        let start = at("2026-01-01T00:00:00Z");
        let plan = plan(start, None, None, Duration::hours(1), now);
        assert_eq!(plan, Plan::Window { from: start, end: at("2026-01-02T10:10:00Z") });
    }

    #[test]
    fn later_windows_are_one_period_once_closed() {
        let now = at("2026-01-02T10:30:00Z");
        let last = at("2026-01-02T09:00:00Z");
        let p = plan(DateTime::UNIX_EPOCH, Some(last), None, Duration::hours(1), now);
        assert_eq!(p, Plan::Window { from: last, end: at("2026-01-02T10:00:00Z") });
        // 10:00–11:00 closes at 11:20.
        let p = plan(DateTime::UNIX_EPOCH, Some(at("2026-01-02T10:00:00Z")), None, Duration::hours(1), now);
        assert_eq!(p, Plan::Wait(at("2026-01-02T11:20:00Z")));
    }

    #[test]
    fn a_pending_window_is_resumed_as_planned() {
        let now = at("2026-01-05T00:00:00Z");
        let last = at("2026-01-02T09:00:00Z");
        let end = at("2026-01-02T09:20:00Z");
        let p = plan(DateTime::UNIX_EPOCH, Some(last), Some(end), Duration::hours(1), now);
        assert_eq!(p, Plan::Window { from: last, end });
    }

    #[test]
    fn a_start_in_the_lag_waits_for_its_first_period() {
        let now = at("2026-01-02T10:30:00Z");
        let start = at("2026-01-02T10:25:00Z");
        assert_eq!(
            plan(start, None, None, Duration::minutes(20), now),
            Plan::Wait(at("2026-01-02T11:05:00Z"))
        );
    }

    #[test]
    fn catching_up_runs_at_once() {
        let now = at("2026-01-02T10:30:00Z");
        assert_eq!(next_after(at("2026-01-02T08:00:00Z"), Duration::hours(1), now), now);
        assert_eq!(
            next_after(at("2026-01-02T10:00:00Z"), Duration::hours(1), now),
            at("2026-01-02T11:20:00Z")
        );
    }

    #[test]
    fn names_are_stable() {
        let name = object_name(
            "exports/",
            "p1",
            "observations",
            at("2026-01-02T09:00:00Z"),
            at("2026-01-02T10:00:00Z"),
            FileType::Csv,
            true,
        );
        assert_eq!(name, "exports/p1/observations/2026-01-02T09-00-00Z_2026-01-02T10-00-00Z.csv.gz");
    }
}
