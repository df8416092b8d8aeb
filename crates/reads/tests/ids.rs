//! Reads filtered by long id lists against the real engine: every list a read binds travels as
//! server-side parameters, so 100,000 ids (about 4 MB, sixteen times ClickHouse's
//! `max_query_size`) are one query. Over HTTP the request line bounds a list first (docs/limits.md).

#![allow(clippy::unwrap_used)] // tests fail loudly on purpose

use reads::Params;
use serde_json::json;
use storage::clickhouse::{ClickHouse, migrate};
use test_support::TestClickHouse;

/// 100,000 ids: `trace-000000`… for the first `real`, then made-up ids as long as UUIDs.
fn ids_with(real: usize) -> Vec<String> {
    (0..real).map(|i| format!("trace-{i:06}")).chain((real..100_000).map(|i| format!("{i:036x}"))).collect()
}

#[tokio::test]
async fn a_filter_of_a_hundred_thousand_trace_ids_is_answered() {
    let db = TestClickHouse::create().await;
    let ch = ClickHouse::connect(&db.settings());
    migrate(&ch).await.unwrap();
    ch.client()
        .query(
            "INSERT INTO traces (id, timestamp, project_id, tags, event_ts, is_deleted) SELECT \
             concat('trace-', leftPad(toString(number), 6, '0')), now64(3), 'p1', [concat('tag-', toString(number))], \
             now64(3), 0 FROM numbers(300)",
        )
        .execute()
        .await
        .unwrap();

    let filter = |column: &str, operator: &str, values: Vec<String>| {
        let filter =
            json!([{"type": "stringOptions", "column": column, "operator": operator, "value": values}]);
        Params::from_pairs([("filter", filter.to_string().as_str()), ("limit", "100"), ("orderBy", "id.asc")])
    };
    let any_of =
        reads::legacy::traces::list(&ch, "p1", &filter("id", "any of", ids_with(150))).await.unwrap();
    assert_eq!(any_of.meta.total_items, 150);
    assert_eq!(any_of.data.first().map(|t| t.trace.id.as_str()), Some("trace-000000"));
    assert_eq!(any_of.data.len(), 100);

    let none_of =
        reads::legacy::traces::list(&ch, "p1", &filter("id", "none of", ids_with(150))).await.unwrap();
    assert_eq!(none_of.meta.total_items, 150);
    assert_eq!(none_of.data.first().map(|t| t.trace.id.as_str()), Some("trace-000150"));

    // An array column: `hasAny` over the same kind of list.
    let tags: Vec<String> = (0..100_000).map(|i| format!("tag-{}", i * 2)).collect();
    let tagged = reads::legacy::traces::list(&ch, "p1", &filter("tags", "any of", tags)).await.unwrap();
    assert_eq!(tagged.meta.total_items, 150, "the even traces");
}
