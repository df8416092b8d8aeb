//! The retention job's decisions, without I/O: each project's cutoff, and whether a whole month
//! partition may be dropped.

use std::collections::BTreeMap;

use chrono::{DateTime, Datelike, Duration, NaiveDate, Utc};

/// The shortest retention a project can have (the API refuses less): a partition whose month ended
/// more recently than this holds nothing any project lets go of, so it is not even looked into.
pub const MIN_RETENTION_DAYS: i64 = 3;

/// Months are cut in the ClickHouse server's time zone, which may be up to 14 hours off UTC: a
/// month is taken to end a day later than it does in UTC.
const TIME_ZONE_MARGIN: Duration = Duration::days(1);

/// Each live project's cutoff: rows dated before it are past the window. `None`: the project keeps
/// its data forever.
pub type Cutoffs = BTreeMap<String, Option<DateTime<Utc>>>;

pub fn cutoffs(projects: &[(String, Option<i32>)], now: DateTime<Utc>) -> Cutoffs {
    projects
        .iter()
        .map(|(project, days)| {
            (project.clone(), days.filter(|d| *d > 0).map(|d| now - Duration::days(i64::from(d))))
        })
        .collect()
}

/// When a `toYYYYMM` partition's month ends (the first instant of the next month, UTC), or `None`
/// for an id that is not a month.
pub fn month_end(partition_id: &str) -> Option<DateTime<Utc>> {
    if partition_id.len() != 6 || !partition_id.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let year: i32 = partition_id[..4].parse().ok()?;
    let month: u32 = partition_id[4..].parse().ok()?;
    let first = NaiveDate::from_ymd_opt(year, month, 1)?;
    let next = if first.month() == 12 {
        NaiveDate::from_ymd_opt(year + 1, 1, 1)?
    } else {
        NaiveDate::from_ymd_opt(year, month + 1, 1)?
    };
    Some(next.and_hms_opt(0, 0, 0)?.and_utc())
}

/// Whether a month partition might be dropped at all: its month ended before the shortest window.
pub fn old_enough(partition_id: &str, now: DateTime<Utc>) -> bool {
    month_end(partition_id)
        .is_some_and(|end| end + TIME_ZONE_MARGIN <= now - Duration::days(MIN_RETENTION_DAYS))
}

/// A month partition is dropped only when every project with rows in it has a retention and the
/// whole month lies before that project's cutoff. A project unknown to PostgreSQL (deleted, its
/// removal pending) or keeping data forever keeps the partition; a partition with no live rows left
/// goes once it is old enough.
pub fn droppable(partition_id: &str, projects: &[String], cutoffs: &Cutoffs, now: DateTime<Utc>) -> bool {
    let Some(end) = month_end(partition_id) else { return false };
    old_enough(partition_id, now)
        && projects.iter().all(|project| {
            cutoffs.get(project).copied().flatten().is_some_and(|cutoff| end + TIME_ZONE_MARGIN <= cutoff)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn month_partitions_end_at_the_next_month() {
        assert_eq!(month_end("202401"), Some(at("2024-02-01T00:00:00Z")));
        assert_eq!(month_end("202412"), Some(at("2025-01-01T00:00:00Z")));
        assert_eq!(month_end("202413"), None);
        assert_eq!(month_end("all"), None);
        assert_eq!(month_end("1732600800"), None);
    }

    #[test]
    fn a_partition_goes_only_when_every_project_in_it_lets_it_go() {
        let now = at("2026-11-26T12:00:00Z");
        let projects =
            [("week".to_owned(), Some(7)), ("year".to_owned(), Some(365)), ("forever".to_owned(), None)];
        let cutoffs = cutoffs(&projects, now);
        assert_eq!(cutoffs["week"], Some(at("2026-11-19T12:00:00Z")));
        assert_eq!(cutoffs["forever"], None);
        let names = |list: &[&str]| list.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert!(droppable("202610", &names(&["week"]), &cutoffs, now));
        assert!(!droppable("202611", &names(&["week"]), &cutoffs, now), "the month is not over");
        assert!(!droppable("202610", &names(&["week", "year"]), &cutoffs, now), "year keeps October");
        assert!(droppable("202410", &names(&["week", "year"]), &cutoffs, now));
        assert!(!droppable("202001", &names(&["week", "forever"]), &cutoffs, now), "kept forever");
        assert!(!droppable("202001", &names(&["deleted-project"]), &cutoffs, now), "unknown project");
        assert!(droppable("202001", &[], &cutoffs, now), "no live rows left");
        assert!(!droppable("202611", &[], &cutoffs, now), "a current month is never dropped");
        // October ends at midnight UTC; a server ahead of UTC ends it later: a day's margin.
        let early = at("2026-11-01T12:00:00Z");
        let tight = cutoffs_at(early + Duration::days(7), 7);
        assert!(!droppable("202610", &names(&["week"]), &tight, early + Duration::days(7)));
    }

    fn cutoffs_at(now: DateTime<Utc>, days: i32) -> Cutoffs {
        cutoffs(&[("week".to_owned(), Some(days))], now)
    }
}
