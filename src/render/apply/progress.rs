//! Progress while applying: a bar on a terminal (done/total, the current change, rate-limit
//! waits with when they end), plain lines on stderr otherwise.

use std::io::Write;
use std::sync::Mutex;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use dnscron_api::WaitEvent;
use dnscron_core::apply::{ChangeOutcome, ChangeReport, Note, Progress};
use dnscron_core::plan::Change;

use super::summary;

/// Waits shorter than this are the steady spacing of a long apply: not worth a line.
const VISIBLE_WAIT: Duration = Duration::from_secs(1);

/// A replayed write is worth a log line: verification then checks that its effect is real.
/// (A cron delete that reached another job says so in its outcome, replayed or not.)
fn log_replay(report: &ChangeReport) {
    if report.replayed && report.outcome == ChangeOutcome::Replayed {
        tracing::info!(
            "change {} ({}): the server replayed the stored response for key {}; verification will check it is in effect",
            report.id,
            summary(&report.change),
            report.idempotency_key
        );
    }
}

fn note_text(note: &Note) -> String {
    match note {
        Note::Verifying => "verifying: reading the changed targets again".to_string(),
        Note::NotVisibleYet { count, wait } => format!(
            "{count} change(s) the server accepted are not visible yet; reading again in {}s (never sending them twice)",
            wait.as_secs_f64()
        ),
        Note::Repairing { count, round } => format!(
            "verification found {count} change(s) not in effect (a replayed response whose effect is gone, or a concurrent edit); sending them again with round-{round} keys"
        ),
        Note::CheckingDns { wait } => format!(
            "checking DNS: asking the zones' nameservers for the changed records (up to {}s)",
            wait.as_secs_f64()
        ),
        Note::CheckingReadiness { zone } => {
            format!("asking the new nameservers of {zone} whether they serve it before switching")
        }
    }
}

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
            let text = dnscron_api::untrusted::escape(text);
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

    fn begin(&self, _: usize, _: &Change) {}

    fn finish(&self, report: &ChangeReport) {
        log_replay(report);
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
            summary(&report.change),
            super::outcome_words(report.outcome)
        ));
    }

    fn wait(&self, event: &WaitEvent) {
        if event.wait >= VISIBLE_WAIT {
            self.line(&format!("apply: {}", wait_text(event)));
        }
    }

    fn note(&self, note: &Note) {
        self.line(&format!("apply: {}", note_text(note)));
    }

    fn close(&self) {}
}

/// Before the round's first answer there is no rate to tell an eta from: the bar shows none
/// rather than "eta 0s".
const TEMPLATE_BEFORE_ANSWER: &str = "{spinner} [{bar:30}] {pos}/{len} changes · {wide_msg}";
const TEMPLATE: &str = "{spinner} [{bar:30}] {pos}/{len} changes, eta {eta} · {wide_msg}";

fn style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template)
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ")
}

/// What the bar says while changes are sent: how many are in flight and the latest one.
fn in_flight(count: usize, latest: &str) -> String {
    match count {
        0 => String::new(),
        1 => format!("sending {latest}"),
        n => format!("{n} in flight, latest {latest}"),
    }
}

/// An indicatif bar on stderr (a terminal).
pub struct Bar {
    bar: ProgressBar,
    /// Changes begun and not yet answered, and the summary of the latest begun.
    sending: Mutex<(usize, String)>,
}

impl Bar {
    /// Hidden until the first round starts, so it never draws over the confirmation prompt.
    pub fn new() -> Bar {
        let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::hidden());
        bar.set_style(style(TEMPLATE_BEFORE_ANSWER));
        Bar {
            bar,
            sending: Mutex::new((0, String::new())),
        }
    }

    fn sending(&self) -> std::sync::MutexGuard<'_, (usize, String)> {
        self.sending.lock().unwrap_or_else(|e| e.into_inner())
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
        self.bar.set_style(style(TEMPLATE_BEFORE_ANSWER));
        self.bar.set_length(total as u64);
        self.bar.set_position(0);
        // A fresh round restarts the rate the eta comes from.
        self.bar.reset_eta();
        *self.sending() = (0, String::new());
        if round > 0 {
            self.bar
                .println(format!("repair round {round}: {total} change(s)"));
        }
    }

    fn begin(&self, _: usize, change: &Change) {
        let mut sending = self.sending();
        sending.0 += 1;
        sending.1 = summary(change);
        self.bar.set_message(in_flight(sending.0, &sending.1));
    }

    fn finish(&self, report: &ChangeReport) {
        log_replay(report);
        if self.bar.position() == 0 {
            self.bar.set_style(style(TEMPLATE));
        }
        // Only the count: the report on stdout lists every change once, at the end.
        self.bar.inc(1);
        let mut sending = self.sending();
        sending.0 = sending.0.saturating_sub(1);
        self.bar.set_message(in_flight(sending.0, &sending.1));
    }

    fn wait(&self, event: &WaitEvent) {
        if event.wait >= VISIBLE_WAIT {
            self.bar.set_message(wait_text(event));
        }
    }

    fn note(&self, note: &Note) {
        self.bar.println(note_text(note));
    }

    fn close(&self) {
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod bar_tests {
    use super::*;

    #[test]
    fn no_eta_before_the_first_answer_and_what_is_in_flight() {
        assert!(!TEMPLATE_BEFORE_ANSWER.contains("eta"));
        assert!(TEMPLATE.contains("eta {eta}"));
        assert_eq!(in_flight(0, "+ www A"), "");
        assert_eq!(in_flight(1, "+ www A"), "sending + www A");
        assert_eq!(in_flight(3, "+ www A"), "3 in flight, latest + www A");
    }
}
