//! One question to the resolver about a name outside what the files show: its TXT texts (an
//! include), its addresses (`a`) or its MX hosts (`mx`).

use crate::dns::{RecordType, ZoneName};
use crate::dnscheck::{Outcome, QueryType, Question, ask};

use super::super::MailDns;

/// What the resolver said about one type at one name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Answered {
    /// The values of that type, in the canonical form the files use.
    Values(Vec<String>),
    /// No such name, or nothing of that type there: a void lookup (RFC 7208 §4.6.4).
    Void,
    /// No usable answer (timeout, REFUSED, SERVFAIL, …), in words with server text escaped.
    Failed(String),
}

pub(super) async fn resolve(dns: &MailDns, host: &str, rtype: RecordType) -> Answered {
    let Ok(zone) = ZoneName::parse(host) else {
        return Answered::Failed("not a name DNS can look up".into());
    };
    let question = Question::new(zone, "@", QueryType::Record(rtype));
    let answer = ask(dns.resolver, &question, &dns.query).await;
    match &answer.outcome {
        Outcome::Records { .. } => {
            let values: Vec<String> = answer
                .outcome
                .values_of(rtype.as_str())
                .into_iter()
                .map(|s| s.value.clone())
                .collect();
            if values.is_empty() {
                Answered::Void
            } else {
                Answered::Values(values)
            }
        }
        Outcome::NoData { .. } | Outcome::NxDomain { .. } => Answered::Void,
        other @ (Outcome::Rcode(_)
        | Outcome::Timeout
        | Outcome::Network(_)
        | Outcome::Malformed(_)) => Answered::Failed(other.to_string()),
    }
}
