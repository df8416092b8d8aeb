//! A TCP proxy a test can switch off, to make a dependency unreachable without stopping it for
//! every other test that shares it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;

pub struct Proxy {
    port: u16,
    down: Arc<AtomicBool>,
    hung: Arc<AtomicBool>,
    cut: Arc<Notify>,
}

impl Proxy {
    /// Forwards a loopback port to the host and port of `upstream_url` (`http://host:port`).
    pub async fn start(upstream_url: &str) -> Self {
        let upstream = upstream_url.trim_start_matches("http://").trim_end_matches('/').to_owned();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let (down, hung, cut) =
            (Arc::new(AtomicBool::new(false)), Arc::new(AtomicBool::new(false)), Arc::new(Notify::new()));
        let (accept_down, accept_hung, accept_cut) = (down.clone(), hung.clone(), cut.clone());
        tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                if accept_down.load(Ordering::SeqCst) {
                    continue; // dropped at once: connection refused in effect
                }
                if accept_hung.load(Ordering::SeqCst) {
                    // Accepted, never answered, held until the mode ends.
                    let cut = accept_cut.clone();
                    tokio::spawn(async move {
                        cut.notified().await;
                        drop(client);
                    });
                    continue;
                }
                let (upstream, cut) = (upstream.clone(), accept_cut.clone());
                tokio::spawn(async move {
                    let Ok(mut server) = TcpStream::connect(&upstream).await else { return };
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut client, &mut server) => {}
                        _ = cut.notified() => {}
                    }
                });
            }
        });
        Self { port, down, hung, cut }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Down: new connections are dropped and open ones are cut.
    pub fn set_down(&self, down: bool) {
        self.down.store(down, Ordering::SeqCst);
        if down {
            self.cut.notify_waiters();
        }
    }

    /// Hung: new connections are accepted but never answered; leaving the mode drops them.
    pub fn set_hung(&self, hung: bool) {
        self.hung.store(hung, Ordering::SeqCst);
        if !hung {
            self.cut.notify_waiters();
        }
    }
}
