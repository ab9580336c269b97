//! The HTTP server: our own accept loop over hyper instead of `axum::serve`, for two things
//! axum::serve cannot do: hand the peer address to the admin gate, and drop a connection
//! without any response after a write has committed (the "commit then drop" fault).
//!
//! How the drop works: the pipeline marks the response with [`DropConnection`]; the hyper
//! service below turns a marked response into a service error. hyper's HTTP/1 dispatcher
//! answers a service error by closing the connection without writing a status line, so the
//! client sees the connection end with no response, exactly like a network failure after the
//! server committed.

use std::net::SocketAddr;

use axum::Router;
use axum::extract::Request;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinSet;
use tower::ServiceExt;

/// The client's address, in the request extensions.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PeerAddr(pub SocketAddr);

/// Response marker: close the connection instead of sending this response.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DropConnection;

#[derive(Debug, thiserror::Error)]
#[error("connection dropped after commit (injected fault)")]
struct DroppedAfterCommit;

pub(crate) async fn serve(
    listener: TcpListener,
    router: Router,
    mut shutdown: watch::Receiver<bool>,
) {
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                if let Ok((stream, peer)) = accepted {
                    // Small request/response pairs: don't wait for Nagle.
                    let _ = stream.set_nodelay(true);
                    connections.spawn(connection(stream, peer, router.clone()));
                }
            }
            _ = shutdown.changed() => break,
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    connections.abort_all();
}

async fn connection(stream: tokio::net::TcpStream, peer: SocketAddr, router: Router) {
    let service = hyper::service::service_fn(move |mut req: Request<Incoming>| {
        let router = router.clone();
        req.extensions_mut().insert(PeerAddr(peer));
        async move {
            let response = match router.oneshot(req).await {
                Ok(r) => r,
                Err(never) => match never {},
            };
            if response.extensions().get::<DropConnection>().is_some() {
                return Err(DroppedAfterCommit);
            }
            Ok::<_, DroppedAfterCommit>(response)
        }
    });
    // The error is either a client going away or an injected drop: nothing to report.
    let _ = http1::Builder::new()
        .keep_alive(true)
        .serve_connection(TokioIo::new(stream), service)
        .await;
}
