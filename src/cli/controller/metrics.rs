//! What the controller shows Prometheus: the metric families of docs/controller.md, kept in one
//! prometheus-client `Registry` and written as OpenMetrics text.
//!
//! The loop calls the methods below with plain data (no core type reaches the metrics; names
//! the core gives, such as a round's outcome, arrive as its `name()` strings), so the metrics
//! say what the loop tells them and decide nothing. `/metrics` serves OpenMetrics, or
//! the classic Prometheus text format to a client that prefers it (`classic.rs`). Label values are closed lists
//! (`labels`) except three: a zone name or site slug (bounded by the account), a revision id
//! (one series at a time) and an API route template (bounded by the client's routes).
//! prometheus-client escapes `\`, `"` and newlines in label values, so a revision id read from a
//! hostile `.git` can't forge a line of the exposition.

pub mod classic;
mod labels;
mod series;
#[cfg(test)]
mod tests;

use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use dnscron_core::controller::{RoundOutcome, Trigger};
use prometheus_client::encoding::text;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::{Registry, Unit};

use labels::{
    AccountLabel, ApiLabels, BuildLabels, DriftLabels, KeptOutLabel, Level, LevelLabel,
    OutcomeLabel, RevisionLabels, TriggerLabel,
};
pub use labels::{BROKEN, DriftKind, RevisionSource};
use series::{ByAccount, Series};

/// Every family's name as a query names its series: counters with `_total`, the histogram by
/// its family name (its series add `_bucket`, `_sum` and `_count`); the list the manifests'
/// alert rules and dashboard are checked against.
pub const METRIC_NAMES: &[&str] = &[
    "dnscron_build_info",
    "dnscron_controller_rounds_total",
    "dnscron_controller_round_duration_seconds",
    "dnscron_controller_last_success_timestamp_seconds",
    "dnscron_controller_revision_info",
    "dnscron_controller_drift_changes",
    "dnscron_controller_findings",
    "dnscron_controller_api_requests_total",
    "dnscron_controller_rate_limit_wait_seconds_total",
    "dnscron_controller_suspended",
    "dnscron_controller_round_triggers_total",
    "dnscron_controller_sweep_progress_ratio",
    "dnscron_controller_consecutive_failures",
    "dnscron_controller_backoff_seconds",
    "dnscron_controller_pending_portal_step",
    "dnscron_controller_desired_revision_info",
    "dnscron_controller_revision_kept_out",
    "dnscron_controller_revision_live_seconds",
    "dnscron_controller_webhook_failures_total",
    "dnscron_controller_pending_nameservers",
];

/// A round's wall clock: from 1 ms (a round against a nearby API takes 3 to 20 ms) to 30 min (a
/// large account's writes spread by the budget).
pub const ROUND_DURATION_BUCKETS: [f64; 20] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0,
    120.0, 300.0, 600.0, 1200.0, 1800.0,
];

/// From the round that first read a revision to the round that converged it: under a second
/// for a merge, minutes when the budget spreads its writes, hours when it waits at a portal step
/// or for nameservers.
pub const REVISION_LIVE_BUCKETS: [f64; 14] = [
    0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0, 900.0, 3600.0, 14400.0, 86400.0,
];

type FloatGauge = Gauge<f64, AtomicU64>;
type IntGauge = Gauge<u64, AtomicU64>;

/// The controller's metrics: a view of the one registry, for one account (a repository of
/// several: its series carry `account="NAME"`) or for the only one (no `account` label). Every
/// method takes `&self`; clones share the registry, and the HTTP server encodes every account's
/// series at once (through `http::Shared`).
#[derive(Debug, Clone)]
pub struct Metrics {
    families: Arc<Families>,
    account: AccountLabel,
}

#[derive(Debug)]
struct Families {
    registry: Registry,
    rounds: Series<(AccountLabel, OutcomeLabel)>,
    round_duration: ByAccount<Histogram>,
    last_success: ByAccount<FloatGauge>,
    revision: Series<(AccountLabel, RevisionLabels)>,
    drift: Series<(AccountLabel, DriftLabels)>,
    findings: Series<(AccountLabel, LevelLabel)>,
    api_requests: Series<(AccountLabel, ApiLabels)>,
    rate_limit_wait: ByAccount<Counter<f64, AtomicU64>>,
    suspended: ByAccount<IntGauge>,
    triggers: Series<(AccountLabel, TriggerLabel)>,
    sweep_progress: ByAccount<FloatGauge>,
    consecutive_failures: ByAccount<IntGauge>,
    backoff: ByAccount<FloatGauge>,
    pending_portal_step: ByAccount<IntGauge>,
    build: Series<BuildLabels>,
    desired_revision: Series<(AccountLabel, RevisionLabels)>,
    kept_out: Series<(AccountLabel, KeptOutLabel)>,
    revision_live: ByAccount<Histogram>,
    webhook_failures: Counter,
    pending_nameservers: ByAccount<IntGauge>,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    /// The metrics of a controller of one account: no `account` label.
    pub fn new() -> Self {
        let metrics = Self::for_accounts();
        metrics.with_zero_series();
        metrics
    }

