//! Many questions to many servers at once, a bounded number in flight.

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use super::answer::{Answer, Question};
use super::transport::{QueryOptions, ask};

/// Questions in flight at once by default: enough to hide round trips, few enough that a
/// nameserver's rate limiting does not take them for a flood.
pub(crate) const DEFAULT_CONCURRENCY: usize = 16;

/// Asks every `(server, question)` pair, at most `concurrency` at a time; the answers come back
/// in the order of `jobs`.
pub(crate) async fn ask_all(
    jobs: Vec<(SocketAddr, Question)>,
    options: &QueryOptions,
    concurrency: usize,
) -> Vec<Answer> {
    let permits = Arc::new(Semaphore::new(concurrency.max(1)));
    let mut set = JoinSet::new();
    for (index, (server, question)) in jobs.into_iter().enumerate() {
        let permits = permits.clone();
        let options = options.clone();
        set.spawn(async move {
            // The semaphore is never closed, so acquiring only waits.
            let _permit = permits.acquire_owned().await.ok();
            (index, ask(server, &question, &options).await)
        });
    }
    let mut answers: Vec<(usize, Answer)> = Vec::with_capacity(set.len());
    while let Some(joined) = set.join_next().await {
        match joined {
            Ok(answer) => answers.push(answer),
            // `ask` does not panic; if it did, that bug surfaces here rather than as a
            // silently missing answer. Tasks are never cancelled.
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            Err(_) => {}
        }
    }
    answers.sort_by_key(|(index, _)| *index);
    answers.into_iter().map(|(_, answer)| answer).collect()
}

/// Messages sent for these answers: the cost of a check.
pub(crate) fn queries_sent(answers: &[Answer]) -> u64 {
    answers.iter().map(|a| u64::from(a.queries_sent)).sum()
}
