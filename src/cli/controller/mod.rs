//! `dnscron controller DIR` (docs/controller.md): flags, the client the policy allows, signals,
//! and the front end of the core's loop (`dnscron_core::controller`): its events become log
//! lines, metrics, `/status` and webhook messages. The core decides what every round does.

mod args;
pub mod fleet;
mod front;
pub mod http;
pub mod manifests;
pub mod metrics;
mod observed;
pub mod status_json;
mod webhook;
mod words;

use std::sync::Arc;
use std::time::Duration;

use dnscron_api::{ReadClient, WriteClient};
use dnscron_core::controller::{
    BUCKET_PER_MINUTE, Controller, Mode, OnceOutcome, RunEnd, Settings, StateLock, StateStore,
    api_config,
};

pub use args::{ControllerArgs, ControllerCommand, Policy};

use crate::cli::error::{CommandError, CommandResult, ErrorKind, Outcome};

pub fn run(args: ControllerArgs, log_format: crate::cli::logging::LogFormat) -> CommandResult {
    let dir = match (&args.command, &args.dir) {
        (Some(ControllerCommand::Manifests(manifests)), _) => {
            return manifests::run(manifests.clone());
        }
        (None, Some(dir)) => dir.clone(),
        // clap requires DIR without a subcommand.
        (None, None) => {
            return Err(CommandError::new(
                ErrorKind::User,
                "dnscron controller needs DIR, the folder to reconcile",
            ));
        }
    };
    let json = log_format == crate::cli::logging::LogFormat::Json;
    let repository = crate::cli::accounts::Repository::discover_for_api(
        std::slice::from_ref(&dir),
        &args.account,
        &args.api,
    )?;
    if let crate::cli::accounts::Repository::Many { .. } = &repository {
        // Two entries of one live account would reconcile it twice, side by side.
        crate::cli::trust::one_token_each(&repository.chosen(), &args.api)?;
    }
    if let crate::cli::accounts::Repository::Many { accounts, chosen } = repository {
        return fleet::run(args, &dir, accounts, chosen, json);
    }
    let runtime = crate::cli::session::runtime()?;
    // The webhook's task and the clients are made inside the runtime.
    let _context = runtime.enter();
    let front = Arc::new(front::Front::new(&args, json)?);
    let config = args.api.clone().into_config()?;
    let mut config = api_config(config, args.api_share, BUCKET_PER_MINUTE);
    config.on_response = Some(front.response_hook());
    config.on_wait = Some(front.wait_hook());
    let mode = match args.policy {
        Policy::Observe => Mode::Observe(ReadClient::new(config)?),
        Policy::Apply => Mode::ApplyMerged(WriteClient::new(config)?),
        Policy::Heal => Mode::Heal(WriteClient::new(config)?),
    };
    // One controller per state file: held until the process ends.
    let _lock = match &args.state_file {
        Some(file) => Some(StateLock::acquire(file).map_err(|error| {
            CommandError::from_error(ErrorKind::User, error).with_hint(
                "stop the other controller first (one per state file; in Kubernetes, one replica with `strategy: Recreate`), or give this one a --state-file of its own",
            )
        })?),
        None => None,
    };
    let store = StateStore::new(args.state_file.clone(), dir.clone());
    let starting = words::starting(&args, &dir, &store, None)?;
    let converged = starting.converged;
    let settings = Settings {
        interval: args.interval,
        suspend_file: args.suspend_file.clone(),
        adopt_revision: starting.adopt,
        // Apply's switch check, never its post-apply wait (a report, not a gate).
        dns: args.dns.options(Duration::ZERO),
        ..Settings::new(dir)
    };
    let controller = Controller::new(mode, settings, store, converged);
    let end = runtime.block_on(front.run(controller, args.once, args.listen))?;
    match end {
        RunEnd::Stopped => Ok(Outcome::Success),
        RunEnd::Once(OnceOutcome::Converged) => Ok(Outcome::Success),
        RunEnd::Once(OnceOutcome::Left) => Ok(Outcome::ChangesPresent),
        RunEnd::Once(OnceOutcome::Failed) => Err(CommandError::new(
            ErrorKind::AlreadyReported,
            "the round failed",
        )),
    }
}
