//! The HTTP exchange shared by the adapters: headers, a bounded reply, and the classification of
//! failures into [`LlmError`] with the provider's message (never the key) and its retry hint.

use crate::{Connection, LlmError};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use secrecy::ExposeSecret;
use std::time::Duration;

/// Replies larger than this are not judge replies; reading stops there.
const MAX_REPLY_BYTES: usize = 8 * 1024 * 1024;
/// The part of an error body kept when the provider's message is not JSON.
const MAX_MESSAGE_CHARS: usize = 1000;

/// What an adapter wants sent: a POST of `body` to `url` with its authentication headers.
pub(crate) struct HttpCall {
    pub url: String,
    pub headers: Vec<(&'static str, String)>,
    pub body: serde_json::Value,
}

/// POST the call; the parsed JSON body of a 2xx reply, or the classified failure.
pub(crate) async fn send(
    http: &Http,
    timeout: Duration,
    connection: &Connection,
    call: HttpCall,
) -> Result<serde_json::Value, LlmError> {
    let headers = headers(connection, &call.headers)?;
    let body = serde_json::to_vec(&call.body).expect("a JSON value serializes");
    let secret = connection.api_key.expose_secret();
    exchange(http, timeout, secret, &call.url, headers, body, "application/json").await
}

/// POST `body` as `content_type`; the parsed JSON body of a 2xx reply, or the classified failure
/// with `secret` redacted from its message.
pub(crate) async fn exchange(
    http: &Http,
    timeout: Duration,
    secret: &str,
    url: &str,
    headers: HeaderMap,
    body: Vec<u8>,
    content_type: &'static str,
) -> Result<serde_json::Value, LlmError> {
    let key = secret;
    if let Err(refused) = outbound::check_url(&http.policy, url) {
        return Err(LlmError::Refused { status: 400, message: refused.to_string() });
    }
    let result = http
        .client
        .post(url)
        .headers(headers)
        .header(reqwest::header::CONTENT_TYPE, content_type)
        .body(body)
        .send()
        .await;
    let mut response = match result {
        Ok(response) => response,
        Err(error) => return Err(transport_error(&error, timeout, key)),
    };
    let status = response.status().as_u16();
    let retry_after = retry_after(response.headers());
    let mut body = Vec::new();
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                if body.len() + chunk.len() > MAX_REPLY_BYTES {
                    return Err(LlmError::BadOutput {
                        message: format!("the reply is larger than {MAX_REPLY_BYTES} bytes"),
                    });
                }
                body.extend_from_slice(&chunk);
            }
            Ok(None) => break,
            Err(error) => return Err(transport_error(&error, timeout, key)),
        }
    }
    if (200..300).contains(&status) {
        return serde_json::from_slice(&body).map_err(|error| LlmError::BadOutput {
            message: format!("the provider's reply is not JSON: {error}"),
        });
    }
    let message = redact(&error_message(&body, status), key);
    Err(match status {
        429 => {
            LlmError::RateLimited { message, retry_after: retry_after.or_else(|| google_retry_delay(&body)) }
        }
        408 | 500..=599 => LlmError::Unavailable { status: Some(status), message },
        _ => LlmError::Refused { status, message },
    })
}

pub(crate) fn headers(
    connection: &Connection,
    own: &[(&'static str, String)],
) -> Result<HeaderMap, LlmError> {
    let mut map = HeaderMap::new();
    for (name, value) in own {
        let value = HeaderValue::from_str(value).map_err(|_| {
            LlmError::refused("the API key contains characters not allowed in an HTTP header")
        })?;
        map.insert(HeaderName::from_static(name), value);
    }
    for (name, value) in &connection.extra_headers {
        let header_name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
            LlmError::refused(format!("extra header `{name}` is not a valid HTTP header name"))
        })?;
        let header_value = HeaderValue::from_str(value).map_err(|_| {
            LlmError::refused(format!("extra header `{name}` has a value not allowed in HTTP"))
        })?;
        map.insert(header_name, header_value);
    }
    Ok(map)
}

fn transport_error(error: &reqwest::Error, timeout: Duration, key: &str) -> LlmError {
    // A destination the outbound policy refuses will be refused next time too: not retryable.
    if refused_by_policy(error) {
        return LlmError::Refused { status: 400, message: redact(&source_chain(error), key) };
    }
    let message = if error.is_timeout() {
        format!("no reply within {} s", timeout.as_secs_f64())
    } else if error.is_connect() {
        format!("could not connect: {}", source_chain(error))
    } else {
        source_chain(error)
    };
    LlmError::Unavailable { status: None, message: redact(&message, key) }
}

