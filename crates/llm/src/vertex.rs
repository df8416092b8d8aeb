//! Google Vertex AI: the same `generateContent` body as AI Studio, sent to
//! `https://{location}-aiplatform.googleapis.com/v1/projects/{project}/locations/{location}/publishers/google/models/{model}:generateContent`
//! with an OAuth access token. The connection's secret is a service-account key (the JSON file
//! Google issues); the token comes from the key's `token_uri` for a JWT signed with its RSA key
//! (RS256, scope `cloud-platform`), and is kept until a minute before it expires.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use reqwest::header::{AUTHORIZATION, HeaderValue};
use ring::signature::{RSA_PKCS1_SHA256, RsaKeyPair};
use secrecy::ExposeSecret;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::{ChatRequest, Connection, LlmError, base_url, wire};

pub const DEFAULT_LOCATION: &str = "us-central1";
const DEFAULT_TOKEN_URI: &str = "https://oauth2.googleapis.com/token";
const SCOPE: &str = "https://www.googleapis.com/auth/cloud-platform";

/// The fields of a service-account key file that a call needs.
#[derive(Deserialize)]
struct ServiceAccount {
    client_email: String,
    private_key: String,
    project_id: String,
    token_uri: Option<String>,
}

impl ServiceAccount {
    fn parse(secret: &str) -> Result<(Self, RsaKeyPair), String> {
        let account: ServiceAccount = serde_json::from_str(secret).map_err(|error| {
            // serde's words, without the value: the key file is a secret.
            format!("a google-vertex-ai key must be a service-account key file (JSON with client_email, private_key, project_id): {}", error.classify_text())
        })?;
        let der: String =
            account.private_key.lines().map(str::trim).filter(|line| !line.starts_with("-----")).collect();
        let der = STANDARD
            .decode(der)
            .map_err(|_| "the service account's private_key is not a PEM key".to_owned())?;
        let key = RsaKeyPair::from_pkcs8(&der)
            .map_err(|_| "the service account's private_key is not an RSA key in PKCS#8 form".to_owned())?;
        Ok((account, key))
    }
}

trait ClassifyText {
    fn classify_text(&self) -> String;
}

impl ClassifyText for serde_json::Error {
    fn classify_text(&self) -> String {
        let text = self.to_string();
        if text.starts_with("missing field") { text } else { format!("{:?} error", self.classify()) }
    }
}

/// Whether `secret` is a usable service-account key; the message says what is wrong (never
/// quoting it). The API checks this when a connection is stored.
pub fn check_service_account(secret: &str) -> Result<(), String> {
    ServiceAccount::parse(secret).map(|_| ())
}

/// Access tokens by service account and token endpoint, shared by the client's clones.
#[derive(Default)]
pub(crate) struct TokenCache {
    tokens: Mutex<HashMap<(String, String), (String, Instant)>>,
}

impl TokenCache {
    fn get(&self, key: &(String, String)) -> Option<String> {
        let tokens = self.tokens.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        tokens.get(key).filter(|(_, until)| Instant::now() < *until).map(|(token, _)| token.clone())
    }

    fn put(&self, key: (String, String), token: String, lifetime: Duration) {
        let mut tokens = self.tokens.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        // Renewed a minute early, so a call never starts with a token about to lapse.
        tokens.insert(key, (token, Instant::now() + lifetime.saturating_sub(Duration::from_secs(60))));
    }
}

pub(crate) async fn call(
    http: &wire::Http,
    timeout: Duration,
    cache: &TokenCache,
    connection: &Connection,
    request: &ChatRequest,
) -> Result<Value, LlmError> {
    let (account, key) =
        ServiceAccount::parse(connection.api_key.expose_secret()).map_err(LlmError::refused)?;
    let token = access_token(http, timeout, cache, &account, &key).await?;
    let location = connection
        .config
        .as_ref()
        .and_then(|config| config.get("location"))
        .and_then(Value::as_str)
        .unwrap_or(DEFAULT_LOCATION);
    let host = if location == "global" {
        "https://aiplatform.googleapis.com".to_owned()
    } else {
        format!("https://{location}-aiplatform.googleapis.com")
    };
    let base = base_url(connection, &host).to_owned();
    let model = request.model.strip_prefix("models/").unwrap_or(&request.model);
    let url = format!(
        "{base}/v1/projects/{}/locations/{}/publishers/google/models/{}:generateContent",
        crate::openai::url_segment(&account.project_id),
        crate::openai::url_segment(location),
        crate::openai::url_segment(model),
    );
    let mut headers = wire::headers(connection, &[])?;
    let bearer = HeaderValue::from_str(&format!("Bearer {token}"))
        .map_err(|_| LlmError::refused("the token endpoint answered a token that is not a header value"))?;
    headers.insert(AUTHORIZATION, bearer);
    let body =
        serde_json::to_vec(&crate::google::generate_content_body(request)).expect("a JSON value serializes");
    wire::exchange(http, timeout, &token, &url, headers, body, "application/json").await
}

async fn access_token(
    http: &wire::Http,
    timeout: Duration,
    cache: &TokenCache,
    account: &ServiceAccount,
    key: &RsaKeyPair,
) -> Result<String, LlmError> {
    let token_uri = account.token_uri.clone().unwrap_or_else(|| DEFAULT_TOKEN_URI.to_owned());
    let cache_key = (account.client_email.clone(), token_uri.clone());
    if let Some(token) = cache.get(&cache_key) {
        return Ok(token);
    }
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default().as_secs();
    let header = URL_SAFE_NO_PAD.encode(json!({ "alg": "RS256", "typ": "JWT" }).to_string());
    let claims = json!({ "iss": account.client_email, "scope": SCOPE, "aud": token_uri, "iat": now, "exp": now + 3600 });
    let signing_input = format!("{header}.{}", URL_SAFE_NO_PAD.encode(claims.to_string()));
    let mut signature = vec![0; key.public().modulus_len()];
    key.sign(&RSA_PKCS1_SHA256, &ring::rand::SystemRandom::new(), signing_input.as_bytes(), &mut signature)
        .map_err(|_| LlmError::refused("the service account's key could not sign a token request"))?;
    let assertion = format!("{signing_input}.{}", URL_SAFE_NO_PAD.encode(signature));
    let form: String = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer")
        .append_pair("assertion", &assertion)
        .finish();
    let reply = wire::exchange(
        http,
        timeout,
        &assertion,
        &token_uri,
        Default::default(),
        form.into_bytes(),
        "application/x-www-form-urlencoded",
    )
    .await
    .map_err(|error| match error {
        // A refused token request is the connection's fault (a revoked key, a wrong project):
        // say where it failed.
        LlmError::Refused { status, message } => LlmError::Refused {
            status,
            message: format!("the Google token endpoint refused the service account: {message}"),
        },
        other => other,
    })?;
    let token = reply
        .get("access_token")
        .and_then(Value::as_str)
        .ok_or_else(|| LlmError::bad_output("the Google token endpoint answered without an access_token"))?
        .to_owned();
    let lifetime = Duration::from_secs(reply.get("expires_in").and_then(Value::as_u64).unwrap_or(3600));
    cache.put(cache_key, token.clone(), lifetime);
    Ok(token)
}
