//! The question asked and the typed answer: what one nameserver said, already canonical, so it
//! compares with the files the way the API diff does.

use std::fmt;
use std::net::SocketAddr;

use serde::Serialize;

use crate::dns::{RecordType, ZoneName};

/// What is asked: `SOA` (is the server authoritative for the zone?) or one record type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum QueryType {
    Soa,
    Record(RecordType),
}

impl fmt::Display for QueryType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueryType::Soa => f.write_str("SOA"),
            QueryType::Record(t) => write!(f, "{t}"),
        }
    }
}

/// One question: a name in a zone and a type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Question {
    pub zone: ZoneName,
    /// Relative, as the files write it: `@` for the apex, `www`, `_sip._tcp`.
    pub name: String,
    pub qtype: QueryType,
}

impl Question {
    pub(crate) fn new(zone: ZoneName, name: impl Into<String>, qtype: QueryType) -> Question {
        Question {
            zone,
            name: name.into(),
            qtype,
        }
    }

    /// The zone's SOA: the question every check starts with.
    pub(crate) fn soa(zone: ZoneName) -> Question {
        Question::new(zone, "@", QueryType::Soa)
    }

    /// The absolute name with its final dot (`www.example.com.`).
    pub(crate) fn fqdn(&self) -> String {
        match self.name.as_str() {
            "@" | "" => format!("{}.", self.zone.as_str()),
            name => format!("{name}.{}.", self.zone.as_str()),
        }
    }
}

impl fmt::Display for Question {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.fqdn(), self.qtype)
    }
}

/// How the answer came: UDP, or TCP (after a truncated UDP answer or a UDP network error).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Transport {
    Udp,
    Tcp,
}

/// One record a server serves at the asked name. `value` is canonical (`dns::RecordData`'s
/// form) for the nine types dnscron manages; other types keep hickory's presentation form.
/// Server text: print it only through `untrusted::escape`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Served {
    /// `A`, `CNAME`, … as the server sent it (`TYPE65` for unknown types).
    pub rtype: String,
    pub value: String,
    pub ttl: u32,
}

/// What a server said, or why it said nothing usable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// NOERROR with records owned by the asked name (of the asked type, or e.g. a CNAME).
    Records {
        authoritative: bool,
        records: Vec<Served>,
    },
    /// NOERROR, nothing of that type at that name (the name exists).
    NoData { authoritative: bool },
    /// The name does not exist.
    NxDomain { authoritative: bool },
    /// Any other response code: `REFUSED`, `SERVFAIL`, `NOTIMP`, `FORMERR`, `RCODE 23`.
    Rcode(String),
    /// No valid answer within the timeout, after every attempt.
    Timeout,
    /// The socket failed (connection refused, unreachable); the OS's message.
    Network(String),
    /// An answer came but can't be used (truncated over TCP, undecodable, too large); the
    /// reason, in our words.
    Malformed(String),
}

impl Outcome {
    /// The AA bit of an answer; `None` when there was no NOERROR/NXDOMAIN answer.
    pub fn authoritative(&self) -> Option<bool> {
        match self {
            Outcome::Records { authoritative, .. }
            | Outcome::NoData { authoritative }
            | Outcome::NxDomain { authoritative } => Some(*authoritative),
            Outcome::Rcode(_) | Outcome::Timeout | Outcome::Network(_) | Outcome::Malformed(_) => {
                None
            }
        }
    }

    /// The server could not be asked at all (as opposed to answering something unwelcome).
    pub fn unreachable(&self) -> bool {
        matches!(
            self,
            Outcome::Timeout | Outcome::Network(_) | Outcome::Malformed(_)
        )
    }

    /// The records in the answer (empty for every other outcome).
    pub fn records(&self) -> &[Served] {
        match self {
            Outcome::Records { records, .. } => records,
            Outcome::NoData { .. }
            | Outcome::NxDomain { .. }
            | Outcome::Rcode(_)
            | Outcome::Timeout
            | Outcome::Network(_)
            | Outcome::Malformed(_) => &[],
        }
    }

    /// The records of `rtype` in the answer (empty for every other outcome).
    pub fn values_of(&self, rtype: &str) -> Vec<&Served> {
        self.records()
            .iter()
            .filter(|r| r.rtype.eq_ignore_ascii_case(rtype))
            .collect()
    }
}

/// A short description for people (`NXDOMAIN`, `timeout`, `REFUSED`, `3 records`); server
/// text inside is escaped.
impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use dnscron_api::untrusted::Untrusted;
        match self {
            Outcome::Records { records, .. } => match records.len() {
                1 => f.write_str("1 record"),
                n => write!(f, "{n} records"),
            },
            Outcome::NoData { .. } => f.write_str("no records of that type (NODATA)"),
            Outcome::NxDomain { .. } => f.write_str("no such name (NXDOMAIN)"),
            Outcome::Rcode(code) => write!(f, "{code}"),
            Outcome::Timeout => f.write_str("no answer (timeout)"),
            Outcome::Network(message) => write!(f, "network error: {}", Untrusted(message)),
            Outcome::Malformed(reason) => write!(f, "unusable answer: {}", Untrusted(reason)),
        }
    }
}

/// One server's answer to one question.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Answer {
    pub server: SocketAddr,
    pub question: Question,
    pub outcome: Outcome,
    /// The transport of the last message sent.
    pub transport: Transport,
    /// Messages sent for this answer: UDP attempts plus the TCP query, if any.
    pub queries_sent: u32,
}
