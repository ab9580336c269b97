//! Finding a zone's nameservers without the API: ask a recursive resolver for the zone's NS
//! RRset. The resolver is `--resolver`, else the `nameserver` lines of /etc/resolv.conf.
//!
//! The NS query goes through [`ask`] like every other: resolv.conf's `nameserver` lines are
//! all dnscron needs from the system configuration, so no resolver crate is pulled in.

use std::net::{IpAddr, SocketAddr};
use std::path::Path;

use super::address::DNS_PORT;
use super::answer::{Answer, Outcome, QueryType, Question};
use super::transport::{QueryOptions, ask};
use crate::dns::{RecordType, ZoneName};
use dnscron_api::untrusted::Untrusted;

/// The system's resolver configuration.
pub const RESOLV_CONF: &str = "/etc/resolv.conf";

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DiscoverError {
    /// The system's resolver configuration names none (`why`).
    #[error("no resolver to ask for the nameservers of {zone}: {why}")]
    NoResolver { zone: String, why: String },
    /// No resolver was given and the system resolver may not be asked.
    #[error("no resolver given and the system resolver is turned off")]
    SystemResolverOff { zone: String },
    /// Every resolver asked answered without NS records (`answers` says what each said).
    #[error("no resolver could say which nameservers serve {zone}: {answers}")]
    NoAnswer { zone: String, answers: String },
}

/// `--resolver` value: `IP` (port 53) or `IP:PORT`.
pub fn parse_resolver(value: &str) -> Result<SocketAddr, String> {
    let value = value.trim();
    value
        .parse::<SocketAddr>()
        .or_else(|_| {
            value
                .parse::<IpAddr>()
                .map(|ip| SocketAddr::new(ip, DNS_PORT))
        })
        .map_err(|_| {
            format!(
                "`{value}` is not a resolver address; expected IP or IP:PORT (e.g. 192.0.2.53, \
                 127.0.0.1:5353, [::1]:5353)"
            )
        })
}

/// The `nameserver` addresses of a resolv.conf text, in order (port 53). Lines that don't
/// parse (an IPv6 address with a `%zone`, garbage) are skipped.
pub fn parse_resolv_conf(text: &str) -> Vec<SocketAddr> {
    text.lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            (words.next() == Some("nameserver")).then(|| words.next())?
        })
        .filter_map(|ip| ip.parse::<IpAddr>().ok())
        .map(|ip| SocketAddr::new(ip, DNS_PORT))
        .collect()
}

/// The resolvers of `path` (normally [`RESOLV_CONF`]).
pub(crate) fn system_resolvers(
    path: &Path,
    zone: &ZoneName,
) -> Result<Vec<SocketAddr>, DiscoverError> {
    let no_resolver = |why: String| DiscoverError::NoResolver {
        zone: zone.as_str().to_string(),
        why,
    };
    let text = std::fs::read_to_string(path)
        .map_err(|e| no_resolver(format!("can't read {}: {e}", path.display())))?;
    let found = parse_resolv_conf(&text);
    if found.is_empty() {
        return Err(no_resolver(format!(
            "{} lists no `nameserver`",
            path.display()
        )));
    }
    Ok(found)
}

/// The zone's nameserver host names (folded, sorted), from the first resolver that answers
/// with NS records; the answers spent on the way are returned too (for the query count).
pub(crate) async fn zone_nameservers(
    zone: &ZoneName,
    resolvers: &[SocketAddr],
    options: &QueryOptions,
) -> (Result<Vec<String>, DiscoverError>, Vec<Answer>) {
    let question = Question::new(zone.clone(), "@", QueryType::Record(RecordType::NS));
    let options = QueryOptions {
        recursion_desired: true,
        ..options.clone()
    };
    let mut answers = Vec::new();
    for resolver in resolvers {
        let answer = ask(*resolver, &question, &options).await;
        let mut hosts: Vec<String> = answer
            .outcome
            .values_of("NS")
            .iter()
            .map(|r| crate::dns::fold_host(&r.value))
            .collect();
        answers.push(answer);
        if !hosts.is_empty() {
            hosts.sort();
            hosts.dedup();
            return (Ok(hosts), answers);
        }
    }
    let said: Vec<String> = answers
        .iter()
        .map(|a| format!("{} answered {}", a.server, said(&a.outcome)))
        .collect();
    let error = DiscoverError::NoAnswer {
        zone: zone.as_str().to_string(),
        answers: if said.is_empty() {
            "no resolver given".into()
        } else {
            said.join(", ")
        },
    };
    (Err(error), answers)
}

fn said(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Records { .. } => "no NS records".into(),
        other @ (Outcome::NoData { .. }
        | Outcome::NxDomain { .. }
        | Outcome::Rcode(_)
        | Outcome::Timeout
        | Outcome::Network(_)
        | Outcome::Malformed(_)) => Untrusted(&other.to_string()).to_string(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn resolv_conf_nameserver_lines_in_order() {
        let text = "# comment\nsearch example.com\nnameserver 192.0.2.53\n\
                    nameserver   2001:db8::53 \nnameserver fe80::1%eth0\nnameserver\n\
                    options ndots:2\n nameserver 127.0.0.53\n";
        assert_eq!(
            parse_resolv_conf(text),
            vec![
                "192.0.2.53:53".parse().unwrap(),
                "[2001:db8::53]:53".parse().unwrap(),
                "127.0.0.53:53".parse().unwrap(),
            ]
        );
        assert_eq!(parse_resolv_conf("domain example.com\n"), vec![]);
    }

    #[test]
    fn resolver_values() {
        assert_eq!(
            parse_resolver("127.0.0.1:5353"),
            Ok("127.0.0.1:5353".parse().unwrap())
        );
        assert_eq!(parse_resolver("::1"), Ok("[::1]:53".parse().unwrap()));
        assert_eq!(
            parse_resolver("dns.example"),
            Err(
                "`dns.example` is not a resolver address; expected IP or IP:PORT (e.g. \
                 192.0.2.53, 127.0.0.1:5353, [::1]:5353)"
                    .into()
            )
        );
    }

    #[test]
    fn a_missing_resolv_conf_says_what_to_do() {
        let zone = ZoneName::parse("example.com").unwrap();
        let err = system_resolvers(Path::new("/nonexistent/resolv.conf"), &zone).unwrap_err();
        assert!(matches!(err, DiscoverError::NoResolver { .. }));
        assert!(err.to_string().starts_with(
            "no resolver to ask for the nameservers of example.com: can't read \
             /nonexistent/resolv.conf: "
        ));
    }
}