fn refused_by_policy(error: &reqwest::Error) -> bool {
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        if cause.downcast_ref::<outbound::OutboundError>().is_some() {
            return true;
        }
        source = cause.source();
    }
    false
}

/// The shared HTTP client and the outbound policy every URL it is handed must pass
/// (docs/outbound.md): the client's resolver checks names, `exchange` checks addresses in URLs.
pub(crate) struct Http {
    pub(crate) client: reqwest::Client,
    pub(crate) policy: std::sync::Arc<domain::outbound::OutboundPolicy>,
}

/// reqwest's top-level message is generic ("error sending request"); the cause says why.
fn source_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// The provider's own message: `error.message` (OpenAI, Azure, Anthropic, Google), a top-level
/// `message`, or the start of the body.
fn error_message(body: &[u8], status: u16) -> String {
    if let Ok(value) = serde_json::from_slice::<serde_json::Value>(body) {
        let error = value.get("error");
        let found = error
            .and_then(|error| error.get("message"))
            .or_else(|| value.get("message"))
            .or_else(|| value.get("error_description"))
            .or_else(|| error.filter(|error| error.is_string()))
            .and_then(|message| message.as_str());
        if let Some(message) = found.filter(|message| !message.trim().is_empty()) {
            return truncate(message.trim());
        }
    }
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    if text.is_empty() { format!("HTTP {status} with an empty body") } else { truncate(text) }
}

fn truncate(text: &str) -> String {
    match text.char_indices().nth(MAX_MESSAGE_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// Providers sometimes echo the key they were given (or part of it); it must not reach a log.
fn redact(message: &str, key: &str) -> String {
    if key.len() >= 4 && message.contains(key) {
        message.replace(key, "[redacted]")
    } else {
        message.to_owned()
    }
}

/// `retry-after-ms` (OpenAI), or `Retry-After` in seconds or as an HTTP date.
pub(crate) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let text = |name: &str| headers.get(name).and_then(|value| value.to_str().ok()).map(str::trim);
    if let Some(ms) = text("retry-after-ms").and_then(|value| value.parse::<f64>().ok()) {
        return seconds(ms / 1000.0);
    }
    let value = text("retry-after")?;
    if let Ok(secs) = value.parse::<f64>() {
        return seconds(secs);
    }
    let when = chrono::DateTime::parse_from_rfc2822(value).ok()?;
    let wait = when.with_timezone(&chrono::Utc) - chrono::Utc::now();
    Some(wait.to_std().unwrap_or(Duration::ZERO))
}

fn seconds(secs: f64) -> Option<Duration> {
    (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs.min(86_400.0)))
}

/// Google puts the wait in the body: `error.details[] { "@type": "...RetryInfo", "retryDelay": "30s" }`.
fn google_retry_delay(body: &[u8]) -> Option<Duration> {
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    let details = value.get("error")?.get("details")?.as_array()?;
    details.iter().find_map(|detail| {
        let delay = detail.get("retryDelay")?.as_str()?;
        seconds(delay.strip_suffix('s')?.parse().ok()?)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_forms() {
        let mut headers = HeaderMap::new();
        headers.insert("retry-after", HeaderValue::from_static("7"));
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(7)));
        headers.insert("retry-after-ms", HeaderValue::from_static("1500"));
        assert_eq!(retry_after(&headers), Some(Duration::from_millis(1500)));
        let mut dated = HeaderMap::new();
        dated.insert("retry-after", HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"));
        assert_eq!(retry_after(&dated), Some(Duration::ZERO), "a past date means now");
        dated.insert("retry-after", HeaderValue::from_static("soon"));
        assert_eq!(retry_after(&dated), None);
    }

    #[test]
    fn error_messages_are_the_providers_and_never_the_key() {
        let openai = br#"{"error":{"message":"Incorrect API key provided: sk-secret1234","type":"invalid_request_error"}}"#;
        let message = redact(&error_message(openai, 401), "sk-secret1234");
        assert_eq!(message, "Incorrect API key provided: [redacted]");
        assert_eq!(error_message(b"upstream connect error", 503), "upstream connect error");
        assert_eq!(error_message(b"", 502), "HTTP 502 with an empty body");
        let google = br#"{"error":{"code":429,"message":"Quota exceeded","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"31s"}]}}"#;
        assert_eq!(error_message(google, 429), "Quota exceeded");
        assert_eq!(google_retry_delay(google), Some(Duration::from_secs(31)));
        let long = "x".repeat(5000);
        assert_eq!(error_message(long.as_bytes(), 500).chars().count(), MAX_MESSAGE_CHARS + 1);
    }
}
