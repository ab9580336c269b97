//! `dnscron demo`: the whole loop against an in-process emulator of the example account —
//! plan the example files, apply the plan, plan again and find nothing left.

use std::net::SocketAddr;
use std::path::PathBuf;

use crate::cli::apply::ending;
use crate::cli::error::{CommandError, CommandResult, ErrorKind, Outcome};
use crate::cli::logging::use_color_on_stdout;
use crate::cli::validate::report_diagnostics;
use crate::cli::write_stdout;
use crate::cli::{runtime, session, stamp};
use crate::render::apply as report;
use crate::render::plan as render;
use dnscron_api::{ApiConfig, ReadClient, Token, WriteClient};
use dnscron_core::apply::Silent;
use dnscron_core::apply::dns::DnsOptions;
use dnscron_core::apply::workflow::{Binding, Execution, Workflow};
use dnscron_core::config::model::{Desired, NameserverMode, NameserversSpec};
use dnscron_core::dns::fold_host;
use dnscron_core::dnscheck::{AddressBook, NameserverAddress};
use dnscron_core::plan::snapshot::LiveSnapshot;
use dnscron_core::plan::{MakeOptions, Plan, make_plan};
use dnscron_emulator::{self as emulator, Seed};

/// The example seed's token with every scope.
const DEMO_TOKEN: &str = "demo-token";

/// The example files, compiled in so the demo runs from any folder; shown under the paths
/// they have in the repository.
const EXAMPLES: [(&str, &str); 7] = [
    (
        "examples/dns/zones/example.com.yaml",
        include_str!("../../examples/dns/zones/example.com.yaml"),
    ),
    (
        "examples/dns/zones/example.org.yaml",
        include_str!("../../examples/dns/zones/example.org.yaml"),
    ),
    (
        "examples/dns/zones/mail-set.yaml",
        include_str!("../../examples/dns/zones/mail-set.yaml"),
    ),
    (
        "examples/dns/zones/agency.example.yaml",
        include_str!("../../examples/dns/zones/agency.example.yaml"),
    ),
    (
        "examples/dns/sites/blog.yaml",
        include_str!("../../examples/dns/sites/blog.yaml"),
    ),
    (
        "examples/dns/sites/shop.yaml",
        include_str!("../../examples/dns/sites/shop.yaml"),
    ),
    (
        "examples/dns/unmanaged.yaml",
        include_str!("../../examples/dns/unmanaged.yaml"),
    ),
];

#[derive(Debug, clap::Args)]
pub struct DemoArgs {
    /// Desired-state files to plan instead of the built-in examples (files or directories).
    #[arg(long, value_name = "DIR", num_args = 1..)]
    pub files: Vec<PathBuf>,
}

pub(crate) fn run(args: DemoArgs) -> CommandResult {
    let desired = if args.files.is_empty() {
        let texts: Vec<(PathBuf, String)> = EXAMPLES
            .iter()
            .map(|(path, text)| (PathBuf::from(path), (*text).to_string()))
            .collect();
        dnscron_core::config::load_texts(&texts).map_err(|d| report_diagnostics(&d))?
    } else {
        session::load_desired(&args.files)?
    };
    runtime::block_on(async move {
        let addr = SocketAddr::from(([127, 0, 0, 1], 0));
        let dns_addr = SocketAddr::from(([127, 0, 0, 1], 0));
        let emu = emulator::start_with_dns(Seed::example(), addr, Some(dns_addr))
            .await
            .map_err(|e| CommandError::from_error(ErrorKind::Internal, e))?;
        let token =
            Token::new(DEMO_TOKEN).map_err(|e| CommandError::from_error(ErrorKind::Internal, e))?;
        let config = ApiConfig::new(&emu.base_url(), token)?;
        let client = WriteClient::new(config)?;
        let color = use_color_on_stdout();
        // The URL is left to the plan's own `Live account:` line, just below: said once.
        write_stdout(&format!(
            "dnscron demo: the example account, served by an in-process emulator\n\n== 1. dnscron plan {}\n\n",
            shown_paths(&args.files)
        ))?;
        let mut workflow = Workflow::files(&client, desired.clone(), Binding::Nothing);
        workflow.stamp = stamp::plan_stamp();
        let prepared = workflow.prepare().await?;
        write_stdout(&render::text(prepared.plan(), color))?;

        write_stdout("\n== 2. dnscron apply --yes\n\n")?;
        let live = prepared.live();
        let execution = Execution {
            dns: emu
                .dns_addr()
                .map(|at| DnsOptions::new(emulated(&desired, live, at))),
            ..Execution::new(&Silent)
        };
        let outcome = prepared.run(&execution).await?;
        write_stdout(&report::text(&outcome))?;

        write_stdout("\n== 3. dnscron plan (again)\n\n")?;
        let again = plan_again(client.read(), &desired).await?;
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

/// Every nameserver the checks may ask (the service's own, and the custom ones the files
/// switch to) answered by the emulator's DNS listener, which serves every zone of the account;
/// nothing is looked up outside.
fn emulated(desired: &Desired, live: &LiveSnapshot, at: SocketAddr) -> AddressBook {
    let service = live.zones.iter().flat_map(|z| z.service_nameservers.iter());
    let custom = desired.zones.iter().flat_map(|z| match &z.nameservers {
        Some(NameserversSpec {
            mode: NameserverMode::Custom(hosts),
            ..
        }) => hosts.as_slice(),
        _ => &[],
    });
    let addresses = service
        .chain(custom)
        .map(|host| NameserverAddress {
            host: fold_host(host),
            addr: at,
        })
        .collect();
    AddressBook::new(addresses).without_system_resolver()
}

fn shown_paths(paths: &[PathBuf]) -> String {
    if paths.is_empty() {
        return "examples/dns".into();
    }
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Step 3: plans exactly like `dnscron plan` (`plan::make_plan`, health findings included).
async fn plan_again(client: &ReadClient, desired: &Desired) -> Result<Plan, CommandError> {
    let opts = MakeOptions {
        allow_mass_changes: false,
        stamp: stamp::plan_stamp(),
        scope: None,
        health: true,
        mail_dns: None,
        progress: None,
        account: None,
        domains: None,
    };
    Ok(make_plan(client, desired, &opts).await?.plan)
}
