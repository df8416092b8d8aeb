//! Catching misspelled variable names before they silently fall back to defaults.
//!
//! Upstream ignores unknown names, so `LANGFUSE_MIGRATION_v4_WRITE_MODE=legacy` quietly runs in
//! `events_only` and rejects the operator's traffic. Here a name that differs from a known one only
//! by case, that looks like a migration setting without being one, or that is one or two edits
//! away from a known name stops startup with the name that was probably meant.

use super::catalog::{SETTINGS, UPSTREAM_NAMES_IGNORED};

/// What to do about one environment variable that is not in the catalogue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UnknownName {
    /// Refuse to start: the operator almost certainly meant `suggestion`.
    Misspelled { name: String, suggestion: &'static str, wrong_case: bool },
    /// A migration-looking name that is neither known nor close to a known one.
    UnknownMigrationSetting { name: String, nearest: &'static str },
    /// Accept, but tell the operator it has no effect.
    Ignored { name: String },
}

/// Families whose unknown members are checked for near misses; other variables (PATH, HOME, …)
/// are none of our business.
const CHECKED_PREFIXES: &[&str] = &["LANGFUSE_", "CLICKHOUSE_", "REDIS_", "DATABASE_"];

/// Markers of a migration setting in an upper-cased name.
const MIGRATION_MARKERS: &[&str] = &["MIGRATION", "V4", "PROPAGATION", "BACKFILL"];

/// Classifies `name`, or returns `None` when it is known or outside Loupe's families.
pub fn classify(name: &str) -> Option<UnknownName> {
    if SETTINGS.iter().any(|s| s.name == name) {
        return None;
    }
    let upper = name.to_ascii_uppercase();
    if let Some(known) = SETTINGS.iter().find(|s| s.name == upper) {
        return Some(UnknownName::Misspelled {
            name: name.to_owned(),
            suggestion: known.name,
            wrong_case: true,
        });
    }
    if !CHECKED_PREFIXES.iter().any(|p| upper.starts_with(p)) {
        return None;
    }
    if UPSTREAM_NAMES_IGNORED.contains(&upper.as_str()) {
        return Some(UnknownName::Ignored { name: name.to_owned() });
    }
    let (nearest, distance) = nearest_known(&upper);
    if distance <= 2 {
        return Some(UnknownName::Misspelled {
            name: name.to_owned(),
            suggestion: nearest,
            wrong_case: false,
        });
    }
    if upper.starts_with("LANGFUSE_") && MIGRATION_MARKERS.iter().any(|m| upper.contains(m)) {
        return Some(UnknownName::UnknownMigrationSetting { name: name.to_owned(), nearest });
    }
    upper.starts_with("LANGFUSE_").then(|| UnknownName::Ignored { name: name.to_owned() })
}

fn nearest_known(upper: &str) -> (&'static str, usize) {
    SETTINGS
        .iter()
        .map(|s| (s.name, edit_distance(upper, s.name)))
        .min_by_key(|&(_, d)| d)
        .unwrap_or(("", usize::MAX))
}

/// Levenshtein distance over bytes; names are ASCII.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for (i, &ca) in a.iter().enumerate() {
        current[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_and_foreign_names_pass() {
        assert_eq!(classify("LANGFUSE_MIGRATION_V4_WRITE_MODE"), None);
        assert_eq!(classify("PATH"), None);
        assert_eq!(classify("HOME"), None);
    }

    #[test]
    fn wrong_case_v4_is_caught() {
        assert_eq!(
            classify("LANGFUSE_MIGRATION_v4_WRITE_MODE"),
            Some(UnknownName::Misspelled {
                name: "LANGFUSE_MIGRATION_v4_WRITE_MODE".into(),
                suggestion: "LANGFUSE_MIGRATION_V4_WRITE_MODE",
                wrong_case: true,
            })
        );
    }

    #[test]
    fn typo_is_caught_with_suggestion() {
        let Some(UnknownName::Misspelled { suggestion, wrong_case, .. }) =
            classify("LANGFUSE_MIGRATION_V4_WRITE_MOD")
        else {
            panic!("expected a misspelling");
        };
        assert_eq!(suggestion, "LANGFUSE_MIGRATION_V4_WRITE_MODE");
        assert!(!wrong_case);
        assert!(matches!(
            classify("CLICKHOUSE_UR"),
            Some(UnknownName::Misspelled { suggestion: "CLICKHOUSE_URL", .. })
        ));
    }

    #[test]
    fn unknown_migration_looking_name_is_refused() {
        assert!(matches!(
            classify("LANGFUSE_MIGRATION_V4_SOMETHING_ELSE"),
            Some(UnknownName::UnknownMigrationSetting { .. })
        ));
        assert!(matches!(classify("LANGFUSE_V4_WRITE"), Some(UnknownName::UnknownMigrationSetting { .. })));
    }

    #[test]
    fn upstream_and_unrelated_langfuse_names_are_only_ignored() {
        assert!(matches!(
            classify("LANGFUSE_EXPERIMENT_BACKFILL_THROTTLE_MS"),
            Some(UnknownName::Ignored { .. })
        ));
        assert!(matches!(classify("LANGFUSE_S3_MEDIA_UPLOAD_BUCKET"), Some(UnknownName::Ignored { .. })));
        assert_eq!(classify("REDIS_TLS_ENABLED"), None);
    }

    #[test]
    fn edit_distance_counts_edits() {
        assert_eq!(edit_distance("KITTEN", "SITTING"), 3);
        assert_eq!(edit_distance("", "AB"), 2);
        assert_eq!(edit_distance("SAME", "SAME"), 0);
    }
}
