//! `dnscron emulator`: serve the Hosting Customer API locally from a seed file.

use std::net::SocketAddr;
use std::path::PathBuf;

use crate::cli::error::{CommandError, CommandResult, ErrorKind, Outcome};
use crate::cli::write_stdout;
use dnscron_emulator::{self as emulator, Bursts, DnsLag, Seed};

#[derive(Debug, clap::Args)]
pub struct EmulatorArgs {
    /// Address to listen on (loopback only unless --allow-remote).
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// Seed YAML (tokens, sites, domains, zones, gaps, faults). Default: the built-in example
    /// account of examples/emulator-seed.yaml.
    #[arg(long, value_name = "FILE")]
    pub seed: Option<PathBuf>,
    /// Also answer DNS queries for the account's zones, authoritatively, over UDP and TCP on
    /// this address (loopback only unless --allow-remote), from the state the API changes.
    #[arg(long, value_name = "ADDR")]
    pub dns_listen: Option<SocketAddr>,
    /// Record writes show over DNS only after this many milliseconds, or `never` (a
    /// nameserver that stopped syncing). Default 0: at once, as the spec promises.
    #[arg(long, value_name = "MS|never", value_parser = DnsLag::parse)]
    pub dns_lag_ms: Option<DnsLag>,
    /// Record writes are left out of the answers to this many DNS questions after them (any
    /// name; with --dns-lag-ms too, a write waits for both). Default 0.
    #[arg(long, value_name = "N", value_parser = parse_questions)]
    pub dns_lag_queries: Option<u64>,
    /// Allow a non-loopback --listen address (the emulator has demo tokens and no TLS).
    #[arg(long)]
    pub allow_remote: bool,
    /// Delay every API request by this many milliseconds.
    #[arg(long, value_name = "MS")]
    pub latency_ms: Option<u64>,
    /// Share (0–1) of writes answered 502 upstream_error before anything changes.
    #[arg(long, value_name = "SHARE")]
    pub upstream_error_share: Option<f64>,
    /// Share (0–1) of writes that commit and then drop the connection without a response.
    #[arg(long, value_name = "SHARE")]
    pub drop_after_commit_share: Option<f64>,
    /// Forced 429 bursts: of every EVERY requests, the last LENGTH are refused (e.g. 20:3).
    #[arg(long, value_name = "EVERY:LENGTH")]
    pub rate_limit_bursts: Option<String>,
    /// Seed of the fault generator (same seed + same requests = same faults).
    #[arg(long, value_name = "N")]
    pub fault_seed: Option<u64>,
    /// Rate-limit refill rate (requests per minute per user).
    #[arg(long, value_name = "N")]
    pub rate_limit_per_minute: Option<u32>,
    /// Rate-limit bucket size.
    #[arg(long, value_name = "N")]
    pub rate_limit_burst: Option<u32>,
    /// Turn the rate limit off.
    #[arg(long)]
    pub no_rate_limit: bool,
}

pub(crate) fn run(args: EmulatorArgs) -> CommandResult {
    for (flag, addr) in [
        ("--listen", Some(args.listen)),
        ("--dns-listen", args.dns_listen),
    ] {
        if let Some(addr) = addr
            && !addr.ip().is_loopback()
            && !args.allow_remote
        {
            return Err(CommandError::user(format!(
                "refusing to listen on {addr}: not a loopback address"
            ))
            .with_hint(format!(
                "use {flag} 127.0.0.1:PORT, or add --allow-remote if you really mean it"
            )));
        }
    }
    let seed = load_seed(&args)?;
    let tokens: Vec<String> = seed
        .tokens
        .iter()
        .map(|t| {
            let scopes: Vec<&str> = t.scopes.iter().map(|s| s.as_str()).collect();
            format!(
                "  {}  (user {}, scopes {})",
                t.token,
                t.user,
                scopes.join(",")
            )
        })
        .collect();
    let runtime = tokio::runtime::Runtime::new().map_err(|e| {
        CommandError::quoting(ErrorKind::Internal, "cannot start the async runtime", e)
    })?;
    runtime.block_on(async move {
        let emu = emulator::start_with_dns(seed, args.listen, args.dns_listen)
            .await
            .map_err(|e| CommandError::from_error(ErrorKind::User, e))?;
        // Listen for Ctrl-C before saying so: a SIGINT between the banner and the first poll
        // of `ctrl_c()` would otherwise end the process without the counters.
        let stop = ctrl_c_listener();
        let dns = emu
            .dns_addr()
            .map(|addr| format!("dns:      {addr} (UDP and TCP)\n"))
            .unwrap_or_default();
        write_stdout(&format!(
            "emulator listening\nbase URL: {}\nadmin:    {}/counters, {}/state\n{dns}tokens:\n{}\npress Ctrl-C to stop\n",
            emu.base_url(),
            emu.admin_url(),
            emu.admin_url(),
            tokens.join("\n")
        ))?;
        stop.await;
        let counters = emu.shutdown().await;
        write_stdout(&format!("\nstopped; counters:\n{counters}\n"))?;
        Ok(Outcome::Success)
    })
}

