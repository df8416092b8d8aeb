//! Each adapter's request and reply mapping against the loopback stub (`test_support::llm_stub`),
//! and the classification of failures.

use super::*;
use serde_json::json;
use test_support::llm_stub::{LlmStub, StubProvider, StubReply};

const KEY: &str = "sk-test-secret-4242";

fn connection(adapter: Adapter, base_url: String) -> Connection {
    Connection {
        adapter,
        base_url: Some(base_url),
        api_key: SecretString::from(KEY),
        extra_headers: vec![("X-Gateway-Team".into(), "evals".into())],
        config: None,
    }
}

fn request(output: Option<StructuredOutput>) -> ChatRequest {
    ChatRequest {
        model: "judge-model".into(),
        messages: vec![
            ChatMessage::system("You grade answers."),
            ChatMessage::user("Is 2+2=4 correct?"),
            ChatMessage::assistant("Let me think."),
            ChatMessage::user("Answer now."),
        ],
        params: ModelParams { temperature: Some(0.0), max_tokens: Some(256), top_p: Some(0.5) },
        output,
    }
}

fn verdict_schema() -> StructuredOutput {
    StructuredOutput {
        name: "score verdict".into(),
        schema: json!({
            "type": "object",
            "properties": {
                "score": { "type": "number", "description": "0 to 1" },
                "reasoning": { "type": ["string", "null"] },
            },
            "required": ["score", "reasoning"],
            "additionalProperties": false,
        }),
    }
}

fn client() -> LlmClient {
    LlmClient::new(OutboundPolicy::allow_all(), Duration::from_secs(10))
}

#[tokio::test]
async fn openai_maps_messages_params_and_headers_and_reads_text_and_usage() {
    let stub = LlmStub::start().await;
    stub.push(StubReply::text("Yes, correct."));
    let reply =
        client().chat(&connection(Adapter::OpenAi, stub.openai_base_url()), &request(None)).await.unwrap();
    assert_eq!(reply.text, "Yes, correct.");
    assert_eq!(reply.structured, None);
    assert_eq!(reply.usage, Some(Usage { input: 10, output: 5, total: 15 }));
    assert_eq!(reply.model, "judge-model");
    let seen = stub.requests();
    assert_eq!(seen.len(), 1);
    let sent = &seen[0];
    assert_eq!((sent.method.as_str(), sent.path.as_str()), ("POST", "/v1/chat/completions"));
    assert_eq!(sent.header("authorization"), Some("Bearer sk-test-secret-4242"));
    assert_eq!(sent.header("x-gateway-team"), Some("evals"));
    assert_eq!(sent.header("content-type"), Some("application/json"));
    assert_eq!(sent.body["model"], "judge-model");
    assert_eq!(
        sent.body["messages"],
        json!([
            { "role": "system", "content": "You grade answers." },
            { "role": "user", "content": "Is 2+2=4 correct?" },
            { "role": "assistant", "content": "Let me think." },
            { "role": "user", "content": "Answer now." },
        ])
    );
    assert_eq!((sent.body["temperature"].clone(), sent.body["max_tokens"].clone()), (json!(0.0), json!(256)));
    assert_eq!(sent.body["top_p"], json!(0.5));
    assert!(sent.body.get("response_format").is_none());
}

#[tokio::test]
async fn openai_structured_output_is_a_json_schema_response_format() {
    let stub = LlmStub::start().await;
    stub.push(StubReply::json(json!({ "score": 1, "reasoning": "4 is right" })));
    let conn = connection(Adapter::OpenAi, stub.openai_base_url());
    let reply = client().chat(&conn, &request(Some(verdict_schema()))).await.unwrap();
    assert_eq!(reply.structured, Some(json!({ "score": 1, "reasoning": "4 is right" })));
    let sent = &stub.requests()[0];
    assert_eq!(sent.body["response_format"]["type"], "json_schema");
    assert_eq!(sent.body["response_format"]["json_schema"]["name"], "score_verdict", "OpenAI's name pattern");
    assert_eq!(sent.body["response_format"]["json_schema"]["schema"], verdict_schema().schema);

    // A reply that is not the object asked for is unusable, not retryable.
    stub.push(StubReply::text("I think it is fine"));
    let error = client().chat(&conn, &request(Some(verdict_schema()))).await.unwrap_err();
    assert!(matches!(error, LlmError::BadOutput { .. }), "{error:?}");
    assert!(!error.retryable());
}

