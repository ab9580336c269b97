//! `dnscron controller`'s HTTP face: the endpoints over real HTTP on 127.0.0.1:0 (`http`), and
//! a real Prometheus server scraping them (`prometheus`, whose harness other controller tests
//! use too).

mod accounts;
mod busy;
mod cli;
mod differential;
mod http;
pub mod prometheus;
mod rig;
mod rounds;
mod run_loop;
mod status;
mod tokens;
mod turns;
mod walk;

use std::net::SocketAddr;
use std::sync::Arc;

use dnscron::cli::controller::http::{Shared, serve};
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// `serve` on 127.0.0.1:0 in a task of the test's runtime; `stop` ends it.
pub struct Served {
    pub addr: SocketAddr,
    stop: oneshot::Sender<()>,
    task: JoinHandle<std::io::Result<()>>,
}

impl Served {
    pub async fn start(shared: Arc<Shared>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel();
        let shutdown = async move {
            let _ = stopped.await;
        };
        let task = tokio::spawn(serve(listener, shared, shutdown));
        Self { addr, stop, task }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Completes the shutdown future and waits for `serve` to return.
    pub async fn stop(self) -> std::io::Result<()> {
        self.stop.send(()).unwrap();
        self.task.await.unwrap()
    }
}
