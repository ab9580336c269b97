//! The webhook seen from the loop: messages are queued and posted in order by one task, so a
//! slow or failing chat service never holds a round up; a failed post is logged (without the
//! URL), counted (`dnscron_controller_webhook_failures_total`) and dropped: the logs and
//! `/status` keep the condition.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dnscron_core::controller::Webhook;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::cli::error::{CommandError, ErrorKind};

/// Messages waiting beyond this many are dropped (a chat service down for hours).
const QUEUE: usize = 64;
/// How long the last messages may take to go out when the process ends.
const FLUSH: Duration = Duration::from_secs(15);

/// Called once for each message not delivered (a failed post, or a full queue).
pub(crate) type OnFailure = Arc<dyn Fn() + Send + Sync>;

pub(crate) struct Teller {
    failed: OnFailure,
    queue: Mutex<Option<mpsc::Sender<String>>>,
    worker: Mutex<Option<JoinHandle<()>>>,
}

impl Teller {
    /// Reads the URL from `file` (never shown) and starts the task that posts.
    pub(crate) fn from_file(file: &Path, failed: OnFailure) -> Result<Teller, CommandError> {
        let webhook = Webhook::from_file(file).map_err(|e| {
            CommandError::from_error(ErrorKind::User, e).with_hint(
                "--webhook-url-file names a file holding one https:// URL (a Slack-compatible incoming webhook)",
            )
        })?;
        let (queue, mut messages) = mpsc::channel::<String>(QUEUE);
        let on_failure = Arc::clone(&failed);
        let worker = tokio::spawn(async move {
            while let Some(text) = messages.recv().await {
                if let Err(error) = webhook.send(&text).await {
                    tracing::warn!("the webhook message was not delivered: {error}");
                    on_failure();
                }
            }
        });
        Ok(Teller {
            failed,
            queue: Mutex::new(Some(queue)),
            worker: Mutex::new(Some(worker)),
        })
    }

    pub(crate) fn tell(&self, text: String) {
        let queue = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        let sent = queue.as_ref().map(|q| q.try_send(text));
        if let Some(Err(_)) = sent {
            tracing::warn!("the webhook queue is full: a message was dropped");
            (self.failed)();
        }
    }

    /// Posts what is queued (for at most 15 s) before the process ends.
    pub(crate) async fn flush(&self) {
        // Dropping the sender closes the queue: the task ends once it has posted the rest.
        drop(self.queue.lock().unwrap_or_else(|e| e.into_inner()).take());
        let worker = self.worker.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(worker) = worker {
            let abort = worker.abort_handle();
            if tokio::time::timeout(FLUSH, worker).await.is_err() {
                abort.abort();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU32, Ordering};

    use axum::http::StatusCode;
    use axum::routing::post;

    use super::*;

    /// A chat service on loopback answering every post with `status`; the URL of its hook.
    async fn chat_service(status: StatusCode) -> String {
        let app = axum::Router::new().route("/hook", post(move || async move { status }));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        url
    }

    /// Posts `messages` to a service answering `status`; the failures counted.
    async fn failures_posting(status: StatusCode, messages: usize) -> u32 {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("webhook-url");
        std::fs::write(&file, chat_service(status).await).unwrap();
        let count = Arc::new(AtomicU32::new(0));
        let counted = Arc::clone(&count);
        let teller = Teller::from_file(
            &file,
            Arc::new(move || {
                counted.fetch_add(1, Ordering::Relaxed);
            }),
        )
        .unwrap();
        for index in 0..messages {
            teller.tell(format!("message {index}"));
        }
        teller.flush().await;
        count.load(Ordering::Relaxed)
    }

    #[tokio::test]
    async fn a_delivered_message_counts_no_failure() {
        assert_eq!(failures_posting(StatusCode::OK, 2).await, 0);
    }

    #[tokio::test]
    async fn each_message_the_service_refuses_counts_one_failure() {
        assert_eq!(
            failures_posting(StatusCode::INTERNAL_SERVER_ERROR, 3).await,
            3
        );
    }
}
