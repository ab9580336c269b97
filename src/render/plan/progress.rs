//! Progress while `plan` reads the live account: on a terminal a bar (reads of all, and the
//! rate-limit wait as a countdown); otherwise (CI logs) one plain line a minute. A plan paced by
//! the rate limit reads for minutes, and a log line per wait said the same thing eight times at
//! once and then nothing (docs/plan.md, "Progress"). `import` of the account draws its reads
//! the same way (`named`).
//!
//! Over several accounts (`for_accounts`), each account's reads are counted apart, each fed by
//! its own client's waits: the bar stays one line (the sum, and the account with the most reads
//! left, which decides when the plan ends: fifty accounts' bars would not fit a terminal), and
//! the minute's line names every account still reading with its own figures.

use std::fmt::Write as _;
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use tokio::time::Instant;

use dnscron_api::{Stats, WaitEvent, WaitHook};
use dnscron_core::plan::{ReadProgress, ReadProgressHook};

/// How often the plain form says where the plan is.
pub const LINE_EVERY: Duration = Duration::from_secs(60);

/// The reads queued and in, and when the latest rate-limit wait ends: one account's.
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

    fn done(&self) -> usize {
        self.done.load(Ordering::Relaxed)
    }

    fn queued(&self) -> usize {
        self.queued.load(Ordering::Relaxed)
    }
}

/// One account's reads: the [`ReadProgress`] its plan reports to, fed by its client's waits.
pub struct AccountReads {
    /// `None` for the plan of one account, which names none.
    name: Option<String>,
    counts: Counts,
    /// The client's statistics, for the wall-clock rate-limit wait (the client is made after
    /// its wait hook, so after this).
    stats: OnceLock<Stats>,
    /// Its plan ended (made or failed): it reads nothing more.
    finished: AtomicBool,
}

impl AccountReads {
    fn new(name: Option<String>) -> Arc<AccountReads> {
        Arc::new(AccountReads {
            name,
            counts: Counts::default(),
            stats: OnceLock::new(),
            finished: AtomicBool::new(false),
        })
    }

    /// For `ApiConfig::on_wait` of this account's client: the countdown the bar shows.
    pub fn wait_hook(self: &Arc<Self>) -> WaitHook {
        let reads = Arc::clone(self);
        Arc::new(move |event: &WaitEvent| {
            let until = Instant::now() + event.wait;
            let mut wait_until = reads
                .counts
                .wait_until
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            *wait_until = Some(wait_until.map_or(until, |current| current.max(until)));
        })
    }

    /// The rate-limit wait the lines give is the wall-clock one of `stats` (the client's).
    pub fn set_stats(&self, stats: Stats) {
        let _ = self.stats.set(stats);
    }

    /// The account's plan ended: the lines and the bar stop naming it.
    pub fn finish(&self) {
        self.finished.store(true, Ordering::Relaxed);
    }

    /// As the planner takes it.
    pub fn hook(self: &Arc<Self>) -> ReadProgressHook {
        ReadProgressHook(Arc::clone(self) as Arc<dyn ReadProgress>)
    }

    fn reading(&self) -> bool {
        !self.finished.load(Ordering::Relaxed)
    }

    fn left(&self) -> usize {
        self.counts.queued().saturating_sub(self.counts.done())
    }

    fn waited(&self) -> Duration {
        self.stats
            .get()
            .map_or(Duration::ZERO, |stats| stats.snapshot().rate_limit_wall)
    }
}

impl ReadProgress for AccountReads {
    fn queued(&self, count: usize) {
        self.counts.queued.fetch_add(count, Ordering::Relaxed);
    }

