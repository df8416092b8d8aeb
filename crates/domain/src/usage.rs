//! The usage a generation is stored with, from the counts its client provided (issue 17).

use std::collections::BTreeMap;

/// The usage a generation is stored with: the counts the client provided, keys exactly as sent
/// (`prompt_tokens` stays `prompt_tokens`), plus a `total` — the sum of every provided count — when
/// the client sent none. Upstream's `getUsageUnits` does the same for both data models.
pub fn usage_units(provided: &BTreeMap<String, u64>) -> BTreeMap<String, u64> {
    let mut usage = provided.clone();
    if !usage.is_empty() && !usage.contains_key("total") {
        let total = provided.values().fold(0u64, |sum, n| sum.saturating_add(*n));
        usage.insert("total".to_owned(), total);
    }
    usage
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_units_keep_a_sent_total_and_add_none_to_nothing() {
        let sent = BTreeMap::from([("input".to_owned(), 3), ("total".to_owned(), 99)]);
        assert_eq!(usage_units(&sent), sent);
        assert!(usage_units(&BTreeMap::new()).is_empty());
    }
}
