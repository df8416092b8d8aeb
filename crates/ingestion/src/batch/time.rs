//! ISO-8601 datetimes as upstream's `z.string().datetime({ offset: true })` accepts them.

use chrono::NaiveDate;

/// Microseconds since the epoch (UTC) of `YYYY-MM-DDTHH:MM[:SS[.fraction]]` followed by `Z` or an
/// offset (`±HH:MM`, `±HHMM`, `±HH`). A datetime without offset is refused, as upstream refuses it:
/// its zone would be a guess. Sub-microsecond digits are dropped.
pub fn parse_micros(raw: &str) -> Option<i64> {
    let mut cursor = Cursor { bytes: raw.as_bytes(), pos: 0 };
    let year = cursor.digits(4)?;
    cursor.expect(b'-')?;
    let month = cursor.digits(2)?;
    cursor.expect(b'-')?;
    let day = cursor.digits(2)?;
    cursor.expect(b'T')?;
    let hour = cursor.digits(2)?;
    cursor.expect(b':')?;
    let minute = cursor.digits(2)?;
    let (mut second, mut nanos) = (0, 0);
    if cursor.eat(b':') {
        second = cursor.digits(2)?;
        if cursor.eat(b'.') {
            nanos = cursor.fraction_nanos()?;
        }
    }
    let offset_seconds = cursor.offset_seconds()?;
    if cursor.pos != cursor.bytes.len() || hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let local = NaiveDate::from_ymd_opt(i32::try_from(year).ok()?, month, day)?
        .and_hms_nano_opt(hour, minute, second, nanos)?;
    Some(local.and_utc().timestamp_micros() - offset_seconds * 1_000_000)
}

/// Milliseconds (the v3 tables' precision), rounding towards the past like `Date.getTime()`.
pub fn micros_to_millis(micros: i64) -> i64 {
    micros.div_euclid(1_000)
}

struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Cursor<'_> {
    fn digits(&mut self, count: usize) -> Option<u32> {
        let slice = self.bytes.get(self.pos..self.pos + count)?;
        if !slice.iter().all(u8::is_ascii_digit) {
            return None;
        }
        self.pos += count;
        Some(slice.iter().fold(0, |n, d| n * 10 + u32::from(d - b'0')))
    }

    fn eat(&mut self, byte: u8) -> bool {
        let found = self.bytes.get(self.pos) == Some(&byte);
        if found {
            self.pos += 1;
        }
        found
    }

    fn expect(&mut self, byte: u8) -> Option<()> {
        self.eat(byte).then_some(())
    }

    fn fraction_nanos(&mut self) -> Option<u32> {
        let start = self.pos;
        while self.bytes.get(self.pos).is_some_and(u8::is_ascii_digit) {
            self.pos += 1;
        }
        let digits = self.bytes.get(start..self.pos).filter(|d| !d.is_empty())?;
        let mut nanos = 0;
        for position in 0..9 {
            nanos = nanos * 10 + digits.get(position).map_or(0, |d| u32::from(d - b'0'));
        }
        Some(nanos)
    }

    fn offset_seconds(&mut self) -> Option<i64> {
        if self.eat(b'Z') {
            return Some(0);
        }
        let negative = match self.bytes.get(self.pos)? {
            b'+' => false,
            b'-' => true,
            _ => return None,
        };
        self.pos += 1;
        let hours = self.digits(2)?;
        let minutes = if self.eat(b':') || self.pos < self.bytes.len() { self.digits(2)? } else { 0 };
        if hours > 23 || minutes > 59 {
            return None;
        }
        let seconds = i64::from(hours * 3_600 + minutes * 60);
        Some(if negative { -seconds } else { seconds })
    }
}
