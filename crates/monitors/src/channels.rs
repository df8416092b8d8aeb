//! Channels: how a transition is told to the outside. A signed webhook, a Slack incoming webhook,
//! or a GitHub `repository_dispatch` (a CI trigger). Their secrets are stored encrypted under
//! `ENCRYPTION_KEY` and decrypted only to send.

use ring::hmac;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use domain::outbound::OutboundPolicy;
use domain::secrets::{ENCRYPTION_KEY, EncryptionKey, display_form};
use resources::{Error, Result};

use crate::model::{
    ChannelBody, ChannelInput, MAX_EVENT_TYPE, MAX_GITHUB_NAME, MAX_SECRET, MAX_TOKEN, MAX_URL, MIN_SECRET,
};

/// The header carrying a webhook's signature: `t=<unix seconds>,v1=<hex HMAC-SHA256>` of
/// `<t>.<body>` under the channel's secret.
pub const SIGNATURE_HEADER: &str = "x-loupe-signature";
/// The notification's id: the same on every retry, so a receiver can drop a repeat.
pub const DELIVERY_HEADER: &str = "x-loupe-delivery";
/// `monitor.alerting` or `monitor.resolved`.
pub const EVENT_HEADER: &str = "x-loupe-event";

/// A channel as stored: public settings, the secret encrypted, and its display form.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct StoredChannel {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repo: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event_type: Option<String>,
    /// `iv:ciphertext:tag` (domain::secrets): the webhook secret, Slack URL or GitHub token.
    pub secret: String,
    pub display: String,
}

impl StoredChannel {
    pub fn body(&self) -> ChannelBody {
        ChannelBody {
            kind: self.kind.clone(),
            url: self.url.clone(),
            owner: self.owner.clone(),
            repo: self.repo.clone(),
            event_type: self.event_type.clone(),
            display_secret: self.display.clone(),
        }
    }
}

/// Checks channel inputs and seals their secrets. `key` is `None` when `ENCRYPTION_KEY` is unset,
/// which refuses any channel (a monitor without channels needs no key).
pub fn seal(
    inputs: Vec<ChannelInput>,
    key: Option<&EncryptionKey>,
    policy: &OutboundPolicy,
) -> Result<Vec<StoredChannel>> {
    if inputs.len() > crate::model::MAX_CHANNELS {
        return Err(Error::bad_request(format!(
            "channels takes at most {} channels",
            crate::model::MAX_CHANNELS
        )));
    }
    if inputs.is_empty() {
        return Ok(Vec::new());
    }
    let key = key.ok_or_else(|| {
        Error::bad_request(format!(
            "Monitor channels hold secrets, which are stored encrypted: set {ENCRYPTION_KEY} (64 hex characters, \
             `openssl rand -hex 32`) on web and worker"
        ))
    })?;
    inputs
        .into_iter()
        .enumerate()
        .map(|(i, input)| {
            let at = |field: &str| format!("channels[{i}].{field}");
            let stored = match input {
                ChannelInput::Webhook { url, secret } => {
                    check_url(&url, &at("url"), policy)?;
                    let length = secret.chars().count();
                    if !(MIN_SECRET..=MAX_SECRET).contains(&length) {
                        return Err(Error::bad_request(format!(
                            "{} must be {MIN_SECRET} to {MAX_SECRET} characters",
                            at("secret")
                        )));
                    }
                    StoredChannel {
                        kind: "webhook".into(),
                        url: Some(url),
                        owner: None,
                        repo: None,
                        event_type: None,
                        secret: key.encrypt(&secret),
                        display: display_form(&secret),
                    }
                }
                ChannelInput::Slack { url } => {
                    check_url(&url, &at("url"), policy)?;
                    StoredChannel {
                        kind: "slack".into(),
                        url: None,
                        owner: None,
                        repo: None,
                        event_type: None,
                        secret: key.encrypt(&url),
                        display: display_form(&url),
                    }
                }
                ChannelInput::Github { owner, repo, token, event_type } => {
                    check_github_name(&owner, &at("owner"))?;
                    check_github_name(&repo, &at("repo"))?;
                    if token.trim().is_empty() || token.len() > MAX_TOKEN {
                        return Err(Error::bad_request(format!(
                            "{} must be 1 to {MAX_TOKEN} characters",
                            at("token")
                        )));
                    }
                    if event_type.trim().is_empty() || event_type.chars().count() > MAX_EVENT_TYPE {
                        return Err(Error::bad_request(format!(
                            "{} must be 1 to {MAX_EVENT_TYPE} characters",
                            at("eventType")
                        )));
                    }
                    StoredChannel {
                        kind: "github".into(),
                        url: None,
                        owner: Some(owner),
                        repo: Some(repo),
                        event_type: Some(event_type),
                        secret: key.encrypt(&token),
                        display: display_form(&token),
                    }
                }
            };
            Ok(stored)
        })
        .collect()
}

fn check_github_name(name: &str, field: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= MAX_GITHUB_NAME
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && name != "."
        && name != "..";
    if ok {
        Ok(())
    } else {
        Err(Error::bad_request(format!(
            "{field} must be a GitHub name: 1 to {MAX_GITHUB_NAME} letters, digits, `-`, `_` or `.`"
        )))
    }
}

