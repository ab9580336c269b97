//! Progress while `plan` reads the live account: on a terminal a bar (reads of all, and the
//! rate-limit wait as a countdown); otherwise (CI logs) one plain line a minute. A plan paced by
//! the rate limit reads for minutes, and a log line per wait said the same thing eight times at
//! once and then nothing (docs/plan.md, "Progress"). `import` of the account draws its reads
//! the same way (`named`).

use std::fmt::Write as _;
use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use tokio::time::Instant;

use dnscron_api::{Stats, WaitEvent, WaitHook};
use dnscron_core::plan::ReadProgress;

/// How often the plain form says where the plan is.
pub const LINE_EVERY: Duration = Duration::from_secs(60);

/// The reads queued and in, and when the latest rate-limit wait ends.
#[derive(Default)]
struct Counts {
    queued: AtomicUsize,
    done: AtomicUsize,
    wait_until: Mutex<Option<Instant>>,
}

impl Counts {
    fn wait_left(&self, now: Instant) -> Option<Duration> {
        let until = *self.wait_until.lock().unwrap_or_else(|e| e.into_inner());
        until
            .map(|until| until.saturating_duration_since(now))
            .filter(|left| !left.is_zero())
    }
}

/// The form the progress takes.
enum Form {
    Bar(ProgressBar),
    Lines {
        started: Instant,
        sink: Box<dyn Fn(&str) + Send + Sync>,
    },
}

/// The plan's progress: a [`ReadProgress`] for the planner and a wait hook for the client.
pub struct PlanProgress {
    counts: Arc<Counts>,
    form: Form,
    /// The client's statistics, for the wall-clock rate-limit wait (the client is made after
    /// its wait hook, so after this).
    stats: OnceLock<Stats>,
    /// The command a line names.
    command: &'static str,
}

impl PlanProgress {
    /// The bar, for a terminal.
    pub fn bar() -> PlanProgress {
        let counts = Arc::new(Counts::default());
        let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
        let waiting = Arc::clone(&counts);
        let style =
            ProgressStyle::with_template("{spinner} reading the live account: {pos}/{len}{wait}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner())
                .with_key(
                    "wait",
                    move |_: &ProgressState, out: &mut dyn std::fmt::Write| {
                        if let Some(left) = waiting.wait_left(Instant::now()) {
                            let _ = write!(
                                out,
                                " · waiting for the rate limit: {}s",
                                left.as_secs_f64().ceil()
                            );
                        }
                    },
                );
        bar.set_style(style);
        bar.enable_steady_tick(Duration::from_millis(120));
        PlanProgress {
            counts,
            form: Form::Bar(bar),
            stats: OnceLock::new(),
            command: "plan",
        }
    }

    /// A line a minute through `sink`.
    pub fn lines(sink: impl Fn(&str) + Send + Sync + 'static) -> PlanProgress {
        PlanProgress {
            counts: Arc::new(Counts::default()),
            form: Form::Lines {
                started: Instant::now(),
                sink: Box::new(sink),
            },
            stats: OnceLock::new(),
            command: "plan",
        }
    }

    /// The lines name `command` (`import: read …`) instead of `plan`.
    pub fn named(mut self, command: &'static str) -> PlanProgress {
        self.command = command;
        self
    }

    /// The rate-limit wait the lines give is the wall-clock one of `stats` (the client's).
    pub fn with_stats(self, stats: Stats) -> PlanProgress {
        let _ = self.stats.set(stats);
        self
    }

    /// For `ApiConfig::on_wait`: the countdown the bar shows.
    pub fn wait_hook(&self) -> WaitHook {
        let counts = Arc::clone(&self.counts);
        Arc::new(move |event: &WaitEvent| {
            let until = Instant::now() + event.wait;
            let mut wait_until = counts.wait_until.lock().unwrap_or_else(|e| e.into_inner());
            *wait_until = Some(wait_until.map_or(until, |current| current.max(until)));
        })
    }

    /// Runs `work` with the progress drawn beside it; the bar is cleared when it ends.
    pub async fn alongside<F: Future>(&self, work: F) -> F::Output {
        let out = match &self.form {
            Form::Bar(_) => work.await,
            Form::Lines { .. } => {
                tokio::select! {
                    out = work => out,
                    never = self.every_minute() => match never {},
                }
            }
        };
        if let Form::Bar(bar) = &self.form {
            bar.finish_and_clear();
        }
        out
    }

    async fn every_minute(&self) -> std::convert::Infallible {
        let mut next = Instant::now() + LINE_EVERY;
        loop {
            tokio::time::sleep_until(next).await;
            if let Form::Lines { started, sink } = &self.form {
                sink(&self.line(next.saturating_duration_since(*started)));
            }
            next += LINE_EVERY;
        }
    }

    /// The line the plain form writes `elapsed` after the start.
    pub fn line(&self, elapsed: Duration) -> String {
        let done = self.counts.done.load(Ordering::Relaxed);
        let queued = self.counts.queued.load(Ordering::Relaxed);
        let mut line = format!(
            "{}: read {done} of {queued} after {}",
            self.command,
            minutes(elapsed)
        );
        let waited = self
            .stats
            .get()
            .map_or(Duration::ZERO, |stats| stats.snapshot().rate_limit_wall);
        if !waited.is_zero() {
            let _ = write!(
                line,
                ", {}s of it waiting for the rate limit",
                waited.as_secs()
            );
        }
        line
    }
}

fn minutes(d: Duration) -> String {
    let secs = d.as_secs();
    match (secs / 60, secs % 60) {
        (m, 0) => format!("{m}m"),
        (m, s) => format!("{m}m{s:02}s"),
    }
}

impl ReadProgress for PlanProgress {
    fn queued(&self, count: usize) {
        let queued = self.counts.queued.fetch_add(count, Ordering::Relaxed) + count;
        if let Form::Bar(bar) = &self.form {
            bar.set_length(queued as u64);
        }
    }

    fn done(&self) {
        self.counts.done.fetch_add(1, Ordering::Relaxed);
        if let Form::Bar(bar) = &self.form {
            bar.inc(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minutes_read_plainly() {
        assert_eq!(minutes(Duration::from_secs(60)), "1m");
        assert_eq!(minutes(Duration::from_secs(125)), "2m05s");
    }

    #[tokio::test(start_paused = true)]
    async fn a_line_a_minute_with_reads_and_the_wait() {
        let lines = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&lines);
        let progress = PlanProgress::lines(move |l| {
            sink.lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(l.to_string());
        });
        progress.queued(10);
        let work = async {
            tokio::time::sleep(Duration::from_secs(30)).await;
            for _ in 0..4 {
                progress.done();
            }
            tokio::time::sleep(Duration::from_secs(60)).await;
            progress.done();
            tokio::time::sleep(Duration::from_secs(40)).await;
        };
        progress.alongside(work).await;
        assert_eq!(
            *lines.lock().unwrap_or_else(|e| e.into_inner()),
            ["plan: read 4 of 10 after 1m", "plan: read 5 of 10 after 2m"]
        );
    }
}