    fn done(&self) {
        self.counts.done.fetch_add(1, Ordering::Relaxed);
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

/// Whose reads are counted: one account (unnamed), or those `for_accounts` names.
struct Accounts {
    first: Arc<AccountReads>,
    others: Vec<Arc<AccountReads>>,
}

impl Accounts {
    fn iter(&self) -> impl Iterator<Item = &Arc<AccountReads>> {
        std::iter::once(&self.first).chain(&self.others)
    }

    fn len(&self) -> usize {
        1 + self.others.len()
    }

    fn done(&self) -> usize {
        self.iter().map(|a| a.counts.done()).sum()
    }

    fn queued(&self) -> usize {
        self.iter().map(|a| a.counts.queued()).sum()
    }
}

/// The plan's progress: a [`ReadProgress`] for the planner and a wait hook for the client, per
/// account when there are several.
pub struct PlanProgress {
    /// Set once (by `for_accounts`, or to one unnamed account at first use), shared with the
    /// bar's drawing.
    reads: Arc<OnceLock<Accounts>>,
    form: Form,
    /// The command a line names.
    command: &'static str,
}

impl PlanProgress {
    /// The bar, for a terminal.
    pub fn bar() -> PlanProgress {
        let reads: Arc<OnceLock<Accounts>> = Arc::new(OnceLock::new());
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        let drawn = Arc::clone(&reads);
        let style = ProgressStyle::with_template("{spinner} {reads}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner())
            .with_key(
                "reads",
                move |_: &ProgressState, out: &mut dyn std::fmt::Write| {
                    if let Some(reads) = drawn.get() {
                        let _ = out.write_str(&bar_text(reads, Instant::now()));
                    }
                },
            );
        bar.set_style(style);
        bar.enable_steady_tick(Duration::from_millis(120));
        PlanProgress {
            reads,
            form: Form::Bar(bar),
            command: "plan",
        }
    }

    /// A line a minute through `sink`.
    pub fn lines(sink: impl Fn(&str) + Send + Sync + 'static) -> PlanProgress {
        PlanProgress {
            reads: Arc::new(OnceLock::new()),
            form: Form::Lines {
                started: Instant::now(),
                sink: Box::new(sink),
            },
            command: "plan",
        }
    }

    /// The lines name `command` (`import: read …`) instead of `plan`.
    pub fn named(mut self, command: &'static str) -> PlanProgress {
        self.command = command;
        self
    }

    /// The reads of the accounts `names`, each counted apart and named ([`Self::account`]);
    /// called first, before anything is counted. The one account's methods below
    /// (`wait_hook`, `with_stats`, the [`ReadProgress`]) are then the first account's.
    pub fn for_accounts<S: AsRef<str>>(self, names: &[S]) -> PlanProgress {
        let mut reads = names
            .iter()
            .map(|name| AccountReads::new(Some(name.as_ref().to_owned())));
        if let Some(first) = reads.next() {
            let _ = self.reads.set(Accounts {
                first,
                others: reads.collect(),
            });
        }
        self
    }

    fn all(&self) -> &Accounts {
        self.reads.get_or_init(|| Accounts {
            first: AccountReads::new(None),
            others: Vec::new(),
        })
    }

    /// Account `index`'s reads, in the order given to `for_accounts` (0: the one account).
    pub fn account(&self, index: usize) -> Option<Arc<AccountReads>> {
        self.all().iter().nth(index).cloned()
    }

    fn first(&self) -> &AccountReads {
        &self.all().first
    }

    /// The rate-limit wait the lines give is the wall-clock one of `stats` (the client's).
    pub fn with_stats(self, stats: Stats) -> PlanProgress {
        self.first().set_stats(stats);
        self
    }

    /// For `ApiConfig::on_wait`: the countdown the bar shows.
    pub fn wait_hook(&self) -> WaitHook {
        self.all().first.wait_hook()
    }

    /// Runs `print` with the bar out of the way (it is drawn again after).
    pub fn suspend<R>(&self, print: impl FnOnce() -> R) -> R {
        match &self.form {
            Form::Bar(bar) => bar.suspend(print),
            Form::Lines { .. } => print(),
        }
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
        let all = self.all();
        let one = &all.first;
        let whose = match (&one.name, all.others.is_empty()) {
            (None, true) => String::new(),
            (Some(name), true) => format!(" in account `{name}`"),
            (_, false) => format!(" in {}", count(all.len(), "account", "accounts")),
        };
        let mut line = format!(
            "{}: read {} of {}{whose} after {}",
            self.command,
            all.done(),
            all.queued(),
            minutes(elapsed)
        );
        if all.others.is_empty() {
            line.push_str(&waited(one.waited()));
            return line;
        }
        let reading: Vec<String> = all
            .iter()
            .filter(|a| a.reading())
            .map(|a| {
                format!(
                    "`{}` ({} of {}{})",
                    a.name.as_deref().unwrap_or_default(),
                    a.counts.done(),
                    a.counts.queued(),
                    waited(a.waited())
                )
            })
            .collect();
        if !reading.is_empty() {
            let _ = write!(line, "; still reading {}", reading.join(", "));
        }
        line
    }
}

/// `, Ns of it waiting for the rate limit`, or nothing when no read waited a second.
fn waited(wall: Duration) -> String {
    match wall.as_secs() {
        0 => String::new(),
        secs => format!(", {secs}s of it waiting for the rate limit"),
    }
}

fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The bar's text at `now`: the reads of all; over several accounts, how many still read and
/// the one with the most reads left (the plan ends when it does); the rate-limit countdown (of
/// that account, over several).
fn bar_text(all: &Accounts, now: Instant) -> String {
    let (done, queued) = (all.done(), all.queued());
    let countdown = |reads: &AccountReads| match reads.counts.wait_left(now) {
        Some(left) => format!(
            " · waiting for the rate limit: {}s",
            left.as_secs_f64().ceil()
        ),
        None => String::new(),
    };
    let one = &all.first;
    match (&one.name, all.others.is_empty()) {
        (None, true) => format!(
            "reading the live account: {done}/{queued}{}",
            countdown(one)
        ),
        (Some(name), true) => {
            format!(
                "reading account `{name}`: {done}/{queued}{}",
                countdown(one)
            )
        }
        (_, false) => {
            let reading: Vec<&Arc<AccountReads>> = all.iter().filter(|a| a.reading()).collect();
            let mut text = format!(
                "reading {}: {done}/{queued}",
                count(all.len(), "account", "accounts")
            );
            if reading.is_empty() {
                return text;
            }
            let _ = write!(text, " · {} of {} still reading", reading.len(), all.len());
            // The first of the most reads left (`max_by_key` keeps the last of equals), so a
            // tie keeps the file's order; none while nothing is queued (between phases).
            let slowest = reading.iter().rev().max_by_key(|a| a.left());
            if let Some(slowest) = slowest.filter(|a| a.left() > 0) {
                let _ = write!(
                    text,
                    ", slowest `{}`: {}/{}{}",
                    slowest.name.as_deref().unwrap_or_default(),
                    slowest.counts.done(),
                    slowest.counts.queued(),
                    countdown(slowest)
                );
            }
            text
        }
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
        self.first().queued(count);
    }

    fn done(&self) {
        self.first().done();
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
        let (progress, lines) = collected(&[]);
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

    /// The lines collected from a plain progress over `accounts` (none: one unnamed account).
    fn collected(accounts: &[&str]) -> (PlanProgress, Arc<Mutex<Vec<String>>>) {
        let lines = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&lines);
        let progress = PlanProgress::lines(move |l| {
            sink.lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(l.to_string());
        })
        .for_accounts(accounts);
        (progress, lines)
    }

    fn reads(progress: &PlanProgress) -> Vec<Arc<AccountReads>> {
        (0..).map_while(|i| progress.account(i)).collect::<Vec<_>>()
    }

    fn done(reads: &AccountReads, n: usize) {
        (0..n).for_each(|_| reads.done());
    }

    /// Three accounts read side by side: each minute's line sums them and names, with its own
    /// figures, every account still reading; one that finished is named no more.
    #[tokio::test(start_paused = true)]
    async fn over_accounts_a_line_a_minute_names_each_account_still_reading() {
        let (progress, lines) = collected(&["acme", "shop", "blog"]);
        let [acme, shop, blog] = &reads(&progress)[..] else {
            panic!("three accounts")
        };
        acme.queued(10);
        shop.queued(4);
        blog.queued(2);
        let work = async {
            tokio::time::sleep(Duration::from_secs(30)).await;
            done(shop, 4);
            shop.finish();
            done(acme, 2);
            done(blog, 1);
            tokio::time::sleep(Duration::from_secs(60)).await;
            // The registrar reads start: the total grows.
            acme.queued(5);
            done(acme, 5);
            done(blog, 1);
            blog.finish();
            tokio::time::sleep(Duration::from_secs(40)).await;
            done(acme, 8);
            acme.finish();
            // Every account's plan made, the last words of the run still to come.
            tokio::time::sleep(Duration::from_secs(60)).await;
        };
        progress.alongside(work).await;
        let lines = lines.lock().unwrap_or_else(|e| e.into_inner()).clone();
        assert_eq!(lines.len(), 3);
        insta::assert_snapshot!(lines.join("\n"));
    }

    /// The bar stays one line over any number of accounts: the sum, how many still read, and
    /// the one with the most reads left with its own rate-limit countdown.
    #[tokio::test(start_paused = true)]
    async fn over_accounts_the_bar_sums_them_and_names_the_slowest() {
        let (progress, _) = collected(&["acme", "shop", "blog"]);
        let [acme, shop, blog] = &reads(&progress)[..] else {
            panic!("three accounts")
        };
        let wait = |reads: &Arc<AccountReads>, secs| {
            reads.wait_hook()(&WaitEvent {
                wait: Duration::from_secs(secs),
                remaining: Some(0),
                retry_after: false,
            });
        };
        let mut drawn = Vec::new();
        let mut draw = |when: &str| {
            drawn.push(format!(
                "{when}: {}",
                bar_text(progress.all(), Instant::now())
            ));
        };
        draw("before any read");
        acme.queued(10);
        shop.queued(12);
        blog.queued(2);
        draw("queued");
        done(shop, 6);
        done(acme, 3);
        wait(acme, 4);
        draw("acme waits, shop has fewer left");
        tokio::time::sleep(Duration::from_millis(1500)).await;
        done(blog, 2);
        blog.finish();
        draw("1.5s later, blog done");
        done(acme, 7);
        acme.finish();
        wait(shop, 9);
        draw("acme done, shop waits");
        done(shop, 6);
        draw("shop's reads in, its plan not yet made");
        shop.finish();
        draw("every plan made");
        // One account, as before accounts existed; one chosen among several, named.
        let (one, _) = collected(&[]);
        one.queued(3);
        one.done();
        wait(&one.all().first, 2);
        let (chosen, _) = collected(&["acme"]);
        chosen.queued(3);
        for (when, progress) in [("one account", &one), ("one account chosen", &chosen)] {
            drawn.push(format!(
                "{when}: {}",
                bar_text(progress.all(), Instant::now())
            ));
        }
        insta::assert_snapshot!(drawn.join("\n"));
    }

    /// One account chosen among several (`--account acme`) is named, without a list.
    #[tokio::test(start_paused = true)]
    async fn one_account_chosen_is_named_in_its_line() {
        let (progress, lines) = collected(&["acme"]);
        progress.queued(4);
        let work = async {
            progress.done();
            tokio::time::sleep(Duration::from_secs(61)).await;
        };
        progress.alongside(work).await;
        assert_eq!(
            *lines.lock().unwrap_or_else(|e| e.into_inner()),
            ["plan: read 1 of 4 in account `acme` after 1m"]
        );
    }
}
