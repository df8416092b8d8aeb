use super::*;

fn params(pairs: &[(&str, &str)]) -> Params {
    Params::from_pairs(pairs.iter().copied())
}

#[test]
fn list_requests_are_bounded() {
    let request = ListRequest::parse(&params(&[("search", "  user-1 ")])).unwrap();
    assert_eq!((request.page.page, request.page.limit), (1, 50));
    assert_eq!(request.search.as_deref(), Some("user-1"), "the search is trimmed");
    assert!(ListRequest::parse(&params(&[("search", "   ")])).unwrap().search.is_none());

    let long = "x".repeat(MAX_SEARCH_CHARS + 1);
    assert!(ListRequest::parse(&params(&[("search", &long)])).is_err());
    assert!(ListRequest::parse(&params(&[("limit", "101")])).is_err());
    assert!(ListRequest::parse(&params(&[("page", "0")])).is_err());
    let backwards = [("fromTimestamp", "2026-01-02T00:00:00Z"), ("toTimestamp", "2026-01-01T00:00:00Z")];
    assert!(ListRequest::parse(&params(&backwards)).is_err());
    assert!(ListRequest::parse(&params(&[("fromTimestamp", "yesterday")])).is_err());
}

#[test]
fn user_input_is_bound_never_written_into_the_sql() {
    let request = ListRequest::parse(&params(&[("search", "x') OR 1=1 --")])).unwrap();
    for sql in [v4::ranking("p", &request), v3::ranking("p", &request)] {
        assert!(!sql.text().contains("OR 1=1"), "{}", sql.text());
        assert!(sql.text().contains("HAVING positionCaseInsensitive"), "{}", sql.text());
    }
    let plain = ListRequest::parse(&params(&[])).unwrap();
    assert!(!v4::ranking("p", &plain).text().contains("user_id"), "no search reads no user column");
}

#[test]
fn a_trace_row_reads_both_spellings_of_its_previews() {
    let row: TraceRow = serde_json::from_value(serde_json::json!({
        "id": "t", "traceName": "chat", "startTime": "2026-01-01T00:00:00.000Z",
        "endTime": "2026-01-01T00:00:01.500Z", "durationSeconds": 1.5, "observations": 3, "totalCost": 0,
        "totalTokens": 10, "userId": null, "inputPreview": "hi", "inputChars": 2, "outputPreview": null,
        "outputChars": 0, "_total": 7
    }))
    .unwrap();
    assert_eq!(row.total, 7);
    assert_eq!(row.trace.name.as_deref(), Some("chat"));
    assert_eq!(row.trace.input.as_deref(), Some("hi"));
    let body = serde_json::to_value(&row.trace).unwrap();
    assert_eq!(body["name"], "chat");
    assert_eq!(body["input"], "hi");
    assert!(body.get("inputPreview").is_none());
}
