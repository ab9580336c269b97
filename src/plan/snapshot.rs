//! The live state that a plan is made from: only what the desired files name.

use serde::Serialize;

use crate::api::wire;
use crate::dns::ZoneName;

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LiveSnapshot {
    pub zones: Vec<LiveZone>,
    pub domains: Vec<LiveDomain>,
    pub sites: Vec<LiveSite>,
}

/// All pages of a zone's records, as the server returned them (not yet normalized: the
/// diff canonicalizes both sides with `dns::`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LiveZone {
    pub zone: ZoneName,
    pub records: Vec<wire::Record>,
    /// The service's own nameservers, as returned with the record listing.
    pub service_nameservers: Vec<String>,
}

/// Registrar state of a domain whose zone file has a `nameservers` key.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LiveDomain {
    pub domain: ZoneName,
    pub registrar: wire::Registrar,
    /// The service's own nameservers (from the zone's record listing), to tell hosted from
    /// custom: the registrar state has no mode field.
    pub service_nameservers: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LiveSite {
    pub slug: String,
    /// From `GET /sites`; cron changes on a site that is not `active` are blocked.
    pub state: Option<String>,
    /// `None` when the site document has no `cron` key (cron not read at all).
    pub cron: Option<Vec<wire::CronJob>>,
}
