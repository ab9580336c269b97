//! Apply's DNS checks (docs/health.md, "After apply" and "Before a nameserver switch"): after
//! records were written, ask the zone's nameservers until they serve them (`live`); before a
//! domain is switched to custom nameservers, ask those whether they serve the zone (`ready`).
//! Both go through `dnscheck`, never through the API.

pub(super) mod expect;
pub(super) mod live;
pub(super) mod ready;

mod problem;

use std::collections::BTreeMap;
use std::time::Duration;

use crate::dnscheck::{AddressBook, QueryOptions};

pub use live::{DnsCheck, NameserverCheck, SkipReason, ZoneCheck};
pub use problem::{Finding, Problem, RrsetKey};
pub use ready::{Readiness, ServerReadiness, refusal};

/// How long the post-apply check waits for every nameserver by default.
pub(crate) const DEFAULT_WAIT: Duration = Duration::from_secs(10);

/// The first wait between two rounds of questions; each later one doubles, up to
/// [`MAX_POLL_WAIT`].
pub(crate) const FIRST_POLL_WAIT: Duration = Duration::from_millis(100);
pub(crate) const MAX_POLL_WAIT: Duration = Duration::from_secs(1);

/// What apply's DNS checks need.
#[derive(Clone, Debug)]
pub struct DnsOptions {
    /// Where nameserver host names are reached (`--nameserver-address`, system resolver).
    pub book: AddressBook,
    /// Deadline of the post-apply check (`--dns-wait`); zero turns it off.
    pub wait: Duration,
    /// Switch to custom nameservers without asking them first (`--allow-unready-nameservers`).
    pub allow_unready: bool,
    /// The service's own nameservers of each zone, as its record listing named them.
    pub service_nameservers: BTreeMap<String, Vec<String>>,
    pub query: QueryOptions,
}

impl DnsOptions {
    pub fn new(book: AddressBook) -> DnsOptions {
        DnsOptions {
            book,
            wait: DEFAULT_WAIT,
            allow_unready: false,
            service_nameservers: BTreeMap::new(),
            query: QueryOptions::default(),
        }
    }

    /// The service nameservers of every zone of `live` (the snapshot a plan was made from).
    pub fn with_nameservers_of(mut self, live: &crate::plan::snapshot::LiveSnapshot) -> Self {
        for zone in &live.zones {
            self.service_nameservers
                .insert(zone.zone.to_string(), zone.service_nameservers.clone());
        }
        self
    }
}
