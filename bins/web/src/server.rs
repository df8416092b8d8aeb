//! Serving a router on a listener: each connection through hyper's HTTP/1 + HTTP/2 builder, with a
//! header read timeout, until the shutdown token fires; then in-flight requests are drained.
//! In place of `axum::serve`, which cannot set hyper's timer, so no header timeout at all.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

/// What kind of connections a listener takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocols {
    /// The public API: HTTP/1.1, and HTTP/2 for clients that speak it without TLS.
    Http,
    /// OTLP/gRPC: HTTP/2 only.
    Grpc,
}

/// Serves `router` on `listener` until `shutdown` fires, then waits for the open connections to
/// finish what they are doing (an idle one closes at once).
///
/// A client must send a complete request head within `header_read_timeout` of connecting: hyper
/// closes an HTTP/1 connection whose head takes longer (and one idle that long after a response);
/// here, a connection of either protocol that has sent no request by then is dropped, which is
/// what bounds HTTP/2, where hyper has no such timer.
pub async fn run(
    listener: TcpListener,
    router: Router,
    protocols: Protocols,
    header_read_timeout: Duration,
    shutdown: CancellationToken,
) {
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder.http1().timer(TokioTimer::new()).header_read_timeout(header_read_timeout);
    builder.http2().timer(TokioTimer::new());
    if protocols == Protocols::Grpc {
        builder = builder.http2_only();
    }
    let graceful = GracefulShutdown::new();
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    pause_after(&error).await;
                    continue;
                }
            },
            () = shutdown.cancelled() => break,
        };
        // Small responses go out at once rather than wait for more to fill a segment.
        let _ = stream.set_nodelay(true);
        let spoke = Arc::new(AtomicBool::new(false));
        let service = {
            let (router, spoke) = (router.clone(), spoke.clone());
            hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
                spoke.store(true, Ordering::Relaxed);
                // The peer, for what keys on the client's address (sign-in rate limits).
                request.extensions_mut().insert(axum::extract::ConnectInfo(peer));
                router.clone().oneshot(request)
            })
        };
        let connection = builder.serve_connection_with_upgrades(TokioIo::new(stream), service).into_owned();
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            tokio::select! {
                result = connection => {
                    if let Err(error) = result {
                        tracing::debug!(%peer, %error, "connection ended with an error");
                    }
                }
                () = silent_for(&spoke, header_read_timeout) => {
                    tracing::debug!(%peer, "connection dropped: no request within the header read timeout");
                }
            }
        });
    }
    drop(listener);
    graceful.shutdown().await;
}

/// Returns once `limit` has passed without the connection sending a request; never, if it sent one.
async fn silent_for(spoke: &AtomicBool, limit: Duration) {
    tokio::time::sleep(limit).await;
    if spoke.load(Ordering::Relaxed) {
        std::future::pending::<()>().await;
    }
}

/// An accept error: one client's connection failing is nothing; anything else (out of file
/// descriptors, most likely) is logged and waited out briefly rather than retried in a hot loop.
async fn pause_after(error: &std::io::Error) {
    use std::io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    if matches!(error.kind(), ConnectionAborted | ConnectionRefused | ConnectionReset) {
        return;
    }
    tracing::error!(%error, "cannot accept connections");
    tokio::time::sleep(Duration::from_secs(1)).await;
}