/// A future that ends at Ctrl-C, its handler in place once this returns.
#[cfg(unix)]
fn ctrl_c_listener() -> impl std::future::Future<Output = ()> {
    let signal = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt());
    async move {
        match signal {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
}

#[cfg(not(unix))]
fn ctrl_c_listener() -> impl std::future::Future<Output = ()> {
    async {
        let _ = tokio::signal::ctrl_c().await;
    }
}

fn load_seed(args: &EmulatorArgs) -> Result<Seed, CommandError> {
    let mut seed = match &args.seed {
        Some(path) => Seed::from_path(path).map_err(|e| {
            CommandError::from_error(ErrorKind::User, e)
                .with_hint("see docs/emulator.md for the seed format")
        })?,
        None => Seed::example(),
    };
    let faults = &mut seed.faults;
    if let Some(ms) = args.latency_ms {
        faults.latency_ms = ms;
    }
    if let Some(s) = args.upstream_error_share {
        faults.upstream_error_share = s;
    }
    if let Some(s) = args.drop_after_commit_share {
        faults.drop_after_commit_share = s;
    }
    if let Some(lag) = args.dns_lag_ms {
        faults.dns_lag_ms = lag;
    }
    if let Some(n) = args.dns_lag_queries {
        faults.dns_lag_queries = n;
    }
    if let Some(s) = args.fault_seed {
        faults.seed = s;
    }
    if let Some(spec) = &args.rate_limit_bursts {
        faults.rate_limit_bursts = Some(parse_bursts(spec)?);
    }
    if let Some(n) = args.rate_limit_per_minute {
        seed.rate_limit.per_minute = n;
    }
    if let Some(n) = args.rate_limit_burst {
        seed.rate_limit.burst = n;
    }
    if args.no_rate_limit {
        seed.rate_limit.enabled = false;
    }
    seed.validate()
        .map_err(|m| CommandError::user(format!("invalid emulator settings: {m}")))?;
    Ok(seed)
}

fn parse_questions(text: &str) -> Result<u64, String> {
    text.trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a number of DNS questions: give 0 or more, e.g. 2"))
}

fn parse_bursts(spec: &str) -> Result<Bursts, CommandError> {
    let parsed = spec
        .split_once(':')
        .and_then(|(e, l)| Some((e.trim().parse::<u32>().ok()?, l.trim().parse::<u32>().ok()?)));
    match parsed {
        Some((every, length)) if length > 0 && length < every => Ok(Bursts {
            every,
            length,
            retry_after: 1,
        }),
        _ => Err(CommandError::user(format!(
            "--rate-limit-bursts `{spec}`: expected EVERY:LENGTH with 0 < LENGTH < EVERY, e.g. 20:3"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::cli::{Cli, Command};

    fn seed_of(flags: &[&str]) -> Result<Seed, String> {
        let argv = ["dnscron", "emulator"].iter().chain(flags);
        let parsed = Cli::try_parse_from(argv)
            .map_err(|e| e.to_string().lines().next().unwrap_or_default().to_string())?;
        match parsed.command {
            Command::Emulator(args) => load_seed(&args).map_err(|e| e.to_string()),
            Command::Validate(_)
            | Command::Fmt(_)
            | Command::Plan(_)
            | Command::Show(_)
            | Command::Apply(_)
            | Command::Check(_)
            | Command::Import(_)
            | Command::Export(_)
            | Command::Adopt(_)
            | Command::Baseline(_)
            | Command::Doctor(_)
            | Command::Controller(_)
            | Command::Demo(_)
            | Command::Schema(_)
            | Command::Completions(_)
            | Command::Man => Err("not the emulator command".into()),
        }
    }

    #[test]
    fn the_dns_lag_flags_override_the_seed_and_refuse_what_is_not_a_count() {
        let faults = seed_of(&["--dns-lag-queries", "2", "--dns-lag-ms", "never"])
            .map(|s| (s.faults.dns_lag_queries, s.faults.dns_lag_ms));
        assert_eq!(faults, Ok((2, DnsLag::Never)));
        let untouched = seed_of(&[]).map(|s| (s.faults.dns_lag_queries, s.faults.dns_lag_ms));
        assert_eq!(untouched, Ok((0, DnsLag::None)));
        assert_eq!(
            seed_of(&["--dns-lag-queries", "never"]).err().as_deref(),
            Some(
                "error: invalid value 'never' for '--dns-lag-queries <N>': `never` is not a number of DNS questions: give 0 or more, e.g. 2"
            )
        );
    }
}
