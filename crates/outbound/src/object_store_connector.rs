//! The guarded client for object_store, which builds its own HTTP clients: export targets (S3,
//! S3-compatible, Azure Blob endpoints people type in) reach only what the policy permits, through
//! the same resolver and redirect check as every other outbound call. Credential lookups the
//! stores make (instance metadata) go through it too, so a target cannot borrow the server's
//! cloud identity unless an operator allows the metadata address.

use std::sync::Arc;
use std::time::Duration;

use domain::outbound::OutboundPolicy;
use object_store::client::{
    HttpClient, HttpConnector, HttpError, HttpErrorKind, HttpRequest, HttpResponse, HttpService,
};
use object_store::{ClientConfigKey, ClientOptions};

use crate::{OutboundError, guarded_builder};

/// object_store's own defaults, which its options would have applied to the client it builds.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// An `HttpConnector` whose clients resolve and follow redirects under the policy. An address
/// written in the endpoint URL never reaches a resolver: check the URL with
/// [`check_url`](crate::check_url) before building the store, as for any other call.
#[derive(Debug, Clone)]
pub struct GuardedConnector {
    policy: Arc<OutboundPolicy>,
}

impl GuardedConnector {
    pub fn new(policy: OutboundPolicy) -> Self {
        Self { policy: Arc::new(policy) }
    }
}

impl HttpConnector for GuardedConnector {
    fn connect(&self, options: &ClientOptions) -> object_store::Result<HttpClient> {
        // The store's `allow_http` is the one option our targets set; the rest keep the defaults.
        let allow_http = options.get_config_value(&ClientConfigKey::AllowHttp).is_some_and(|v| v == "true");
        let client = guarded_builder(Arc::clone(&self.policy))
            .https_only(!allow_http)
            .timeout(REQUEST_TIMEOUT)
            .connect_timeout(CONNECT_TIMEOUT)
            .build()
            .map_err(|e| object_store::Error::Generic { store: "outbound", source: Box::new(e) })?;
        Ok(HttpClient::new(Refusals(client)))
    }
}

/// The guarded client, with refusals made final: object_store retries connection errors with
/// backoff for up to three minutes, which for a refused destination only delays the answer.
#[derive(Debug)]
struct Refusals(reqwest::Client);

#[async_trait::async_trait]
impl HttpService for Refusals {
    async fn call(&self, request: HttpRequest) -> Result<HttpResponse, HttpError> {
        self.0.call(request).await.map_err(|error| match refusal(&error) {
            Some(refused) => HttpError::new(HttpErrorKind::Unknown, refused),
            None => error,
        })
    }
}

/// The policy's refusal among an error's causes (the resolver's or the redirect check's).
fn refusal(error: &(dyn std::error::Error + 'static)) -> Option<OutboundError> {
    let mut cause = Some(error);
    while let Some(inner) = cause {
        if let Some(refused) = inner.downcast_ref::<OutboundError>() {
            return Some(refused.clone());
        }
        cause = inner.source();
    }
    None
}
