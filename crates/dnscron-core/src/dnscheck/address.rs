//! Where a nameserver host name is reached: `--nameserver-address HOST=IP[:PORT]` first, then
//! (unless turned off) the system resolver on port 53.

use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::str::FromStr;
use std::time::Duration;

use crate::dns::fold_host;

/// The port nameservers listen on.
pub(crate) const DNS_PORT: u16 = 53;

/// The longest wait for the system resolver's look-up of one host (getaddrinfo has its own
/// timeouts, but they multiply with resolv.conf's servers and attempts).
const LOOKUP_TIMEOUT: Duration = Duration::from_secs(10);

/// One `HOST=IP[:PORT]` mapping. `host` is folded (lower case, no final dot).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameserverAddress {
    pub host: String,
    pub addr: SocketAddr,
}

/// A `--nameserver-address` value that is not `HOST=IP[:PORT]`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{value}` is not a nameserver address: {reason}; expected HOST=IP or HOST=IP:PORT \
     (e.g. ns1.example.net=192.0.2.53, ns1.example.net=127.0.0.1:5353, ns1.example.net=[::1]:5353)"
)]
pub struct AddressParseError {
    pub value: String,
    pub reason: String,
}

impl FromStr for NameserverAddress {
    type Err = AddressParseError;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        let fail = |reason: &str| AddressParseError {
            value: value.to_string(),
            reason: reason.to_string(),
        };
        let (host, addr) = value.split_once('=').ok_or_else(|| fail("no `=`"))?;
        let host = fold_host(host);
        if host.is_empty() {
            return Err(fail("the host name before `=` is empty"));
        }
        let addr = addr.trim();
        let addr = match addr.parse::<SocketAddr>() {
            Ok(addr) => addr,
            Err(_) => addr
                .parse::<IpAddr>()
                .map(|ip| SocketAddr::new(ip, DNS_PORT))
                .map_err(|_| fail("after `=` comes no IP address (or IP:PORT)"))?,
        };
        Ok(NameserverAddress { host, addr })
    }
}

impl fmt::Display for NameserverAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.host, self.addr)
    }
}

/// A host name that could not be turned into an address.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ResolveError {
    /// No mapping for `host`, and the system resolver may not be asked.
    #[error("nameserver `{host}` has no address given and the system resolver is turned off")]
    NotMapped { host: String },
    #[error("the system resolver could not find nameserver `{host}`: {reason}")]
    Lookup { host: String, reason: String },
}

/// Turns nameserver host names into addresses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AddressBook {
    overrides: Vec<NameserverAddress>,
    no_system_resolver: bool,
}

impl AddressBook {
    pub fn new(overrides: Vec<NameserverAddress>) -> AddressBook {
        AddressBook {
            overrides,
            no_system_resolver: false,
        }
    }

    /// Only the mappings; an unmapped host is an error instead of a system lookup (tests,
    /// split horizon, hosts that must not query the network's resolver).
    pub fn without_system_resolver(mut self) -> AddressBook {
        self.no_system_resolver = true;
        self
    }

    pub fn system_resolver_allowed(&self) -> bool {
        !self.no_system_resolver
    }

    /// Every mapping for `host` (case and final dot ignored), in the order given.
    pub fn mapped(&self, host: &str) -> Vec<SocketAddr> {
        let host = fold_host(host);
        self.overrides
            .iter()
            .filter(|o| o.host == host)
            .map(|o| o.addr)
            .collect()
    }

    /// The addresses to ask for `host`: its mappings, else the system resolver's addresses
    /// on port 53. A host that is an IP address is itself.
    pub async fn resolve(&self, host: &str) -> Result<Vec<SocketAddr>, ResolveError> {
        let mapped = self.mapped(host);
        if !mapped.is_empty() {
            return Ok(mapped);
        }
        let folded = fold_host(host);
        if let Ok(ip) = folded.parse::<IpAddr>() {
            return Ok(vec![SocketAddr::new(ip, DNS_PORT)]);
        }
        if self.no_system_resolver {
            return Err(ResolveError::NotMapped { host: folded });
        }
        let lookup_error = |reason: String| ResolveError::Lookup {
            host: folded.clone(),
            reason,
        };
        let lookup = tokio::net::lookup_host((folded.as_str(), DNS_PORT));
        let found = tokio::time::timeout(LOOKUP_TIMEOUT, lookup)
            .await
            .map_err(|_| lookup_error(format!("no answer within {LOOKUP_TIMEOUT:?}")))?
            .map_err(|e| lookup_error(e.to_string()))?;
        let mut addrs: Vec<SocketAddr> = Vec::new();
        for addr in found {
            if !addrs.contains(&addr) {
                addrs.push(addr);
            }
        }
        if addrs.is_empty() {
            return Err(lookup_error("no address".into()));
        }
        Ok(addrs)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn accepted_forms_fold_the_host_and_default_the_port() {
        let parsed: NameserverAddress = "NS1.Example.NET.=127.0.0.1:5353".parse().unwrap();
        assert_eq!(parsed.to_string(), "ns1.example.net=127.0.0.1:5353");
        let parsed: NameserverAddress = "ns1.example.net=192.0.2.53".parse().unwrap();
        assert_eq!(parsed.to_string(), "ns1.example.net=192.0.2.53:53");
        let parsed: NameserverAddress = "ns1.example.net=[::1]:5353".parse().unwrap();
        assert_eq!(parsed.to_string(), "ns1.example.net=[::1]:5353");
        let parsed: NameserverAddress = "ns1.example.net=2001:db8::53".parse().unwrap();
        assert_eq!(parsed.to_string(), "ns1.example.net=[2001:db8::53]:53");
    }

    #[test]
    fn refused_forms_say_which_value_and_the_expected_form() {
        let err = "ns1.example.net".parse::<NameserverAddress>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "`ns1.example.net` is not a nameserver address: no `=`; expected HOST=IP or \
             HOST=IP:PORT (e.g. ns1.example.net=192.0.2.53, ns1.example.net=127.0.0.1:5353, \
             ns1.example.net=[::1]:5353)"
        );
        let err = "=127.0.0.1".parse::<NameserverAddress>().unwrap_err();
        assert_eq!(err.reason, "the host name before `=` is empty");
        let err = "ns1=localhost:53".parse::<NameserverAddress>().unwrap_err();
        assert_eq!(err.reason, "after `=` comes no IP address (or IP:PORT)");
        let err = "ns1=127.0.0.1:99999"
            .parse::<NameserverAddress>()
            .unwrap_err();
        assert_eq!(err.value, "ns1=127.0.0.1:99999");
    }

    #[tokio::test]
    async fn mappings_win_and_unmapped_hosts_fail_without_the_system_resolver() {
        let book = AddressBook::new(vec![
            "ns1.example.net=127.0.0.1:5353".parse().unwrap(),
            "ns1.example.net=127.0.0.2".parse().unwrap(),
        ])
        .without_system_resolver();
        assert_eq!(
            book.resolve("NS1.example.net.").await.unwrap(),
            vec![
                "127.0.0.1:5353".parse().unwrap(),
                "127.0.0.2:53".parse().unwrap()
            ]
        );
        assert_eq!(
            book.resolve("127.0.0.9").await.unwrap(),
            vec!["127.0.0.9:53".parse().unwrap()]
        );
        assert_eq!(
            book.resolve("ns2.example.net")
                .await
                .unwrap_err()
                .to_string(),
            "nameserver `ns2.example.net` has no address given and the system resolver is turned \
             off"
        );
    }
}
