use std::net::SocketAddr;

use axum::Router;
use axum::body::Body;
use axum::http::header;
use axum::response::Response;
use tokio::task::JoinHandle;

/// A server bound to 127.0.0.1 that stops when dropped.
#[derive(Debug)]
pub struct LoopbackServer {
    addr: SocketAddr,
    task: JoinHandle<()>,
}

impl LoopbackServer {
    /// Binds `router` to `127.0.0.1:port` (0 picks a free port) and serves it.
    pub async fn start(router: Router, port: u16) -> anyhow::Result<Self> {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
        let addr = listener.local_addr()?;
        let task = tokio::spawn(async move {
            if let Err(error) = axum::serve(listener, router).await {
                tracing::warn!(%error, "loopback server stopped");
            }
        });
        Ok(Self { addr, task })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT` with no trailing slash.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Waits until the server task ends (it serves until dropped or aborted).
    pub async fn wait(&mut self) {
        let _ = (&mut self.task).await;
    }
}

impl Drop for LoopbackServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Serves `body` as `text/event-stream` to every request, e.g. a recorded stream.
pub async fn serve_sse_body(body: String) -> anyhow::Result<LoopbackServer> {
    let router = Router::new().fallback(move || {
        let body = body.clone();
        async move {
            Response::builder()
                .header(header::CONTENT_TYPE, "text/event-stream")
                .body(Body::from(body))
                .unwrap_or_default()
        }
    });
    LoopbackServer::start(router, 0).await
}
