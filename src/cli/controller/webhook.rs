//! The webhook seen from the loop: messages are queued and posted in order by one task, so a
//! slow or failing chat service never holds a round up; a failed post is logged (without the
//! URL) and dropped: the logs and `/status` keep the condition.

use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use dnscron_core::controller::webhook::Webhook;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::cli::error::{CommandError, ErrorKind};

/// Messages waiting beyond this many are dropped (a chat service down for hours).
const QUEUE: usize = 64;
/// How long the last messages may take to go out when the process ends.
const FLUSH: Duration = Duration::from_secs(15);

pub struct Teller {
    queue: Mutex<Option<mpsc::Sender<String>>>,
    worker: Mutex<Option<JoinHandle<()>>>,
}

impl Teller {
    /// Reads the URL from `file` (never shown) and starts the task that posts.
    pub fn from_file(file: &Path) -> Result<Teller, CommandError> {
        let webhook = Webhook::from_file(file).map_err(|e| {
            CommandError::from_error(ErrorKind::User, e).with_hint(
                "--webhook-url-file names a file holding one https:// URL (a Slack-compatible incoming webhook)",
            )
        })?;
        let (queue, mut messages) = mpsc::channel::<String>(QUEUE);
        let worker = tokio::spawn(async move {
            while let Some(text) = messages.recv().await {
                if let Err(error) = webhook.send(&text).await {
                    tracing::warn!("the webhook message was not delivered: {error}");
                }
            }
        });
        Ok(Teller {
            queue: Mutex::new(Some(queue)),
            worker: Mutex::new(Some(worker)),
        })
    }

    pub fn tell(&self, text: String) {
        let queue = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        let sent = queue.as_ref().map(|q| q.try_send(text));
        if let Some(Err(_)) = sent {
            tracing::warn!("the webhook queue is full: a message was dropped");
        }
    }

    /// Posts what is queued (for at most 15 s) before the process ends.
    pub async fn flush(&self) {
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
