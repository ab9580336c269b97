//! How dnscron reaches nameservers over DNS: shared by `check` and apply's DNS checks.
//! `--resolver` is `check`'s alone (it discovers nameservers; apply discovers none).

use std::time::Duration;

use dnscron_core::apply::dns::DnsOptions;
use dnscron_core::dnscheck::{AddressBook, NameserverAddress, QueryOptions};

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

impl DnsArgs {
    /// Apply's DNS checks: the post-apply check for at most `wait` (zero: off), the switch check
    /// unless `allow_unready`; `None` when both are off.
    pub fn apply_options(&self, wait: Duration, allow_unready: bool) -> Option<DnsOptions> {
        let off = wait.is_zero() && allow_unready;
        (!off).then(|| {
            let mut dns = DnsOptions::new(self.address_book());
            dns.query = self.query_options();
            dns.wait = wait;
            dns.allow_unready = allow_unready;
            dns
        })
    }

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
