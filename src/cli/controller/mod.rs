//! `dnscron controller DIR` (docs/controller.md): flags, the client the policy allows, signals,
//! and the front end of the core's loop (`dnscron_core::controller`): its events become log
//! lines, metrics, `/status` and webhook messages. The core decides what every round does.

mod args;
mod front;
pub mod http;
pub mod manifests;
pub mod metrics;
mod observed;
mod status_json;
mod webhook;
mod words;

use std::sync::Arc;

use dnscron_core::api::{ReadClient, WriteClient};
use dnscron_core::controller::{
    Controller, Mode, OnceOutcome, RunEnd, Settings, StateStore, api_config,
};

pub use args::{ControllerArgs, ControllerCommand, Policy};

use crate::cli::error::{CommandError, CommandResult, ErrorKind, Outcome};

/// The spec's bucket: the share is of this.
const BUCKET_PER_MINUTE: u32 = 120;

pub fn run(args: ControllerArgs) -> CommandResult {
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
    let runtime = crate::cli::session::runtime()?;
    // The webhook's task and the clients are made inside the runtime.
    let _context = runtime.enter();
    let front = Arc::new(front::Front::new(&args)?);
    let config = args.api.clone().into_config()?;
    let mut config = api_config(config, args.api_share, BUCKET_PER_MINUTE);
    config.on_response = Some(front.response_hook());
    config.on_wait = Some(front.wait_hook());
    let mode = match args.policy {
        Policy::Observe => Mode::Observe(ReadClient::new(config)?),
        Policy::Apply => Mode::ApplyMerged(WriteClient::new(config)?),
        Policy::Heal => Mode::Heal(WriteClient::new(config)?),
    };
    let store = StateStore::new(args.state_file.clone(), dir.clone());
    let converged = words::starting(&args, &store);
    let settings = Settings {
        interval: args.interval,
        suspend_file: args.suspend_file.clone(),
        adopt_revision: args.adopt_revision.clone(),
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
