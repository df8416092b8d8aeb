use domain::config::RedisSettings;

#[tokio::test]
async fn ping_answers_and_a_dead_server_is_unavailable() {
    let live = RedisSettings {
        url: test_support::stack_var("REDIS_CONNECTION_STRING").into(),
        key_prefix: String::new(),
    };
    storage::redis::check(&storage::redis::connect(&live).unwrap()).await.unwrap();

    // Port 1 on loopback: nothing listens there.
    let dead = RedisSettings { url: "redis://127.0.0.1:1".to_owned().into(), key_prefix: String::new() };
    let error = storage::redis::check(&storage::redis::connect(&dead).unwrap()).await.unwrap_err();
    assert!(error.is_unavailable(), "{error}");
}

const DAY: i64 = 86_400_000_000;

/// Trace deletion marks: found by project and trace, the latest time wins, and only the days from
/// the oldest entry's acceptance on are asked about.
#[tokio::test]
async fn trace_deletion_marks_are_found_from_the_day_asked_on() {
    use std::collections::{BTreeMap, BTreeSet};

    let settings = RedisSettings {
        url: test_support::stack_var("REDIS_CONNECTION_STRING").into(),
        key_prefix: String::new(),
    };
    let stream = format!("test-{}:ingestion", uuid::Uuid::new_v4().simple());
    let queue = storage::queue::IngestionQueue::new(storage::redis::connect(&settings).unwrap(), stream);
    let now = 20_000 * DAY + 5;
    queue.mark_deleted("p", &["old".into()], now - 3 * DAY).await.unwrap();
    queue.mark_deleted("p", &["a".into(), "b".into()], now - DAY).await.unwrap();
    queue.mark_deleted("p", &["a".into()], now).await.unwrap();
    queue.mark_deleted("q", &["c".into()], now).await.unwrap();

    let asked: BTreeMap<&str, BTreeSet<&str>> =
        BTreeMap::from([("p", BTreeSet::from(["a", "b", "old", "never"])), ("r", BTreeSet::from(["c"]))]);
    let since_yesterday = queue.deleted_since(&asked, now - DAY, now).await.unwrap();
    let mut found: Vec<_> = since_yesterday.into_iter().collect();
    found.sort();
    assert_eq!(found, [(("p".into(), "a".into()), now), (("p".into(), "b".into()), now - DAY)]);

    let since_long_ago = queue.deleted_since(&asked, now - 30 * DAY, now).await.unwrap();
    assert_eq!(since_long_ago.get(&("p".into(), "old".into())), Some(&(now - 3 * DAY)));
    assert_eq!(since_long_ago.len(), 3, "{since_long_ago:?}");
    assert!(queue.deleted_since(&BTreeMap::new(), now, now).await.unwrap().is_empty());
}
