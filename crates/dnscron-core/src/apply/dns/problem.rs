//! Why a nameserver is not live, or not ready, as data: the server's answer and what the check
//! wanted instead. The binary words it (server text inside is untrusted).

use std::net::SocketAddr;

use crate::dns::RecordType;
use crate::dnscheck::{Difference, Expected, Outcome, ResolveError};

/// One RRset asked about: its name as the files write it (`www`, `@`) and its type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RrsetKey {
    pub name: String,
    pub rtype: RecordType,
}

/// Why a nameserver is not live, or not ready.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// Its host name has no address.
    Unresolved(ResolveError),
    /// What one of its addresses answered; `at` names that address when the server has
    /// several (one address speaks for the server otherwise).
    Answered {
        at: Option<SocketAddr>,
        finding: Finding,
    },
    /// Findings past those a report keeps for one server: how many were left out.
    More { count: usize },
}

impl From<ResolveError> for Problem {
    fn from(error: ResolveError) -> Problem {
        Problem::Unresolved(error)
    }
}

/// What an answer shows that is not the data it should serve.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Finding {
    /// Asked about `rrset`, it answered an error code or could not be asked at all.
    Failed { rrset: RrsetKey, outcome: Outcome },
    /// It answered about `rrset` without the AA bit: it does not serve the zone itself.
    NoAuthority { rrset: RrsetKey },
    /// A written RRset it does not serve as written yet: it must hold `wanted` (with their TTL)
    /// and no longer hold `lingering`, the old values it still serves.
    NotLive {
        rrset: RrsetKey,
        served: Outcome,
        wanted: Vec<Expected>,
        lingering: Vec<String>,
    },
    /// An RRset it serves otherwise than the files declare it (`declared`).
    Differs {
        rrset: RrsetKey,
        served: Outcome,
        declared: Vec<Expected>,
    },
    /// Its answer to the SOA of `zone` shows it does not serve the zone.
    NotServing {
        zone: String,
        difference: Difference,
    },
}
