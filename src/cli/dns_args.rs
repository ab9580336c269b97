//! How dnscron reaches nameservers over DNS: shared by `check` and apply's DNS checks.
//! `--resolver` is `check`'s (it discovers nameservers; apply discovers none), and `plan`'s and
//! `baseline`'s for SPF includes outside the account ([`ResolverArg`], which also takes `system`).

use std::net::SocketAddr;
use std::time::Duration;

use crate::cli::error::{CommandError, ErrorKind};
use dnscron_core::apply::dns::DnsOptions;
use dnscron_core::dnscheck::{
    AddressBook, NameserverAddress, QueryOptions, RESOLV_CONF, parse_resolv_conf, parse_resolver,
};

#[derive(Debug, Clone, clap::Args)]
pub struct DnsArgs {
    /// Reach nameserver HOST at IP (port 53) or IP:PORT instead of looking its name up
    /// (split horizon, tests). Repeatable; HOST is compared without regard to case or a final
    /// dot.
    #[arg(long = "nameserver-address", value_name = "HOST=IP[:PORT]")]
    pub nameserver_address: Vec<NameserverAddress>,
    /// Never ask the system's resolver: every nameserver needs --nameserver-address (and, for
    /// `check`, NS discovery needs --resolver).
    #[arg(
        long,
        env = "DNSCRON_NO_SYSTEM_RESOLVER",
        hide_env_values = true,
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    pub no_system_resolver: bool,
    /// Seconds to wait for one DNS answer (each of 2 UDP tries, then TCP), e.g. 0.5.
    #[arg(long, value_name = "SECONDS", default_value = "2", value_parser = parse_timeout)]
    pub dns_timeout: Duration,
}

/// Apply's DNS checks as `apply` and the controller take them: the switch check's opt-out and
/// how the nameservers are reached.
#[derive(Debug, Clone, clap::Args)]
pub struct ApplyDnsArgs {
    /// Switch a domain to custom nameservers without first asking them whether they serve
    /// the zone as the files declare it.
    #[arg(
        long,
        env = "DNSCRON_ALLOW_UNREADY_NAMESERVERS",
        hide_env_values = true,
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    pub allow_unready_nameservers: bool,
    #[command(flatten)]
    pub dns: DnsArgs,
}

impl ApplyDnsArgs {
    /// The post-apply check for at most `wait` (zero: off), the switch check unless
    /// `--allow-unready-nameservers`; `None` when both are off.
    pub fn options(&self, wait: Duration) -> Option<DnsOptions> {
        let allow_unready = self.allow_unready_nameservers;
        let off = wait.is_zero() && allow_unready;
        (!off).then(|| {
            let mut dns = DnsOptions::new(self.dns.address_book());
            dns.query = self.dns.query_options();
            dns.wait = wait;
            dns.allow_unready = allow_unready;
            dns
        })
    }
}

impl DnsArgs {
    pub fn address_book(&self) -> AddressBook {
        let book = AddressBook::new(self.nameserver_address.clone());
        if self.no_system_resolver {
            book.without_system_resolver()
        } else {
            book
        }
    }

    pub fn query_options(&self) -> QueryOptions {
        QueryOptions {
            timeout: self.dns_timeout,
            ..QueryOptions::default()
        }
    }
}

/// 0.01 to 60 seconds: shorter can't reach a real server, longer hides a dead one.
pub(crate) fn parse_timeout(value: &str) -> Result<Duration, String> {
    let seconds: f64 = value
        .trim()
        .parse()
        .map_err(|_| format!("`{value}` is not a number of seconds (e.g. 2 or 0.5)"))?;
    if !(0.01..=60.0).contains(&seconds) {
        return Err(format!(
            "{value} s is out of range: give 0.01 to 60 seconds"
        ));
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// Test-only: the address `--resolver system` means instead of /etc/resolv.conf's first
/// `nameserver` (the recipe tests point it at the emulator's DNS listener on loopback).
pub(crate) const SYSTEM_RESOLVER_ENV: &str = "DNSCRON_SYSTEM_RESOLVER";

/// `plan`'s and `baseline`'s `--resolver`: an address, or `system`, the resolver the machine
/// uses (a CI runner's), so a recipe needs no address of its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResolverArg {
    System,
    At(SocketAddr),
}

pub(crate) fn parse_resolver_arg(value: &str) -> Result<ResolverArg, String> {
    match value.trim() {
        "system" => Ok(ResolverArg::System),
        other => parse_resolver(other)
            .map(ResolverArg::At)
            .map_err(|e| format!("{e}, or `system` for the machine's own resolver")),
    }
}

impl ResolverArg {
    /// The address to ask: `system` is /etc/resolv.conf's first `nameserver` (port 53).
    pub fn address(&self) -> Result<SocketAddr, CommandError> {
        match self {
            ResolverArg::At(at) => Ok(*at),
            ResolverArg::System => system_resolver(),
        }
    }
}

fn system_resolver() -> Result<SocketAddr, CommandError> {
    if let Ok(at) = std::env::var(SYSTEM_RESOLVER_ENV) {
        return parse_resolver(&at).map_err(|e| {
            CommandError::user(format!("{SYSTEM_RESOLVER_ENV}: {e}"))
                .with_hint(format!("unset {SYSTEM_RESOLVER_ENV} (it is for tests)"))
        });
    }
    let off = std::env::var("DNSCRON_NO_SYSTEM_RESOLVER").is_ok_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "1" | "true" | "yes" | "on" | "y"
        )
    });
    if off {
        return Err(CommandError::user(
            "--resolver system: the system's resolver is turned off (DNSCRON_NO_SYSTEM_RESOLVER)",
        )
        .with_hint("pass the resolver's address instead: --resolver IP[:PORT]"));
    }
    let text = std::fs::read_to_string(RESOLV_CONF).map_err(|e| {
        CommandError::with_cause(
            ErrorKind::User,
            format!("--resolver system: cannot read {RESOLV_CONF}, where the machine's resolver is named"),
            e,
        )
        .with_hint("pass the resolver's address instead: --resolver IP[:PORT]")
    })?;
    parse_resolv_conf(&text).into_iter().next().ok_or_else(|| {
        CommandError::user(format!(
            "--resolver system: {RESOLV_CONF} names no `nameserver` dnscron can use"
        ))
        .with_hint("pass the resolver's address instead: --resolver IP[:PORT]")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_or_an_address() {
        assert_eq!(parse_resolver_arg("system"), Ok(ResolverArg::System));
        assert_eq!(
            parse_resolver_arg("127.0.0.1:5353"),
            Ok(ResolverArg::At("127.0.0.1:5353".parse().unwrap()))
        );
        let refused = parse_resolver_arg("ns1.example").unwrap_err();
        assert!(refused.contains("or `system`"), "{refused}");
    }
}
