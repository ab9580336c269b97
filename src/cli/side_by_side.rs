//! Futures run side by side on the calling task: the accounts of a repository, each with its
//! own client (its own pacer and rate-limit bucket), so their reads and writes overlap while the
//! API's limits, not the CPU, bound each. Borrowing, unlike `tokio::spawn`: a prepared apply
//! holds its account's client. Commands whose part is blocking (`import`, `adopt`) run each
//! account on a thread of its own instead (`on_threads`), with the same progress.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;

use crate::cli::error::CommandError;
use crate::cli::{plan, runtime};
use crate::render::plan::progress::{AccountReads, PlanProgress};

/// A future of one account's part, borrowing what the command holds.
pub(crate) type Part<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

/// Every future's output, in the futures' order, once all are done.
pub(crate) async fn join_all<'a, T>(futures: Vec<Part<'a, T>>) -> Vec<T> {
    let mut futures: Vec<Option<Part<'a, T>>> = futures.into_iter().map(Some).collect();
    let mut outputs: Vec<Option<T>> = futures.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        for (slot, output) in futures.iter_mut().zip(outputs.iter_mut()) {
            if let Some(future) = slot
                && let Poll::Ready(value) = future.as_mut().poll(cx)
            {
                *output = Some(value);
                *slot = None;
            }
        }
        if futures.iter().all(Option::is_none) {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    })
    .await;
    outputs.into_iter().flatten().collect()
}

/// How one account's reads are shown.
pub(crate) enum Shown {
    /// Its own bar or lines, named by the command: the command reads one account.
    Own(&'static str),
    /// As one account of several (`PlanProgress::for_accounts`; `None`: not shown).
    Account(Option<Arc<AccountReads>>),
}

impl Shown {
    /// The progress to draw beside the reads (one account's own), and the reads to count into.
    pub(crate) fn start(self) -> (Option<PlanProgress>, Option<Arc<AccountReads>>) {
        match self {
            Shown::Own(command) => {
                let own = plan::read_progress(command);
                let reads = own.as_ref().and_then(|p| p.account(0));
                (own, reads)
            }
            Shown::Account(reads) => (None, reads),
        }
    }
}

/// `work` for each of the accounts `names`, each on a thread of its own (blocking on its own
/// runtime), side by side, their reads drawn as `command`'s progress over accounts; the
/// results in the names' order. An account's reads are finished when its work returns; a
/// thread that panics is an internal error of its account.
pub(crate) fn on_threads<T: Send>(
    command: &'static str,
    names: &[&str],
    work: impl Fn(usize, Option<Arc<AccountReads>>) -> Result<T, CommandError> + Sync,
) -> Result<Vec<Result<T, CommandError>>, CommandError> {
    let progress = plan::read_progress(command).map(|p| p.for_accounts(names));
    std::thread::scope(|scope| {
        let (sent, mut received) = tokio::sync::mpsc::unbounded_channel();
        let handles: Vec<_> = (0..names.len())
            .map(|index| {
                let reads = progress.as_ref().and_then(|p| p.account(index));
                let (sent, work) = (sent.clone(), &work);
                scope.spawn(move || {
                    let done = work(index, reads.clone());
                    if let Some(reads) = reads {
                        reads.finish();
                    }
                    let _ = sent.send((index, done));
                })
            })
            .collect();
        // Every thread holds a sender: the channel ends once each has sent or stopped.
        drop(sent);
        let gathered = async {
            let mut results: Vec<Option<Result<T, CommandError>>> =
                names.iter().map(|_| None).collect();
            while let Some((index, done)) = received.recv().await {
                if let Some(slot) = results.get_mut(index) {
                    *slot = Some(done);
                }
            }
            results
        };
        let results = runtime::block_on(async {
            match &progress {
                Some(progress) => progress.alongside(gathered).await,
                None => gathered.await,
            }
        });
        // A thread that panicked sent nothing; joined here, so the scope doesn't panic too.
        for handle in handles {
            let _ = handle.join();
        }
        let results = results?.into_iter().zip(names).map(|(done, name)| {
            done.unwrap_or_else(|| {
                Err(CommandError::internal(format!(
                    "account `{name}`: its {command} stopped unexpectedly"
                )))
            })
        });
        Ok(results.collect())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn futures_overlap_and_keep_their_order() {
        let start = tokio::time::Instant::now();
        let futures: Vec<Pin<Box<dyn Future<Output = u64>>>> = [3u64, 1, 2]
            .into_iter()
            .map(|s| {
                Box::pin(async move {
                    tokio::time::sleep(std::time::Duration::from_secs(s)).await;
                    s
                }) as Pin<Box<dyn Future<Output = u64>>>
            })
            .collect();
        assert_eq!(join_all(futures).await, vec![3, 1, 2]);
        assert_eq!(start.elapsed(), std::time::Duration::from_secs(3));
    }

    /// The results come in the accounts' order whichever thread ends first, and a thread that
    /// panics is its account's error, the others' results kept.
    #[test]
    fn threads_keep_their_order_and_a_panic_is_its_accounts_error() {
        let results = on_threads("import", &["a", "b", "c"], |index, _| {
            assert_ne!(index, 1, "the account's work panics");
            Ok(index * 10)
        })
        .unwrap();
        let shown: Vec<Result<usize, String>> = results
            .into_iter()
            .map(|r| r.map_err(|e| e.message_text()))
            .collect();
        assert_eq!(
            shown,
            [
                Ok(0),
                Err("account `b`: its import stopped unexpectedly".to_owned()),
                Ok(20)
            ]
        );
    }
}
