//! The v2 observations' SQL: groups, conditions, the search, the cursor.

use super::*;

#[test]
fn default_groups_are_core_and_basic() {
    assert_eq!(groups(&Params::default()), ["core", "basic"]);
    let p = Params::from_pairs([("fields", "io,usage,bogus")]);
    assert_eq!(groups(&p), ["core", "io", "usage"]);
    assert_eq!(groups(&Params::from_pairs([("fields", "scores")])), ["core", "scores"]);
}

#[test]
fn io_filters_need_an_indexed_operator() {
    let f =
        filter::parse(r#"[{"type":"string","column":"input","operator":"contains","value":"x"}]"#).unwrap();
    assert!(check_io_filters(&f).is_err());
    let f =
        filter::parse(r#"[{"type":"string","column":"input","operator":"matches","value":"x"}]"#).unwrap();
    assert!(check_io_filters(&f).unwrap());
}

#[test]
fn a_score_filter_is_a_project_scoped_subquery_per_subject() {
    let f =
        filter::parse(r#"[{"type":"numberObject","column":"scores","key":"q","operator":">=","value":0.5}]"#)
            .unwrap();
    let sql = score_condition("p", &f[0]).unwrap();
    let newest = |kind: &str| {
        let m = format!("name = ? AND data_type IN ('NUMERIC', 'BOOLEAN') AND value >= ? AND {kind}");
        format!(
            "(SELECT * FROM (SELECT * FROM scores WHERE project_id = ? AND id IN (SELECT id FROM scores \
             WHERE project_id = ? AND ({m})) ORDER BY event_ts DESC LIMIT 1 BY id) WHERE is_deleted = 0 \
             AND ({m})) AS latest"
        )
    };
    assert_eq!(
        sql.text(),
        format!(
            "span_id IN (SELECT ifNull(observation_id, '') FROM {}) OR (parent_span_id = '' AND trace_id IN \
             (SELECT ifNull(trace_id, '') FROM {}))",
            newest("ifNull(observation_id, '') != ''"),
            newest(scores::TRACE_KIND)
        )
    );
    // Two subqueries, each binding the project twice and the name and value twice.
    assert_eq!(sql.text().matches('?').count(), 2 * (2 + 2 * 2));
    let f = filter::parse(r#"[{"type":"number","column":"scores","operator":"=","value":1}]"#).unwrap();
    assert!(filter::to_sql(&f, COLUMNS).is_err(), "never through the generic filter");
}

#[test]
fn a_search_is_one_bounded_or() {
    let sql = search_condition("abc").unwrap();
    assert_eq!(
        sql.text(),
        "(positionCaseInsensitive(name, ?) > 0 OR span_id = ? OR trace_id = ? OR user_id = ? OR session_id = ?)"
    );
    assert!(search_condition(&"x".repeat(MAX_SEARCH_CHARS + 1)).is_err());
}

#[test]
fn an_input_output_search_is_every_word_through_the_text_indexes() {
    let sql = io_search_condition("Refund POLICY").unwrap();
    assert_eq!(sql.text(), "(hasAllTokens(lower(input), ?) OR hasAllTokens(lower(output), ?))");
    assert!(io_search_condition("?!-").is_err(), "no word, nothing the index could answer");
    assert!(io_search_condition(&"x".repeat(MAX_SEARCH_CHARS + 1)).is_err());
}

#[test]
fn a_cursor_continues_only_in_its_own_order() {
    let cursor = |ascending| Cursor::after("2026-01-01T00:00:00.000001Z", "t", "o", ascending);
    let up = cursor_condition(cursor(true), true).unwrap();
    assert!(up.text().starts_with("start_time >= "), "{}", up.text());
    assert!(up.text().contains("span_id) > ("), "{}", up.text());
    let down = cursor_condition(cursor(false), false).unwrap();
    assert!(down.text().starts_with("start_time <= "), "{}", down.text());
    assert!(cursor_condition(cursor(false), true).is_err());
    assert!(cursor_condition(cursor(true), false).is_err());
    // A descending cursor is what the public route has always handed out.
    let old = r#"{"lastStartTimeTo":"2026-01-01T00:00:00Z","lastTraceId":"t","lastId":"o"}"#;
    let parsed: Cursor = serde_json::from_str(old).unwrap();
    assert!(!parsed.ascending);
    assert!(!serde_json::to_string(&cursor(false)).unwrap().contains("ascending"));
}

#[test]
fn a_filter_overrides_the_parameter_for_its_column() {
    let p = Params::from_pairs([("name", "a"), ("userId", "u")]);
    let f = filter::parse(r#"[{"type":"string","column":"name","operator":"=","value":"b"}]"#).unwrap();
    let sql: Vec<String> = param_conditions(&p, &f).unwrap().iter().map(|s| s.text().to_owned()).collect();
    assert_eq!(sql, ["user_id = ?"]);
}
