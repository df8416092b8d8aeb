use super::*;
use axum::Router;
use axum::response::Redirect;
use axum::routing::get;

/// A receiver on loopback answering `/ok` and redirecting `/to?u=` to `u`.
async fn receiver() -> String {
    let app = Router::new().route("/ok", get(|| async { "reached" })).route(
        "/to",
        get(|query: axum::extract::RawQuery| async move {
            Redirect::temporary(&query.0.unwrap_or_default().trim_start_matches("u=").replace("%3A", ":"))
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("127.0.0.1:{}", address.port())
}

fn client(allowed: &str) -> Outbound {
    // The binaries install ring as rustls's provider at startup; a test process does it here.
    let _ = rustls::crypto::ring::default_provider().install_default();
    Outbound::new(OutboundPolicy::parse(allowed).unwrap(), Duration::from_secs(5))
}

#[tokio::test]
async fn loopback_is_refused_by_address_and_by_name_unless_allowed() {
    let at = receiver().await;
    let port = at.rsplit(':').next().unwrap().to_owned();
    let closed = client("");
    assert_eq!(
        closed.request(reqwest::Method::GET, &format!("http://{at}/ok")).err(),
        Some(OutboundError::Refused("127.0.0.1".into()))
    );
    // A name that resolves to loopback passes the URL check but not the resolver.
    let by_name = closed.request(reqwest::Method::GET, &format!("http://localhost:{port}/ok")).unwrap();
    let error = by_name.send().await.unwrap_err();
    let words = describe(&error);
    assert!(
        words.contains("localhost (127.0.0.1)") && words.contains("LANGFUSE_OUTBOUND_ALLOWED_HOSTS"),
        "{words}"
    );

    let open = client("127.0.0.1 ::1");
    let answer =
        open.request(reqwest::Method::GET, &format!("http://{at}/ok")).unwrap().send().await.unwrap();
    assert_eq!(answer.text().await.unwrap(), "reached");
    let answer = open
        .request(reqwest::Method::GET, &format!("http://localhost:{port}/ok"))
        .unwrap()
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
}

#[tokio::test]
async fn a_redirect_to_a_refused_address_is_not_followed() {
    let at = receiver().await;
    // Loopback allowed by name only: the first hop (by name) passes, the redirect to an address
    // written as 127.0.0.1 does not (that address is not in the list).
    let port = at.rsplit(':').next().unwrap().to_owned();
    let named = client("localhost");
    let hop = named
        .request(reqwest::Method::GET, &format!("http://localhost:{port}/to?u=http://127.0.0.1:{port}/ok"))
        .unwrap();
    let error = hop.send().await.unwrap_err();
    assert!(error.is_redirect(), "{error:?}");
    assert!(describe(&error).contains("`127.0.0.1` is a private, loopback"), "{}", describe(&error));
    let followed = named
        .request(reqwest::Method::GET, &format!("http://localhost:{port}/to?u=http://localhost:{port}/ok"))
        .unwrap()
        .send()
        .await
        .unwrap();
    assert_eq!(followed.text().await.unwrap(), "reached");
}

#[test]
fn only_http_urls_are_taken() {
    let open = client("");
    assert_eq!(open.check("file:///etc/passwd").err(), Some(OutboundError::Scheme("file".into())));
    assert_eq!(open.check("not a url").err(), Some(OutboundError::Invalid("not a url".into())));
    assert_eq!(
        open.check("http://169.254.169.254/latest").err(),
        Some(OutboundError::Refused("169.254.169.254".into()))
    );
    assert_eq!(
        open.check("http://[::ffff:10.0.0.1]/").err(),
        Some(OutboundError::Refused("::ffff:10.0.0.1".into()))
    );
    assert!(open.check("https://api.openai.com/v1").is_ok());
}
