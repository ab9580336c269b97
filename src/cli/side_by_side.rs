//! Futures run side by side on the calling task: the accounts of a repository, each with its
//! own client (its own pacer and rate-limit bucket), so their reads and writes overlap while the
//! API's limits, not the CPU, bound each. Borrowing, unlike `tokio::spawn`: a prepared apply
//! holds its account's client.

use std::future::Future;
use std::pin::Pin;
use std::task::Poll;

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
}
