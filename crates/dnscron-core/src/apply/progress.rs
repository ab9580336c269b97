//! Progress while applying: a bar on a terminal (done/total, the current change, rate-limit
//! waits with when they end), plain lines on stderr otherwise, nothing for library callers.

use std::io::Write;
use std::sync::Mutex;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::api::WaitEvent;

use super::outcome::ChangeReport;

/// Receives apply's events. Implementations must be cheap: they run between requests.
pub trait Progress: Send + Sync {
    /// `total` changes are about to run in `round`.
    fn start(&self, round: u32, total: usize);
    /// Change number `position` (1-based) of the round starts.
    fn begin(&self, position: usize, summary: &str);
    fn finish(&self, report: &ChangeReport);
    /// A rate-limit wait is about to start (from the client's wait hook).
    fn wait(&self, event: &WaitEvent);
    /// A sentence worth showing (verification, repairs).
    fn note(&self, message: &str);
    /// The apply is over; clear any bar.
    fn close(&self);
}

/// Shows nothing (tests, library callers).
pub struct Silent;

impl Progress for Silent {
    fn start(&self, _: u32, _: usize) {}
    fn begin(&self, _: usize, _: &str) {}
    fn finish(&self, _: &ChangeReport) {}
    fn wait(&self, _: &WaitEvent) {}
    fn note(&self, _: &str) {}
    fn close(&self) {}
}

/// Waits shorter than this are the steady spacing of a long apply: not worth a line.
const VISIBLE_WAIT: Duration = Duration::from_secs(1);

fn wait_text(event: &WaitEvent) -> String {
    let why = if event.retry_after {
        "the API answered 429; waiting its Retry-After"
    } else {
        "pacing for the rate limit"
    };
    let until = chrono::Local::now()
        + chrono::Duration::from_std(event.wait).unwrap_or(chrono::Duration::zero());
    format!(
        "{why}: {:.1}s (until {})",
        event.wait.as_secs_f64(),
        until.format("%H:%M:%S")
    )
}

/// One line per event on stderr: CI logs, pipes. Nothing with `--quiet` (only errors then).
pub struct Lines {
    total: Mutex<(u32, usize)>,
    quiet: bool,
}

impl Lines {
    pub fn new() -> Lines {
        Lines {
            total: Mutex::new((0, 0)),
            quiet: !tracing::level_enabled!(tracing::Level::INFO),
        }
    }

    fn line(&self, text: &str) {
        if !self.quiet {
            // The line quotes server data (request ids, targets).
            let text = crate::untrusted::escape(text);
            let _ = writeln!(std::io::stderr().lock(), "{text}");
        }
    }

    fn round_total(&self) -> (u32, usize) {
        *self.total.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Default for Lines {
    fn default() -> Self {
        Lines::new()
    }
}

impl Progress for Lines {
    fn start(&self, round: u32, total: usize) {
        *self.total.lock().unwrap_or_else(|e| e.into_inner()) = (round, total);
    }

    fn begin(&self, _: usize, _: &str) {}

    fn finish(&self, report: &ChangeReport) {
        let (round, total) = self.round_total();
        let round = if round > 0 {
            format!(" repair round {round}")
        } else {
            String::new()
        };
        let request = report
            .request_id
            .as_deref()
            .map(|r| format!(" ({r})"))
            .unwrap_or_default();
        self.line(&format!(
            "apply{round} [{}/{total}] {}: {} — {}{request}",
            report.id,
            report.target,
            report.summary,
            report.outcome.as_str()
        ));
    }

    fn wait(&self, event: &WaitEvent) {
        if event.wait >= VISIBLE_WAIT {
            self.line(&format!("apply: {}", wait_text(event)));
        }
    }

    fn note(&self, message: &str) {
        self.line(&format!("apply: {message}"));
    }

    fn close(&self) {}
}

/// An indicatif bar on stderr (a terminal).
pub struct Bar {
    bar: ProgressBar,
}

impl Bar {
    /// Hidden until the first round starts, so it never draws over the confirmation prompt.
    pub fn new() -> Bar {
        let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::hidden());
        let style = ProgressStyle::with_template(
            "{spinner} [{bar:30}] {pos}/{len} changes, eta {eta} · {wide_msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
        bar.set_style(style);
        Bar { bar }
    }
}

impl Default for Bar {
    fn default() -> Self {
        Bar::new()
    }
}

impl Progress for Bar {
    fn start(&self, round: u32, total: usize) {
        if round == 0 {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
            self.bar.enable_steady_tick(Duration::from_millis(120));
        }
        self.bar.set_length(total as u64);
        self.bar.set_position(0);
        if round > 0 {
            self.bar
                .println(format!("repair round {round}: {total} change(s)"));
        }
    }

    fn begin(&self, _: usize, summary: &str) {
        self.bar.set_message(summary.to_string());
    }

    fn finish(&self, _: &ChangeReport) {
        // Only the count: the report on stdout lists every change once, at the end.
        self.bar.inc(1);
    }

    fn wait(&self, event: &WaitEvent) {
        if event.wait >= VISIBLE_WAIT {
            self.bar.set_message(wait_text(event));
        }
    }

    fn note(&self, message: &str) {
        self.bar.println(message);
    }

    fn close(&self) {
        self.bar.finish_and_clear();
    }
}
