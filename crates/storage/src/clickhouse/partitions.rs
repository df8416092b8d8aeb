//! Inserts never touch more partitions than ClickHouse takes in one block.
//!
//! The tables Loupe writes are partitioned by calendar month (`toYYYYMM` of a row's time), and the
//! server refuses a block that touches more than `max_partitions_per_insert_block` partitions
//! (100) — refusing the whole insert, every time it is retried. A client controls its spans' and
//! scores' times, so one export spread over years would otherwise stop its batch (and everything
//! queued behind it) for good. Rows are therefore split by month before they are sent.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Datelike};

/// The most calendar months (UTC) one insert may span. `toYYYYMM` uses the server's time zone, in
/// which one UTC month can straddle two months, so 50 UTC months stay within 100 partitions
/// whatever the zone.
pub const MONTHS_PER_INSERT: usize = 50;

/// `year * 12 + month` of a time given in microseconds since the epoch (UTC).
pub(super) fn month_of_micros(micros: i64) -> i32 {
    let at = DateTime::from_timestamp_micros(micros).unwrap_or_default();
    at.year() * 12 + at.month0() as i32
}

/// `None` when every row fits one insert (the usual case: nothing is copied or reordered);
/// otherwise the indices of the rows of each insert, in month order, each group spanning at most
/// [`MONTHS_PER_INSERT`] months. `month` is a row's partition month (see [`month_of_micros`]).
pub fn month_groups<T>(rows: &[T], month: impl Fn(&T) -> i32) -> Option<Vec<Vec<usize>>> {
    // The usual batch spans a month or two: count the months first, and index rows only when
    // they do not fit, so the worker's hot path allocates nothing per row.
    let mut months = BTreeSet::new();
    let fits = rows.iter().all(|row| {
        months.insert(month(row));
        months.len() <= MONTHS_PER_INSERT
    });
    if fits {
        return None;
    }
    let mut by_month: BTreeMap<i32, Vec<usize>> = BTreeMap::new();
    for (index, row) in rows.iter().enumerate() {
        by_month.entry(month(row)).or_default().push(index);
    }
    let months: Vec<Vec<usize>> = by_month.into_values().collect();
    Some(months.chunks(MONTHS_PER_INSERT).map(|chunk| chunk.concat()).collect())
}

/// The rows of each insert, by their partition time in microseconds (see [`parts_by_month`]).
pub fn month_parts<T>(rows: &[T], micros: impl Fn(&T) -> i64) -> Vec<Vec<&T>> {
    parts_by_month(rows, |row| month_of_micros(micros(row)))
}

/// The rows of each insert, by their partition month: all of them in one part when they fit
/// (see [`month_groups`]).
pub fn parts_by_month<T>(rows: &[T], month: impl Fn(&T) -> i32) -> Vec<Vec<&T>> {
    match month_groups(rows, month) {
        None => vec![rows.iter().collect()],
        Some(groups) => {
            groups.into_iter().map(|group| group.into_iter().map(|index| &rows[index]).collect()).collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MONTH_MICROS: i64 = 31 * 24 * 3600 * 1_000_000;

    #[test]
    fn rows_within_fifty_months_go_in_one_insert() {
        let rows: Vec<i64> = (0..50).map(|m| m * MONTH_MICROS).collect();
        assert_eq!(month_groups(&rows, |r| month_of_micros(*r)), None);
    }

    #[test]
    fn rows_over_many_months_are_split_and_none_is_lost() {
        // 101 months, a few rows each, out of order.
        let rows: Vec<i64> = (0..303).map(|i| ((i * 37) % 101) * MONTH_MICROS + i).collect();
        let groups = month_groups(&rows, |r| month_of_micros(*r)).unwrap();
        assert_eq!(groups.len(), 3);
        let mut seen: Vec<usize> = groups.iter().flatten().copied().collect();
        seen.sort_unstable();
        assert_eq!(seen, (0..rows.len()).collect::<Vec<_>>(), "every row exactly once");
        for group in &groups {
            let months: std::collections::BTreeSet<i32> =
                group.iter().map(|&i| month_of_micros(rows[i])).collect();
            assert!(months.len() <= MONTHS_PER_INSERT, "{} months in one insert", months.len());
        }
    }

    #[test]
    fn times_out_of_range_still_have_a_month() {
        assert_eq!(month_groups(&[i64::MIN, i64::MAX, 0], |r| month_of_micros(*r)), None);
    }
}
