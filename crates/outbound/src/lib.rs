//! HTTP clients for the destinations people configure — a monitor's webhook, a Slack or GitHub
//! endpoint, an LLM provider's base URL, an export target's bucket endpoint ([`GuardedConnector`]
//! for object_store) — which must not reach what only the server can reach.
//!
//! [`Outbound::request`] refuses a URL that is not http(s) or names a refused address; the client's
//! resolver drops refused addresses from every name it resolves (and fails when none is left), so
//! the check holds at connect time, for redirects too, whatever the name resolved to when the URL
//! was saved. Which addresses are refused is `domain::outbound::OutboundPolicy`'s rule
//! (`LANGFUSE_OUTBOUND_ALLOWED_HOSTS`).

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use domain::outbound::OutboundPolicy;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::redirect;
use url::{Host, Url};

/// Redirects followed at the most (each one checked like the first URL).
const MAX_REDIRECTS: usize = 5;

/// Why a destination may not be called.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum OutboundError {
    #[error("`{0}` is not a valid URL")]
    Invalid(String),
    #[error("only http and https URLs can be called, not `{0}`")]
    Scheme(String),
    #[error(
        "`{0}` is a private, loopback or otherwise non-public address; an operator can allow it with LANGFUSE_OUTBOUND_ALLOWED_HOSTS"
    )]
    Refused(String),
}

/// A `reqwest::Client` that calls only the destinations the policy permits.
#[derive(Clone)]
pub struct Outbound {
    client: reqwest::Client,
    policy: Arc<OutboundPolicy>,
}

impl Outbound {
    /// A client with an overall `timeout` per request.
    pub fn new(policy: OutboundPolicy, timeout: Duration) -> Self {
        let policy = Arc::new(policy);
        let client = guarded_builder(Arc::clone(&policy))
            .timeout(timeout)
            .connect_timeout(timeout.min(Duration::from_secs(10)))
            .build()
            .expect("a client without custom TLS settings always builds");
        Self { client, policy }
    }

    /// Whether `url` may be called, as far as the URL alone says: see [`check_url`].
    pub fn check(&self, url: &str) -> Result<Url, OutboundError> {
        check_url(&self.policy, url)
    }

    /// A request to `url`, refused as [`check_url`] says.
    pub fn request(
        &self,
        method: reqwest::Method,
        url: &str,
    ) -> Result<reqwest::RequestBuilder, OutboundError> {
        let url = self.check(url)?;
        Ok(self.client.request(method, url))
    }

    pub fn policy(&self) -> &OutboundPolicy {
        &self.policy
    }
}

/// A client builder whose resolver and redirects keep to `policy`, for a caller that sets more
/// options of its own (timeouts, pools). Its URLs must still pass [`check_url`] before each call:
/// an address written in a URL never reaches a resolver.
pub fn guarded_builder(policy: Arc<OutboundPolicy>) -> reqwest::ClientBuilder {
    let redirects = Arc::clone(&policy);
    reqwest::Client::builder().dns_resolver(Arc::new(GuardedResolver { policy })).redirect(
        redirect::Policy::custom(move |attempt| {
            if attempt.previous().len() >= MAX_REDIRECTS {
                return attempt.error(format!("more than {MAX_REDIRECTS} redirects"));
            }
            match check_literal(&redirects, attempt.url()) {
                Ok(()) => attempt.follow(),
                Err(error) => attempt.error(error),
            }
        }),
    )
}

/// Whether `url` may be called, as far as the URL alone says (scheme, and an address written in
/// it); names are checked again when they are resolved. Use it also to refuse a URL when it is
/// saved, with a message for the person who typed it.
pub fn check_url(policy: &OutboundPolicy, url: &str) -> Result<Url, OutboundError> {
    let parsed = Url::parse(url).map_err(|_| OutboundError::Invalid(url.to_owned()))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(OutboundError::Scheme(parsed.scheme().to_owned()));
    }
    check_literal(policy, &parsed)?;
    Ok(parsed)
}

/// A failed call in words, its causes included (reqwest's own message alone hides a refused address
/// behind "error sending request"); for delivery logs and execution errors.
pub fn describe(error: &reqwest::Error) -> String {
    describe_chain(error)
}

/// Any error in words with its causes, as [`describe`] (object_store wraps reqwest's errors).
pub fn describe_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut words = error.to_string();
    let mut cause = std::error::Error::source(error);
    while let Some(inner) = cause {
        let text = inner.to_string();
        if !words.contains(&text) {
            words.push_str(": ");
            words.push_str(&text);
        }
        cause = inner.source();
    }
    words
}

/// An address written in the URL never reaches the resolver: it is checked here.
fn check_literal(policy: &OutboundPolicy, url: &Url) -> Result<(), OutboundError> {
    let address = match url.host() {
        Some(Host::Ipv4(v4)) => IpAddr::V4(v4),
        Some(Host::Ipv6(v6)) => IpAddr::V6(v6),
        Some(Host::Domain(_)) => return Ok(()),
        None => return Err(OutboundError::Invalid(url.to_string())),
    };
    if policy.permits(&address.to_string(), address) {
        Ok(())
    } else {
        Err(OutboundError::Refused(address.to_string()))
    }
}

/// The system resolver, keeping only the addresses the policy permits for the name.
struct GuardedResolver {
    policy: Arc<OutboundPolicy>,
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let policy = Arc::clone(&self.policy);
        Box::pin(async move {
            let host = name.as_str().to_owned();
            let found: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let allowed: Vec<SocketAddr> =
                found.iter().copied().filter(|a| policy.permits(&host, a.ip())).collect();
            if allowed.is_empty() {
                let refused = found.first().map_or_else(|| host.clone(), |a| format!("{host} ({})", a.ip()));
                return Err(
                    Box::new(OutboundError::Refused(refused)) as Box<dyn std::error::Error + Send + Sync>
                );
            }
            Ok(Box::new(allowed.into_iter()) as Addrs)
        })
    }
}

pub mod object_store_connector;
pub use object_store_connector::GuardedConnector;

#[cfg(test)]
mod tests;
