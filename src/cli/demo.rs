//! `dnscron demo`: the whole loop against an in-process emulator of the example account —
//! plan the example files, apply the plan, plan again and find nothing left.

use std::net::SocketAddr;
use std::path::PathBuf;

use crate::api::{ApiConfig, Token, WriteClient};
use crate::apply::{self, ApplyOptions, Silent, report};
use crate::cli::apply::ending;
use crate::cli::error::{CommandError, CommandResult, ErrorKind, Outcome};
use crate::cli::logging::use_color_on_stdout;
use crate::cli::write_stdout;
use crate::cli::{runtime, session};
use crate::emulator::{self, Seed};
use crate::plan::render;

/// The example seed's token with every scope.
const DEMO_TOKEN: &str = "demo-token";

#[derive(Debug, clap::Args)]
pub struct DemoArgs {
    /// The example desired-state files (zones and sites; files or directories).
    #[arg(long, value_name = "DIR", num_args = 1.., default_values = ["examples/dns"])]
    pub files: Vec<PathBuf>,
}

pub fn run(args: DemoArgs) -> CommandResult {
    let desired = session::load_desired(&args.files)?;
    runtime::block_on(async move {
        let addr = SocketAddr::from(([127, 0, 0, 1], 0));
        let emu = emulator::start(Seed::example(), addr)
            .await
            .map_err(|e| CommandError::from_error(ErrorKind::Internal, e))?;
        let token =
            Token::new(DEMO_TOKEN).map_err(|e| CommandError::from_error(ErrorKind::Internal, e))?;
        let config = ApiConfig::new(&emu.base_url(), token)?;
        let client = WriteClient::new(config)?;
        let color = use_color_on_stdout();
        write_stdout(&format!(
            "dnscron demo: the example account served by an in-process emulator at {}\n\n== 1. dnscron plan {}\n\n",
            emu.base_url(),
            shown_paths(&args.files)
        ))?;
        let plan = session::plan(client.read(), &desired, false).await?;
        write_stdout(&render::text(&plan, color))?;

        write_stdout("\n== 2. dnscron apply --yes\n\n")?;
        let apply_opts = ApplyOptions::new(&plan, &Silent);
        let outcome = apply::apply(&client, &plan, &apply_opts).await;
        write_stdout(&report::text(&outcome))?;

        write_stdout("\n== 3. dnscron plan (again)\n\n")?;
        let again = session::plan(client.read(), &desired, false).await?;
        write_stdout(&render::text(&again, color))?;
        emu.shutdown().await;
        if matches!(ending(&outcome.result), Ok(Outcome::Success)) && again.is_empty() {
            Ok(Outcome::Success)
        } else {
            Err(CommandError::new(
                ErrorKind::Internal,
                "the demo did not converge; please report this",
            ))
        }
    })?
}

fn shown_paths(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(" ")
}
