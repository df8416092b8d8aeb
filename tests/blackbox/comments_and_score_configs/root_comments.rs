//! spec/v4-migration-spec.md §1.4: a trace's comments are shown on its root observation. An OTLP trace lands in the
//! events; listing the root span's comments includes the trace's, a child span's does not, and a
//! v3 trace's virtual root `t-<trace id>` shows them too.

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};

use super::{COMMENTS, comment};
use crate::api::Api;
use crate::apps::http;

const TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const ROOT: &str = "00f067aa0ba902b7";
const CHILD: &str = "00f067aa0ba902b8";

fn span(id: &str, parent: &str, start: i64) -> Value {
    json!({"traceId": TRACE, "spanId": id, "parentSpanId": parent, "name": id,
           "startTimeUnixNano": start.to_string(), "endTimeUnixNano": (start + 1_000).to_string()})
}

async fn contents(api: &Api, object_id: &str) -> Vec<String> {
    let path = format!("{COMMENTS}?objectType=OBSERVATION&objectId={object_id}");
    let listed = api.expect(200, Method::GET, &path, None).await;
    let mut contents: Vec<String> = listed["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["content"].as_str().unwrap().to_owned())
        .collect();
    contents.sort();
    contents
}

#[tokio::test]
async fn a_traces_comments_are_listed_with_its_root_observation() {
    let api = Api::start(&[("LANGFUSE_INGESTION_FLUSH_INTERVAL_MS", "100")]).await;
    let _worker = api.worker().await;
    let start = chrono::Utc::now().timestamp_nanos_opt().unwrap();
    let export = json!({"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [{"scope": {"name": "t"},
        "spans": [span(ROOT, "", start), span(CHILD, ROOT, start + 10)]}]}]});
    let response = http()
        .post(format!("{}/api/public/otel/v1/traces", api.web.base_url))
        .header("Authorization", &api.key)
        .json(&export)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);

    // A comment needs its object stored: 404 until the worker has written the spans.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (status, answer) =
            api.send(Method::POST, COMMENTS, Some(&comment("TRACE", TRACE, "on the trace"))).await;
        if status == 200 {
            break;
        }
        assert_eq!(status, 404, "{answer}");
        assert!(Instant::now() < deadline, "the trace never became commentable: {answer}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    api.expect(200, Method::POST, COMMENTS, Some(&comment("OBSERVATION", ROOT, "on the root"))).await;
    api.expect(200, Method::POST, COMMENTS, Some(&comment("OBSERVATION", CHILD, "on the child"))).await;

    // The root is recognised once its span is stored.
    let root_path = format!("{COMMENTS}?objectType=OBSERVATION&objectId={ROOT}");
    api.until(&root_path, |listed| listed["meta"]["totalItems"] == 2).await;
    assert_eq!(contents(&api, ROOT).await, ["on the root", "on the trace"]);
    assert_eq!(contents(&api, CHILD).await, ["on the child"], "a child span is not the trace's root");
    assert_eq!(
        contents(&api, &format!("t-{TRACE}")).await,
        ["on the trace"],
        "the virtual root of a v3 trace"
    );
    let traces =
        api.expect(200, Method::GET, &format!("{COMMENTS}?objectType=TRACE&objectId={TRACE}"), None).await;
    assert_eq!(traces["meta"]["totalItems"], 1, "the trace's own list is unchanged");
}