#[tokio::test]
async fn azure_calls_the_deployment_with_api_version_and_api_key_header() {
    let stub = LlmStub::start().await;
    let mut conn = connection(Adapter::Azure, stub.azure_base_url());
    conn.extra_headers.clear();
    let mut req = request(None);
    req.model = "my deployment".into();
    client().chat(&conn, &req).await.unwrap();
    let sent = &stub.requests()[0];
    assert_eq!(sent.path, "/openai/deployments/my%20deployment/chat/completions");
    assert_eq!(sent.query.as_deref(), Some("api-version=2025-02-01-preview"));
    assert_eq!(sent.header("api-key"), Some(KEY));
    assert_eq!(sent.header("authorization"), None);

    conn.base_url = None;
    let error = client().chat(&conn, &req).await.unwrap_err();
    assert!(
        matches!(&error, LlmError::Refused { status: 400, message } if message.contains("baseURL")),
        "{error:?}"
    );
}

#[tokio::test]
async fn anthropic_uses_the_messages_api_with_a_forced_tool_for_structured_output() {
    let stub = LlmStub::start().await;
    stub.push(StubReply::json(json!({ "score": 0.5, "reasoning": null })));
    let conn = connection(Adapter::Anthropic, stub.base_url());
    let mut req = request(Some(verdict_schema()));
    req.params.max_tokens = None;
    let reply = client().chat(&conn, &req).await.unwrap();
    assert_eq!(reply.structured, Some(json!({ "score": 0.5, "reasoning": null })));
    assert_eq!(reply.usage, Some(Usage { input: 10, output: 5, total: 15 }));
    let sent = &stub.requests()[0];
    assert_eq!(sent.path, "/v1/messages");
    assert_eq!(sent.header("x-api-key"), Some(KEY));
    assert_eq!(sent.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(sent.body["system"], "You grade answers.");
    assert_eq!(sent.body["max_tokens"], json!(anthropic::DEFAULT_MAX_TOKENS));
    assert_eq!(sent.body["messages"][0], json!({ "role": "user", "content": "Is 2+2=4 correct?" }));
    assert_eq!(sent.body["messages"].as_array().map(Vec::len), Some(3), "no system message among them");
    assert_eq!(sent.body["tools"][0]["name"], "score_verdict");
    assert_eq!(sent.body["tools"][0]["input_schema"], verdict_schema().schema);
    assert_eq!(sent.body["tool_choice"], json!({ "type": "tool", "name": "score_verdict" }));

    // Plain text, and a base URL given with its version segment.
    stub.push(StubReply::text("plain"));
    let conn = connection(Adapter::Anthropic, format!("{}/v1/", stub.base_url()));
    let reply = client().chat(&conn, &request(None)).await.unwrap();
    assert_eq!(reply.text, "plain");
    assert_eq!(stub.requests()[1].path, "/v1/messages");
    assert!(stub.requests()[1].body.get("tools").is_none());
}

#[tokio::test]
async fn google_ai_studio_uses_generate_content_with_a_response_schema() {
    let stub = LlmStub::start().await;
    stub.push(StubReply::json(json!({ "score": 0, "reasoning": "wrong" })));
    let conn = connection(Adapter::GoogleAiStudio, stub.base_url());
    let mut req = request(Some(verdict_schema()));
    req.model = "models/gemini-2.0-flash".into();
    let reply = client().chat(&conn, &req).await.unwrap();
    assert_eq!(reply.structured, Some(json!({ "score": 0, "reasoning": "wrong" })));
    assert_eq!(reply.model, "gemini-2.0-flash");
    let sent = &stub.requests()[0];
    assert_eq!(sent.provider(), StubProvider::Google);
    assert_eq!(sent.path, "/v1beta/models/gemini-2.0-flash:generateContent");
    assert_eq!(sent.header("x-goog-api-key"), Some(KEY));
    assert_eq!(sent.body["systemInstruction"], json!({ "parts": [{ "text": "You grade answers." }] }));
    assert_eq!(sent.body["contents"][1], json!({ "role": "model", "parts": [{ "text": "Let me think." }] }));
    let config = &sent.body["generationConfig"];
    assert_eq!((config["temperature"].clone(), config["maxOutputTokens"].clone()), (json!(0.0), json!(256)));
    assert_eq!(config["topP"], json!(0.5));
    assert_eq!(config["responseMimeType"], "application/json");
    assert_eq!(
        config["responseSchema"],
        json!({
            "type": "OBJECT",
            "properties": {
                "score": { "type": "NUMBER", "description": "0 to 1" },
                "reasoning": { "type": "STRING", "nullable": true },
            },
            "required": ["score", "reasoning"],
        }),
        "upper-case types, nullable, no additionalProperties"
    );
}

#[tokio::test]
async fn failures_are_classified_with_the_providers_message_and_never_the_key() {
    let stub = LlmStub::start().await;
    let conn = connection(Adapter::OpenAi, stub.openai_base_url());
    stub.push(StubReply::RateLimited { retry_after_secs: 3 });
    stub.push(StubReply::ServerError);
    stub.push(StubReply::Status(
        401,
        json!({ "error": { "message": format!("Incorrect API key provided: {KEY}"), "type": "invalid_request_error" } }),
    ));
    let client = client();
    let rate = client.chat(&conn, &request(None)).await.unwrap_err();
    assert_eq!(
        rate,
        LlmError::RateLimited {
            message: "Rate limit reached (stub)".into(),
            retry_after: Some(Duration::from_secs(3))
        }
    );
    assert!(rate.retryable());
    let server = client.chat(&conn, &request(None)).await.unwrap_err();
    assert!(matches!(&server, LlmError::Unavailable { status: Some(500), .. }), "{server:?}");
    assert!(server.retryable());
    let refused = client.chat(&conn, &request(None)).await.unwrap_err();
    assert_eq!(
        refused,
        LlmError::Refused { status: 401, message: "Incorrect API key provided: [redacted]".into() }
    );
    assert!(!refused.retryable());
    assert!(!refused.to_string().contains(KEY));
}

#[tokio::test]
async fn a_provider_that_does_not_answer_in_time_is_unavailable() {
    let stub = LlmStub::start().await;
    stub.push(StubReply::Hang(Duration::from_secs(5)));
    let conn = connection(Adapter::Anthropic, stub.base_url());
    let quick = LlmClient::new(OutboundPolicy::allow_all(), Duration::from_millis(300));
    let started = Instant::now();
    let error = quick.chat(&conn, &request(None)).await.unwrap_err();
    assert!(
        matches!(&error, LlmError::Unavailable { status: None, message } if message.contains("no reply within")),
        "{error:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(3), "bounded by the client's timeout");
    assert!(error.retryable());

    // Nobody listening at all.
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let error = quick.chat(&connection(Adapter::OpenAi, url), &request(None)).await.unwrap_err();
    assert!(matches!(&error, LlmError::Unavailable { status: None, .. }), "{error:?}");
}

#[tokio::test]
async fn bedrock_is_refused_without_a_call() {
    for adapter in [Adapter::Bedrock] {
        let error = client()
            .chat(&connection(adapter, "http://127.0.0.1:9".into()), &request(None))
            .await
            .unwrap_err();
        assert!(
            matches!(&error, LlmError::Refused { status: 400, message } if message.contains("not supported yet"))
        );
        assert!(!adapter.supported());
    }
    for adapter in Adapter::ALL {
        assert_eq!(Adapter::parse(adapter.as_str()), Some(adapter));
    }
}

#[test]
fn the_key_is_not_in_debug_output() {
    let conn = connection(Adapter::OpenAi, "http://x".into());
    let debug = format!("{conn:?}");
    assert!(!debug.contains(KEY) && debug.contains("X-Gateway-Team"), "{debug}");
}

/// A throwaway RSA key made for this test only (`openssl genpkey -algorithm RSA`); it opens nothing.
const TEST_RSA_KEY: &str = include_str!("../testdata/throwaway-test-rsa-key.pem");

fn service_account(token_uri: &str) -> String {
    json!({
        "type": "service_account",
        "project_id": "my-proj",
        "private_key_id": "k1",
        "private_key": TEST_RSA_KEY,
        "client_email": "judge@my-proj.iam.gserviceaccount.com",
        "token_uri": token_uri,
    })
    .to_string()
}

#[tokio::test]
async fn vertex_signs_a_token_request_then_calls_generate_content_with_the_token() {
    use base64::Engine;
    let stub = LlmStub::start().await;
    stub.push(StubReply::json(json!({ "score": 1, "reasoning": "ok" })));
    stub.push(StubReply::text("again"));
    let conn = Connection {
        adapter: Adapter::GoogleVertexAi,
        base_url: Some(stub.base_url()),
        api_key: SecretString::from(service_account(&stub.token_uri())),
        extra_headers: Vec::new(),
        config: Some(json!({ "location": "europe-west4" })),
    };
    let mut req = request(Some(verdict_schema()));
    req.model = "gemini-2.0-flash".into();
    let client = client();
    let reply = client.chat(&conn, &req).await.unwrap();
    assert_eq!(reply.structured, Some(json!({ "score": 1, "reasoning": "ok" })));
    assert_eq!(client.chat(&conn, &request(None)).await.unwrap().text, "again");

    let seen = stub.requests();
    assert_eq!(seen.len(), 3, "one token request for both calls: {seen:?}");
    let token_request = &seen[0];
    assert_eq!(token_request.path, "/token");
    assert_eq!(token_request.header("content-type"), Some("application/x-www-form-urlencoded"));
    let form: std::collections::HashMap<String, String> =
        url::form_urlencoded::parse(token_request.body.as_str().unwrap().as_bytes()).into_owned().collect();
    assert_eq!(form["grant_type"], "urn:ietf:params:oauth:grant-type:jwt-bearer");
    let parts: Vec<&str> = form["assertion"].split('.').collect();
    assert_eq!(parts.len(), 3);
    let decode = |part: &str| -> serde_json::Value {
        serde_json::from_slice(&base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(part).unwrap())
            .unwrap()
    };
    assert_eq!(decode(parts[0]), json!({ "alg": "RS256", "typ": "JWT" }));
    let claims = decode(parts[1]);
    assert_eq!(claims["iss"], "judge@my-proj.iam.gserviceaccount.com");
    assert_eq!(claims["aud"], json!(stub.token_uri()));
    assert_eq!(claims["scope"], "https://www.googleapis.com/auth/cloud-platform");
    assert_eq!(claims["exp"].as_u64().unwrap() - claims["iat"].as_u64().unwrap(), 3600);

    let call = &seen[1];
    assert_eq!(
        call.path,
        "/v1/projects/my-proj/locations/europe-west4/publishers/google/models/gemini-2.0-flash:generateContent"
    );
    assert_eq!(call.header("authorization"), Some("Bearer stub-access-token"));
    assert_eq!(call.body["generationConfig"]["responseMimeType"], "application/json");
    assert_eq!(call.body["systemInstruction"], json!({ "parts": [{ "text": "You grade answers." }] }));

    assert!(vertex::check_service_account(&service_account("x")).is_ok());
    let bad = vertex::check_service_account("{\"client_email\": \"a\"}").unwrap_err();
    assert!(bad.contains("missing field"), "{bad}");
    let not_json = vertex::check_service_account("sk-not-a-key-file").unwrap_err();
    assert!(!not_json.contains("sk-not-a-key-file"), "{not_json}");
}

/// The stub listens on loopback, which the default outbound policy refuses, by address and by name:
/// nothing reaches it, and the refusal is not retryable.
#[tokio::test]
async fn a_refused_destination_is_never_called_and_not_retried() {
    let stub = LlmStub::start().await;
    stub.push(StubReply::text("never sent"));
    let closed = LlmClient::new(OutboundPolicy::default(), Duration::from_secs(5));
    let by_address = stub.openai_base_url();
    let by_name = by_address.replace("127.0.0.1", "localhost");
    for base in [by_address, by_name] {
        let error =
            closed.chat(&connection(Adapter::OpenAi, base.clone()), &request(None)).await.unwrap_err();
        assert!(matches!(error, LlmError::Refused { status: 400, .. }), "{base}: {error:?}");
        assert!(!error.retryable(), "{base}");
        assert!(error.to_string().contains("LANGFUSE_OUTBOUND_ALLOWED_HOSTS"), "{base}: {error}");
    }
    assert!(stub.requests().is_empty(), "the stub was reached");
}

#[test]
fn system_text_splits_from_the_turns_and_alone_becomes_the_user_turn() {
    let request = |messages: Vec<ChatMessage>| ChatRequest {
        model: "m".into(),
        messages,
        params: ModelParams::default(),
        output: None,
    };
    let mixed = request(vec![
        ChatMessage::system("be fair"),
        ChatMessage { role: ChatRole::User, content: "q".into() },
        ChatMessage::system("be brief"),
        ChatMessage { role: ChatRole::Assistant, content: "a".into() },
    ]);
    let (system, turns) = mixed.split_system();
    assert_eq!(system.as_deref(), Some("be fair\n\nbe brief"));
    assert_eq!(
        turns.iter().map(|m| (m.role, m.content.as_str())).collect::<Vec<_>>(),
        [(ChatRole::User, "q"), (ChatRole::Assistant, "a")]
    );
    let only_system = request(vec![ChatMessage::system("rate it")]);
    let (system, turns) = only_system.split_system();
    assert_eq!(
        (system, turns),
        (None, vec![ChatMessage { role: ChatRole::User, content: "rate it".into() }])
    );
    let no_system = request(vec![ChatMessage { role: ChatRole::User, content: "q".into() }]);
    assert_eq!(no_system.split_system().0, None);
}
