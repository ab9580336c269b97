//! The controller's flags: the interface its manifests and scripts rely on (docs/controller.md).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use crate::cli::api_args::{ApiArgs, parse_duration};
use crate::cli::dns_args::ApplyDnsArgs;

#[derive(Debug, clap::Args)]
#[command(
    after_long_help = "\
Policies (docs/controller.md):
  observe  never writes: drift and findings are reported (metrics, /status, logs, webhook)
  apply    applies what merged: a new revision's difference from the last converged one, each
           change only while the live value is what that revision declared; anything else that
           differs is drift, reported, never reverted (the default)
  heal     also reverts drift, within the safety limits (a mass revert is refused and reported)

On its first start (no converged revision in --state-file) the controller takes the folder's
revision as the base and writes nothing until the next one, unless --adopt-revision names it.

Exit: runs until SIGTERM or SIGINT (the write in flight finishes, exit 0); SIGHUP asks for a
round now. With --once: 0 converged, 2 drift, unapplied changes or error findings left, 1 a
round failed.

With dnscron-accounts.yaml at the root of DIR, every account it names (or each --account NAME)
is reconciled side by side, each with its own API client and bucket, rounds and backoff: its
state in --state-file with its name added (controller.json: controller.NAME.json), its writes
suspended by --suspend-file's FILE.NAME or by FILE itself (every account).

`dnscron controller manifests` prints the Kubernetes kit that runs it.",
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
pub struct ControllerArgs {
    #[command(subcommand)]
    pub command: Option<ControllerCommand>,
    /// The folder of desired-state files: a git checkout, a git-sync link, a Flux artifact or a
    /// mounted ConfigMap (a folder swapped atomically; a new revision is acted on within a second).
    // An Option only for clap: required unless a subcommand is given.
    #[arg(value_name = "DIR", required = true)]
    pub dir: Option<PathBuf>,
    #[command(flatten)]
    pub api: ApiArgs,
    /// What the controller may write.
    #[arg(long, value_enum, default_value_t = Policy::Apply)]
    pub policy: Policy,
    /// Time between two drift sweeps of the whole account, each drawn ±10 % (e.g. 5m, 1h).
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = parse_interval)]
    pub interval: Duration,
    /// One round: apply a new revision if one is due, sweep the whole account once, then exit.
    #[arg(long)]
    pub once: bool,
    /// Serve /metrics, /healthz, /readyz and /status on this address (e.g. 0.0.0.0:8080).
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<SocketAddr>,
    /// The share of the API's rate limit (120 requests a minute) the controller may spend, over
    /// any rolling minute; the rest stays for CI's plans and applies.
    #[arg(long, value_name = "PERCENT", default_value_t = 50,
          value_parser = clap::value_parser!(u8).range(1..=100))]
    pub api_share: u8,
    /// Keep the last converged revision here (written atomically), so a restart applies what
    /// merged meanwhile; without it a restart takes the folder as it is as the base.
    #[arg(long, value_name = "FILE")]
    pub state_file: Option<PathBuf>,
    /// Post drift and failures, once when they start and once when they clear, to the
    /// Slack-compatible incoming-webhook URL in this file (never printed).
    #[arg(long, value_name = "FILE")]
    pub webhook_url_file: Option<PathBuf>,
    /// Suspend writes while this file exists (reads and reports go on).
    #[arg(long, value_name = "FILE")]
    pub suspend_file: Option<PathBuf>,
    /// On a first start, apply the whole difference of the folder's revision if it is this one
    /// (its commit id, or sha256:… for a folder without git); any other revision is the base.
    #[arg(long, value_name = "REVISION")]
    pub adopt_revision: Option<String>,
    #[command(flatten)]
    pub dns: ApplyDnsArgs,
    #[command(flatten)]
    pub account: crate::cli::accounts::AccountArgs,
}

/// What `dnscron controller` does besides running.
#[derive(Debug, clap::Subcommand)]
pub enum ControllerCommand {
    /// Print the Kubernetes kit for one account (Deployment with git-sync, claim, Service,
    /// ServiceMonitor, NetworkPolicy); with --out-dir, also the alert rules, their tests and
    /// the dashboard.
    Manifests(super::manifests::ManifestsArgs),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Policy {
    /// Never write.
    Observe,
    /// Apply merged changes; report drift.
    Apply,
    /// Apply merged changes and revert drift within the safety limits.
    Heal,
}

impl Policy {
    pub fn name(self) -> &'static str {
        match self {
            Policy::Observe => "observe",
            Policy::Apply => "apply",
            Policy::Heal => "heal",
        }
    }
}

/// At least a second: an interval of 0 would sweep the account back to back.
fn parse_interval(input: &str) -> Result<Duration, String> {
    match parse_duration(input)? {
        d if d < Duration::from_secs(1) => Err("the interval must be at least 1s".into()),
        d => Ok(d),
    }
}