/// An http(s) URL of at most [`MAX_URL`] characters that the outbound policy lets the worker call
/// (`outbound::check_url`: no loopback, private, link-local or other non-public address unless
/// `LANGFUSE_OUTBOUND_ALLOWED_HOSTS` lists it; names are checked again at every connection).
pub fn check_url(url: &str, field: &str, policy: &OutboundPolicy) -> Result<()> {
    if url.len() > MAX_URL {
        return Err(Error::bad_request(format!("{field} must be at most {MAX_URL} characters")));
    }
    let parsed = outbound::check_url(policy, url).map_err(|e| Error::bad_request(format!("{field}: {e}")))?;
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err(Error::bad_request(format!("{field} must name a host")));
    }
    Ok(())
}

/// `t=<timestamp>,v1=<hex>`: HMAC-SHA256 under `secret` of `<timestamp>.<body>`.
pub fn signature(secret: &str, timestamp: i64, body: &str) -> String {
    let key = hmac::Key::new(hmac::HMAC_SHA256, secret.as_bytes());
    let mut context = hmac::Context::with_key(&key);
    context.update(timestamp.to_string().as_bytes());
    context.update(b".");
    context.update(body.as_bytes());
    format!("t={timestamp},v1={}", hex::encode(context.sign().as_ref()))
}

/// What a transition says, the same for every channel: webhooks send it as is, GitHub as the
/// dispatch's `client_payload` (GitHub allows at most 10 top-level keys: this has 10), Slack as a
/// sentence.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Payload {
    /// `monitor.alerting` or `monitor.resolved`.
    #[serde(rename = "type")]
    pub kind: String,
    pub monitor: PayloadMonitor,
    pub state: String,
    pub previous_state: String,
    pub value: Option<f64>,
    pub comparison: String,
    pub threshold: f64,
    pub window_seconds: i64,
    pub evaluated_at: String,
    pub notification_id: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PayloadMonitor {
    pub id: String,
    pub name: String,
    pub project_id: String,
}

impl Payload {
    fn sentence(&self) -> String {
        let value = self.value.map_or_else(|| "no data".to_owned(), |v| format!("{v}"));
        let what = if self.state == crate::model::ALERTING { "is ALERTING" } else { "is back to OK" };
        format!(
            "Monitor \"{}\" {what}: value {value} (alerts when {} {}) over the last {} s, at {}.",
            self.monitor.name, self.comparison, self.threshold, self.window_seconds, self.evaluated_at
        )
    }
}

/// The exact body a channel is sent (stored with the notification, so a retry sends the same).
pub fn body(kind: &str, channel: &StoredChannel, payload: &Payload) -> String {
    let value = match kind {
        "slack" => {
            let text = payload.sentence();
            json!({
                "text": text,
                "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": text}}],
            })
        }
        "github" => json!({
            "event_type": channel.event_type.clone().unwrap_or_default(),
            "client_payload": payload,
        }),
        _ => serde_json::to_value(payload).unwrap_or(Value::Null),
    };
    value.to_string()
}

/// What every delivery needs beside the notification: the key that opens channel secrets (`None`
/// without `ENCRYPTION_KEY`), GitHub's API base URL, and the outbound policy.
pub struct Senders<'a> {
    pub key: Option<&'a EncryptionKey>,
    pub github_api_url: &'a str,
    pub policy: &'a OutboundPolicy,
}

