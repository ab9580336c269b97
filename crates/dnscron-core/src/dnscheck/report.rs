//! What `check` found, per zone and nameserver, and how it ends (in sync, differences, or a
//! check that could not run).

use std::net::SocketAddr;

use serde::{Serialize, Serializer};

use super::address::ResolveError;
use super::compare::Difference;
use super::discover::DiscoverError;
use crate::config::model::Location;

/// The check of every zone of the files.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CheckReport {
    pub zones: Vec<ZoneReport>,
    /// DNS messages sent, NS discovery included.
    pub queries: u64,
}

/// Where a zone's nameserver list came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "from", rename_all = "snake_case")]
pub enum NameserverSource {
    /// `nameservers: {mode: custom, hosts: [...]}` in the zone's file.
    Files,
    /// The NS RRset a resolver answered.
    Resolver { address: SocketAddr },
    /// Not found (see the zone's `error`).
    Unknown,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ZoneReport {
    pub zone: String,
    pub nameservers_from: NameserverSource,
    /// The nameservers could not be found: the check did not run for the zone.
    #[serde(serialize_with = "display", skip_serializing_if = "Option::is_none")]
    pub error: Option<DiscoverError>,
    /// One per nameserver address.
    pub nameservers: Vec<ServerReport>,
    /// RRsets the files declare (each asked of every serving nameserver, after the SOA).
    pub rrsets: usize,
}

impl ZoneReport {
    pub fn new(zone: &str) -> ZoneReport {
        ZoneReport {
            zone: zone.to_string(),
            nameservers_from: NameserverSource::Unknown,
            error: None,
            nameservers: Vec::new(),
            rrsets: 0,
        }
    }
}

/// How one nameserver address fared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    InSync,
    Differs,
    /// It could not be asked (no address, timeout, network error): the check did not run.
    Failed,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ServerReport {
    pub host: String,
    pub address: Option<SocketAddr>,
    pub status: Status,
    /// The host's address could not be found.
    #[serde(serialize_with = "display", skip_serializing_if = "Option::is_none")]
    pub error: Option<ResolveError>,
    pub differences: Vec<RrsetDifference>,
}

impl ServerReport {
    pub fn new(host: &str, address: Option<SocketAddr>) -> ServerReport {
        ServerReport {
            host: host.to_string(),
            address,
            status: Status::InSync,
            error: None,
            differences: Vec::new(),
        }
    }

    /// Sets `status` from the error and the differences.
    pub fn settle(&mut self) {
        self.status =
            if self.error.is_some() || self.differences.iter().any(|d| d.difference.is_failure()) {
                Status::Failed
            } else if self.differences.is_empty() {
                Status::InSync
            } else {
                Status::Differs
            };
    }
}

/// A difference in one RRset (`SOA` for the zone itself).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RrsetDifference {
    pub name: String,
    #[serde(rename = "type")]
    pub rtype: String,
    /// Where the files declare the RRset (its first record).
    #[serde(
        serialize_with = "location_text",
        skip_serializing_if = "Option::is_none"
    )]
    pub location: Option<Location>,
    #[serde(flatten)]
    pub difference: Difference,
}

impl RrsetDifference {
    pub fn new(
        name: &str,
        rtype: &str,
        location: Option<Location>,
        difference: Difference,
    ) -> RrsetDifference {
        RrsetDifference {
            name: name.to_string(),
            rtype: rtype.to_string(),
            location,
            difference,
        }
    }
}

fn location_text<S: Serializer>(location: &Option<Location>, s: S) -> Result<S::Ok, S::Error> {
    match location {
        Some(location) => s.serialize_str(&location.to_string()),
        None => s.serialize_none(),
    }
}

/// Counts for the summary line and the exit code.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Totals {
    pub zones: usize,
    pub zones_in_sync: usize,
    pub nameservers: usize,
    pub differences: usize,
    /// Nameservers that could not be asked and zones whose nameservers could not be found.
    pub failures: usize,
}

impl CheckReport {
    /// Sets every server's status; call once the report is complete.
    pub fn settle(&mut self) {
        for zone in &mut self.zones {
            zone.nameservers.iter_mut().for_each(ServerReport::settle);
        }
    }

    pub fn totals(&self) -> Totals {
        let mut t = Totals {
            zones: self.zones.len(),
            ..Totals::default()
        };
        for zone in &self.zones {
            let failed = zone.error.is_some() || zone.nameservers.is_empty();
            t.failures += usize::from(failed);
            t.nameservers += zone.nameservers.len();
            for server in &zone.nameservers {
                t.failures += usize::from(server.status == Status::Failed);
                t.differences += server
                    .differences
                    .iter()
                    .filter(|d| !d.difference.is_failure())
                    .count();
            }
            let in_sync = zone.nameservers.iter().all(|s| s.status == Status::InSync);
            t.zones_in_sync += usize::from(!failed && in_sync);
        }
        t
    }
}

/// An error as its message.
fn display<E: std::fmt::Display, S: Serializer>(
    error: &Option<E>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match error {
        Some(error) => serializer.collect_str(error),
        None => serializer.serialize_none(),
    }
}