    /// The metrics of a controller of several accounts: each account's series come with
    /// [`Metrics::account`]; this view holds the shared ones (the build, the webhook).
    pub fn for_accounts() -> Self {
        let families = Families {
            registry: Registry::default(),
            rounds: Series::counter(),
            round_duration: ByAccount::new(|| Histogram::new(ROUND_DURATION_BUCKETS)),
            last_success: ByAccount::new(FloatGauge::default),
            revision: Series::gauge(),
            drift: Series::gauge(),
            findings: Series::gauge(),
            api_requests: Series::counter(),
            rate_limit_wait: ByAccount::new(Counter::default),
            suspended: ByAccount::new(IntGauge::default),
            triggers: Series::counter(),
            sweep_progress: ByAccount::new(FloatGauge::default),
            consecutive_failures: ByAccount::new(IntGauge::default),
            backoff: ByAccount::new(FloatGauge::default),
            pending_portal_step: ByAccount::new(IntGauge::default),
            build: Series::gauge(),
            desired_revision: Series::gauge(),
            kept_out: Series::gauge(),
            revision_live: ByAccount::new(|| Histogram::new(REVISION_LIVE_BUCKETS)),
            webhook_failures: Counter::default(),
            pending_nameservers: ByAccount::new(IntGauge::default),
        };
        families.build.replace([(
            BuildLabels {
                version: env!("CARGO_PKG_VERSION").to_owned(),
            },
            1,
        )]);
        Self {
            families: Arc::new(families.registered()),
            account: AccountLabel::default(),
        }
    }

    /// The view of account `name`, its series started (at 0 where a list is closed).
    pub fn account(&self, name: &str) -> Self {
        let view = Self {
            families: Arc::clone(&self.families),
            account: AccountLabel::named(name),
        };
        view.with_zero_series();
        view
    }

    /// Every series of this view's account leaves the exposition (an account removed).
    pub fn forget_account(&self) {
        let f = &self.families;
        let account = &self.account;
        f.rounds.forget(account);
        f.revision.forget(account);
        f.drift.forget(account);
        f.findings.forget(account);
        f.api_requests.forget(account);
        f.triggers.forget(account);
        f.desired_revision.forget(account);
        f.kept_out.forget(account);
        f.round_duration.forget(account);
        f.last_success.forget(account);
        f.rate_limit_wait.forget(account);
        f.suspended.forget(account);
        f.sweep_progress.forget(account);
        f.consecutive_failures.forget(account);
        f.backoff.forget(account);
        f.pending_portal_step.forget(account);
        f.revision_live.forget(account);
        f.pending_nameservers.forget(account);
    }

    // Closed label lists start at 0, so `increase()` sees the first round and an alert on
    // findings has a series to compare before the first plan; the unlabelled ones start too.
    fn with_zero_series(&self) {
        let f = &self.families;
        let a = || self.account.clone();
        for outcome in RoundOutcome::NAMES {
            f.rounds.add((a(), OutcomeLabel { outcome }), 0);
        }
        for trigger in Trigger::ALL.map(Trigger::name) {
            f.triggers.add((a(), TriggerLabel { trigger }), 0);
        }
        self.set_findings(0, 0, 0);
        for reason in labels::kept_out_reasons() {
            f.kept_out.add((a(), KeptOutLabel { reason }), 0);
        }
        let account = &self.account;
        f.round_duration.of(account);
        f.last_success.of(account);
        f.rate_limit_wait.of(account);
        f.suspended.of(account);
        f.sweep_progress.of(account);
        f.consecutive_failures.of(account);
        f.backoff.of(account);
        f.pending_portal_step.of(account);
        f.revision_live.of(account);
        f.pending_nameservers.of(account);
    }
}

