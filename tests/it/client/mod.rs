//! The API client against scripted local servers: pagination, retries, idempotency keys,
//! errors, redaction, and the live snapshot.

mod emulator;
mod errors;
mod paging;
mod snapshot;
pub mod stub;
mod writes;

use std::io::Write;
use std::sync::{Arc, Mutex};

/// Captures every tracing event (all levels) on this thread into a buffer.
pub fn capture_logs() -> (tracing::subscriber::DefaultGuard, Arc<Mutex<Vec<u8>>>) {
    // With exactly one Dispatch registered, tracing-core computes a callsite's cached interest
    // from the *registering* thread's default (tokio-rs/tracing#3611): a parallel test without a
    // subscriber (e.g. apply's fault runs, which hit the same retry warning) can cache `never`
    // and this capture would miss the event. A second, always-registered Dispatch forces the
    // general path, which asks every registered subscriber.
    static SECOND: std::sync::OnceLock<tracing::Dispatch> = std::sync::OnceLock::new();
    SECOND.get_or_init(|| {
        tracing::Dispatch::new(
            tracing_subscriber::fmt()
                .with_writer(std::io::sink)
                .finish(),
        )
    });
    let buf = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&buf);
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(move || Sink(Arc::clone(&sink)))
        .finish();
    (tracing::subscriber::set_default(subscriber), buf)
}

pub fn logs(buf: &Arc<Mutex<Vec<u8>>>) -> String {
    String::from_utf8_lossy(&buf.lock().unwrap()).into_owned()
}

struct Sink(Arc<Mutex<Vec<u8>>>);

impl Write for Sink {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