/// One request to send: where, how, what.
pub struct Request {
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

/// The request of one delivery attempt of `body` over `channel`, made now (a webhook's signature
/// carries the attempt's own time).
pub fn request(
    channel: &StoredChannel,
    body: &str,
    notification_id: &str,
    event: &str,
    senders: &Senders<'_>,
    now: i64,
) -> std::result::Result<Request, String> {
    let key = senders.key.ok_or_else(|| {
        format!("{ENCRYPTION_KEY} is not set on this worker: the channel's secret cannot be read")
    })?;
    let secret = key.decrypt(&channel.secret).map_err(|e| e.to_string())?;
    let json = ("content-type".to_owned(), "application/json".to_owned());
    let agent = ("user-agent".to_owned(), "Loupe-Monitors".to_owned());
    let request = match channel.kind.as_str() {
        "webhook" => Request {
            url: channel.url.clone().unwrap_or_default(),
            headers: vec![
                json,
                agent,
                (SIGNATURE_HEADER.to_owned(), signature(&secret, now, body)),
                (DELIVERY_HEADER.to_owned(), notification_id.to_owned()),
                (EVENT_HEADER.to_owned(), event.to_owned()),
            ],
            body: body.to_owned(),
        },
        "slack" => Request { url: secret, headers: vec![json, agent], body: body.to_owned() },
        "github" => Request {
            url: format!(
                "{}/repos/{}/{}/dispatches",
                senders.github_api_url,
                channel.owner.as_deref().unwrap_or_default(),
                channel.repo.as_deref().unwrap_or_default()
            ),
            headers: vec![
                json,
                agent,
                ("accept".to_owned(), "application/vnd.github+json".to_owned()),
                ("authorization".to_owned(), format!("Bearer {secret}")),
                ("x-github-api-version".to_owned(), "2022-11-28".to_owned()),
            ],
            body: body.to_owned(),
        },
        other => return Err(format!("unknown channel type `{other}`")),
    };
    // Checked again at send time: the policy may have changed since the channel was saved, and an
    // address written in a URL never reaches the client's guarded resolver.
    outbound::check_url(senders.policy, &request.url).map_err(|e| e.to_string())?;
    Ok(request)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn public() -> OutboundPolicy {
        OutboundPolicy::default()
    }

    fn key() -> EncryptionKey {
        EncryptionKey::parse(&"ab".repeat(32)).unwrap()
    }

    #[test]
    fn signature_is_hmac_sha256_of_timestamp_dot_body() {
        // RFC 4231 style check through an independent computation of the same construction.
        let body = r#"{"a":1}"#;
        let sig = signature("0123456789abcdef", 1_700_000_000, body);
        let key = hmac::Key::new(hmac::HMAC_SHA256, b"0123456789abcdef");
        let expected = hmac::sign(&key, b"1700000000.{\"a\":1}");
        assert_eq!(sig, format!("t=1700000000,v1={}", hex::encode(expected.as_ref())));
        assert_ne!(sig, signature("0123456789abcdef", 1_700_000_001, body), "the time is signed");
    }

    #[test]
    fn secrets_are_sealed_and_shown_only_as_display_form() {
        let inputs = vec![
            ChannelInput::Webhook { url: "https://example.com/hook".into(), secret: "s".repeat(20) + "wxyz" },
            ChannelInput::Slack { url: "https://hooks.slack.com/services/T/B/abcd".into() },
            ChannelInput::Github {
                owner: "acme".into(),
                repo: "app".into(),
                token: "ghp_secret1234".into(),
                event_type: "loupe-monitor".into(),
            },
        ];
        let stored = seal(inputs, Some(&key()), &public()).unwrap();
        let shown =
            serde_json::to_string(&stored.iter().map(StoredChannel::body).collect::<Vec<_>>()).unwrap();
        assert!(!shown.contains("ghp_secret") && !shown.contains("hooks.slack.com"), "{shown}");
        assert!(shown.contains("...wxyz") && shown.contains("...1234"), "{shown}");
        assert_eq!(key().decrypt(&stored[2].secret).unwrap(), "ghp_secret1234");
        let policy = public();
        let key = key();
        let make = |channel: &StoredChannel, github: &str| {
            let senders = Senders { key: Some(&key), github_api_url: github, policy: &policy };
            request(channel, "{}", "n1", "monitor.alerting", &senders, 1)
        };
        let dispatch = make(&stored[2], "http://gh.example").unwrap();
        assert_eq!(dispatch.url, "http://gh.example/repos/acme/app/dispatches");
        assert!(dispatch.headers.contains(&("authorization".into(), "Bearer ghp_secret1234".into())));
        assert!(make(&stored[0], "http://10.0.0.1").is_ok(), "the webhook's own URL is public");
        let refused = make(&stored[2], "http://10.0.0.1").err().unwrap_or_default();
        assert!(refused.contains("LANGFUSE_OUTBOUND_ALLOWED_HOSTS"), "checked at send time: {refused}");
    }

    #[test]
    fn bad_channels_are_refused_with_where() {
        let webhook =
            |url: &str, secret: &str| ChannelInput::Webhook { url: url.into(), secret: secret.into() };
        let allow_all = OutboundPolicy::allow_all();
        let error =
            |inputs, policy: &OutboundPolicy| seal(inputs, Some(&key()), policy).unwrap_err().to_string();
        assert!(error(vec![webhook("ftp://x", &"s".repeat(16))], &public()).contains("channels[0].url"));
        assert!(error(vec![webhook("https://x.example", "short")], &public()).contains("channels[0].secret"));
        // Addresses written in the URL are refused on save; names are refused when resolved.
        for private in
            ["http://127.0.0.1:9/h", "http://10.1.2.3/", "http://[::1]/", "http://169.254.169.254/"]
        {
            let refused = error(vec![webhook(private, &"s".repeat(16))], &public());
            assert!(
                refused.contains("channels[0].url") && refused.contains("LANGFUSE_OUTBOUND_ALLOWED_HOSTS"),
                "{refused}"
            );
            assert!(seal(vec![webhook(private, &"s".repeat(16))], Some(&key()), &allow_all).is_ok());
        }
        let github = ChannelInput::Github {
            owner: "a/b".into(),
            repo: "r".into(),
            token: "t".into(),
            event_type: "e".into(),
        };
        assert!(error(vec![github], &public()).contains("channels[0].owner"));
        let no_key = seal(vec![webhook("https://x.example", &"s".repeat(16))], None, &public()).unwrap_err();
        assert!(no_key.to_string().contains("ENCRYPTION_KEY"));
        assert!(seal(vec![], None, &public()).unwrap().is_empty(), "no channel needs no key");
    }
}