impl Families {
    // prometheus-client adds `_total` to a counter's samples and the unit to a family's name;
    // the names here are without them, and METRIC_NAMES has them as exposed.
    fn registered(mut self) -> Self {
        let registry = &mut self.registry;
        registry.register(
            "dnscron_build_info",
            "The dnscron binary serving these metrics: its version; one series, at 1",
            self.build.clone(),
        );
        registry.register(
            "dnscron_controller_rounds",
            "Rounds finished, by how they ended: converged (every change in effect), drift \
             (differences left that the policy doesn't write), baseline (first start: the files \
             taken as the base, nothing read or written), pending (a revision waits at a portal \
             step or for nameservers), held (an error finding holds a change), refused (past the \
             safety limits), conflicted (a change left alone: its live value moved), error (the \
             round failed)",
            self.rounds.clone(),
        );
        registry.register_with_unit(
            "dnscron_controller_round_duration",
            "Wall clock of a round, from its first read to its last write",
            Unit::Seconds,
            self.round_duration.clone(),
        );
        registry.register_with_unit(
            "dnscron_controller_last_success_timestamp",
            "Unix time of the last round that ended without an error (0: none yet)",
            Unit::Seconds,
            self.last_success.clone(),
        );
        registry.register(
            "dnscron_controller_revision_info",
            "The revision applied (the last one that converged): its id, a git commit or a digest \
             of the files; one series, at 1",
            self.revision.clone(),
        );
        registry.register(
            "dnscron_controller_drift_changes",
            "Changes pending between the account and the files, by target (zone name or site \
             slug) and kind; a target without drift has no series",
            self.drift.clone(),
        );
        registry.register(
            "dnscron_controller_findings",
            "Unaccepted findings of the last plan, by level",
            self.findings.clone(),
        );
        registry.register(
            "dnscron_controller_api_requests",
            "API requests sent, by method, route template and status code (error: no response)",
            self.api_requests.clone(),
        );
        registry.register_with_unit(
            "dnscron_controller_rate_limit_wait",
            "Time spent waiting for the API's rate limit and the controller's budget",
            Unit::Seconds,
            self.rate_limit_wait.clone(),
        );
        registry.register(
            "dnscron_controller_suspended",
            "1 while the suspend file exists (writes suspended), else 0",
            self.suspended.clone(),
        );
        registry.register(
            "dnscron_controller_round_triggers",
            "Rounds started, by why: start, interval, revision (DIR changed), signal (SIGHUP), \
             suspend_file (the suspend file appeared or went away), retry (after a failed round)",
            self.triggers.clone(),
        );
        registry.register_with_unit(
            "dnscron_controller_sweep_progress",
            "Share of the account's targets read in the current drift sweep (0 to 1)",
            Unit::Other("ratio".to_owned()),
            self.sweep_progress.clone(),
        );
        registry.register(
            "dnscron_controller_consecutive_failures",
            "Rounds in a row that ended in an error (0 after a round without one)",
            self.consecutive_failures.clone(),
        );
        registry.register_with_unit(
            "dnscron_controller_backoff",
            "Wait before the next round after a failed one (0 when the last round didn't fail)",
            Unit::Seconds,
            self.backoff.clone(),
        );
        registry.register(
            "dnscron_controller_pending_portal_step",
            "1 while a revision waits at a step only the hosting portal can do, else 0",
            self.pending_portal_step.clone(),
        );
        registry.register(
            "dnscron_controller_desired_revision_info",
            "The revision the folder holds now (checked out), whether it loads and converged or \
             not; one series, at 1",
            self.desired_revision.clone(),
        );
        registry.register(
            "dnscron_controller_revision_kept_out",
            "1 while the folder's newest revision is kept out for this reason (broken: its files \
             don't load; held: an error finding holds a change; refused: past the safety \
             limits; conflicted: a change would overwrite a value that moved), else 0",
            self.kept_out.clone(),
        );
        registry.register_with_unit(
            "dnscron_controller_revision_live",
            "From the start of the round that first read a revision to the end of the round \
             that converged it",
            Unit::Seconds,
            self.revision_live.clone(),
        );
        registry.register(
            "dnscron_controller_webhook_failures",
            "Webhook messages not delivered: the post failed, or the queue was full",
            self.webhook_failures.clone(),
        );
        registry.register(
            "dnscron_controller_pending_nameservers",
            "1 while a revision waits for a domain's new nameservers to serve its zone before \
             switching to them, else 0",
            self.pending_nameservers.clone(),
        );
        self
    }
}

impl Metrics {
    fn a(&self) -> AccountLabel {
        self.account.clone()
    }

    /// `trigger`: the core's `Trigger::name`.
    pub fn round_started(&self, trigger: &'static str) {
        self.families
            .triggers
            .add((self.a(), TriggerLabel { trigger }), 1);
    }

    /// `outcome`: the core's `RoundOutcome::name`.
    pub fn round_finished(&self, outcome: &'static str, duration: Duration) {
        let f = &self.families;
        f.rounds.add((self.a(), OutcomeLabel { outcome }), 1);
        f.round_duration
            .of(&self.account)
            .observe(duration.as_secs_f64());
    }

    pub fn succeeded_at(&self, unix_secs: f64) {
        self.families.last_success.of(&self.account).set(unix_secs);
    }

