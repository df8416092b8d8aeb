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