    /// The revision applied; the one before it leaves the exposition.
    pub fn set_revision(&self, id: &str, source: RevisionSource) {
        let labels = RevisionLabels {
            revision: id.to_owned(),
            source,
        };
        self.families
            .revision
            .replace_where(|l| l.0 == self.account, [((self.a(), labels), 1)]);
    }

    /// The drift of the last plan, `(target, kind, changes)`: replaces every series, so a
    /// target no longer drifting leaves the exposition.
    pub fn set_drift(&self, drift: &[(String, DriftKind, u64)]) {
        self.families.drift.replace_where(
            |l| l.0 == self.account,
            drift.iter().map(|(target, kind, changes)| {
                let labels = DriftLabels {
                    target: target.clone(),
                    kind: *kind,
                };
                ((self.a(), labels), *changes)
            }),
        );
    }

    pub fn set_findings(&self, error: u64, warning: u64, info: u64) {
        let level = |level: Level| (self.a(), LevelLabel { level });
        self.families.findings.replace_where(
            |l| l.0 == self.account,
            [
                (level(Level::Error), error),
                (level(Level::Warning), warning),
                (level(Level::Info), info),
            ],
        );
    }

    /// One API request: `route` is its template (`/dns/{zone}/records`), never a path with a
    /// zone in it; `status` is `None` when no response came.
    pub fn api_response(&self, method: &str, route: &str, status: Option<u16>) {
        let status = status.map_or_else(|| "error".to_owned(), |code| code.to_string());
        let labels = ApiLabels {
            method: method.to_owned(),
            route: route.to_owned(),
            status,
        };
        self.families.api_requests.add((self.a(), labels), 1);
    }

    pub fn rate_limit_wait(&self, waited: Duration) {
        self.families
            .rate_limit_wait
            .of(&self.account)
            .inc_by(waited.as_secs_f64());
    }

    pub fn set_suspended(&self, suspended: bool) {
        self.families
            .suspended
            .of(&self.account)
            .set(u64::from(suspended));
    }

    /// A sweep of no targets is complete; `done` past `total` counts as complete too.
    pub fn set_sweep_progress(&self, done: usize, total: usize) {
        let ratio = if total == 0 {
            1.0
        } else {
            (done.min(total) as f64) / (total as f64)
        };
        self.families.sweep_progress.of(&self.account).set(ratio);
    }

    pub fn set_backoff(&self, consecutive_failures: u64, next: Duration) {
        let f = &self.families;
        f.consecutive_failures
            .of(&self.account)
            .set(consecutive_failures);
        f.backoff.of(&self.account).set(next.as_secs_f64());
    }

    pub fn set_pending_portal_step(&self, pending: bool) {
        self.families
            .pending_portal_step
            .of(&self.account)
            .set(u64::from(pending));
    }

    /// The revision the folder holds now; the one before it leaves the exposition.
    pub fn set_desired_revision(&self, id: &str, source: RevisionSource) {
        let labels = RevisionLabels {
            revision: id.to_owned(),
            source,
        };
        self.families
            .desired_revision
            .replace_where(|l| l.0 == self.account, [((self.a(), labels), 1)]);
    }

    /// Whether the folder's newest revision is kept out for `reason`: [`BROKEN`] or the core's
    /// `KeptOutReason::name`.
    pub fn set_kept_out(&self, reason: &'static str, kept_out: bool) {
        self.families
            .kept_out
            .replace_one((self.a(), KeptOutLabel { reason }), u64::from(kept_out));
    }

    /// A revision converged `latency` after the round that first read it began.
    pub fn revision_live(&self, latency: Duration) {
        self.families
            .revision_live
            .of(&self.account)
            .observe(latency.as_secs_f64());
    }

    pub fn set_pending_nameservers(&self, pending: bool) {
        self.families
            .pending_nameservers
            .of(&self.account)
            .set(u64::from(pending));
    }

    /// Shared by every account: one webhook per controller.
    pub fn webhook_failed(&self) {
        self.families.webhook_failures.inc();
    }

    /// The classic Prometheus text format (version 0.0.4) of the same families.
    pub fn encode_classic(&self) -> String {
        classic::from_openmetrics(&self.encode())
    }

    /// The OpenMetrics text exposition, `# EOF` last.
    pub fn encode(&self) -> String {
        let mut exposition = String::new();
        // Writing to a String can't fail and every label value here encodes; an error would be
        // the encoder's own bug. The text then ends without `# EOF`, which Prometheus reports
        // as a failed scrape: visible, where an empty answer would look like no metrics.
        if let Err(error) = text::encode(&mut exposition, &self.families.registry) {
            tracing::error!(%error, "encoding the metrics failed");
        }
        exposition
    }
}
