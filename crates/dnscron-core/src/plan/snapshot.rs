//! The live state that a plan is made from: only what the desired files name.

use std::future::Future;
use std::sync::Arc;

use serde::Serialize;
use tokio::sync::Semaphore;
use tokio::task::JoinHandle;

use crate::config::model::{Desired, Location};
use crate::dns::ZoneName;
use dnscron_api::{ApiError, ReadClient, RecordListing, RecordRows, payload};

use super::progress::ReadProgressHook;

pub(crate) use super::declared::declared;

/// Reads in flight at once; the pacer still decides when each may go.
pub const READ_CONCURRENCY: usize = 8;

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LiveSnapshot {
    pub zones: Vec<LiveZone>,
    pub domains: Vec<LiveDomain>,
    pub sites: Vec<LiveSite>,
}

impl LiveSnapshot {
    /// The service's own nameservers for `zone`, as its record listing named them (none when
    /// the zone was not read).
    pub(crate) fn service_nameservers_of(&self, zone: &ZoneName) -> Vec<String> {
        self.zones
            .iter()
            .find(|z| z.zone == *zone)
            .map(|z| z.service_nameservers.clone())
            .unwrap_or_default()
    }
}

/// All pages of a zone's records, as the server returned them (not yet normalized: the
/// diff canonicalizes both sides with `dns::`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LiveZone {
    pub zone: ZoneName,
    pub records: RecordRows,
    /// The service's own nameservers, as returned with the record listing.
    pub service_nameservers: Vec<String>,
}

/// Registrar state of a domain whose zone file has a `nameservers` key.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LiveDomain {
    pub domain: ZoneName,
    pub registrar: payload::Registrar,
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
    pub cron: Option<Vec<payload::CronJob>>,
}

#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    #[error(
        "{location}: the account has no DNS zone `{zone}` (GET /dns/{zone}/records answered 404)"
    )]
    MissingZone { zone: ZoneName, location: Location },
    #[error(
        "{location}: `nameservers` is set but the account has no registered domain `{domain}` \
         (GET /domains/{domain}/registrar answered 404)"
    )]
    MissingDomain {
        domain: ZoneName,
        location: Location,
    },
    #[error("{location}: the account has no site `{slug}` (it is not in GET /sites)")]
    MissingSite { slug: String, location: Location },
    #[error("{location}: reading {what} failed: {source}")]
    Api {
        what: String,
        location: Location,
        #[source]
        source: ApiError,
    },
    /// A listing read for the account as a whole, which no declaration asked for.
    #[error("reading {what} failed: {source}")]
    Listing {
        what: String,
        #[source]
        source: ApiError,
    },
    #[error("reading the live state failed inside dnscron: {0}")]
    Internal(String),
}

impl SnapshotError {
    /// The declaration the failed read was for, so `--format github` can annotate that file.
    pub fn location(&self) -> Option<&Location> {
        match self {
            SnapshotError::MissingZone { location, .. }
            | SnapshotError::MissingDomain { location, .. }
            | SnapshotError::MissingSite { location, .. }
            | SnapshotError::Api { location, .. } => Some(location),
            SnapshotError::Listing { .. } | SnapshotError::Internal(_) => None,
        }
    }
}

/// A spawned read, aborted if the snapshot gives up before awaiting it.
pub(super) struct Task<T>(JoinHandle<T>);

impl<T> Drop for Task<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl<T> Task<T> {
    pub(super) async fn join(mut self) -> Result<T, SnapshotError> {
        (&mut self.0)
            .await
            .map_err(|e| SnapshotError::Internal(e.to_string()))
    }
}

/// Where a stage's reads run: at most [`READ_CONCURRENCY`] at once, each counted in the
/// progress when one is asked for.
pub(super) struct Slots {
    limit: Arc<Semaphore>,
    progress: Option<ReadProgressHook>,
}

impl Slots {
    pub(super) fn new(progress: Option<&ReadProgressHook>) -> Slots {
        Slots {
            limit: Arc::new(Semaphore::new(READ_CONCURRENCY)),
            progress: progress.cloned(),
        }
    }
}

pub(super) fn spawn<T, F>(slots: &Slots, read: F) -> Task<Result<T, ApiError>>
where
    T: Send + 'static,
    F: Future<Output = Result<T, ApiError>> + Send + 'static,
{
    let limit = Arc::clone(&slots.limit);
    let progress = slots.progress.clone();
    if let Some(progress) = &progress {
        progress.0.queued(1);
    }
    Task(tokio::spawn(async move {
        // The semaphore is never closed, so acquiring only fails if it were.
        let _slot = limit.acquire_owned().await;
        let result = read.await;
        if let Some(progress) = &progress {
            progress.0.done();
        }
        result
    }))
}

/// Reads exactly what `desired` names: every page of each zone's records, the registrar state
/// of zones with `nameservers`, one paged `GET /sites` when any site is declared, and the cron
/// jobs of sites with `cron`. Results keep file order.
pub async fn fetch(client: &ReadClient, desired: &Desired) -> Result<LiveSnapshot, SnapshotError> {
    fetch_counted(client, desired, None).await
}

/// [`fetch`], each read counted in `progress`.
pub(crate) async fn fetch_counted(
    client: &ReadClient,
    desired: &Desired,
    progress: Option<&ReadProgressHook>,
) -> Result<LiveSnapshot, SnapshotError> {
    fetch_listing_sites(client, desired, false, progress)
        .await
        .map(|(live, _)| live)
}

/// [`fetch_counted`], reading `GET /sites` also when no site is declared if `all_sites`, and
/// returning that listing then: the account as a whole (`plan::account`) reads it once with the
/// snapshot.
pub(super) async fn fetch_listing_sites(
    client: &ReadClient,
    desired: &Desired,
    all_sites: bool,
    progress: Option<&ReadProgressHook>,
) -> Result<(LiveSnapshot, Option<Vec<payload::Site>>), SnapshotError> {
    let limit = Slots::new(progress);
    let zone_reads: Vec<_> = desired
        .zones
        .iter()
        .map(|z| {
            let (c, zone) = (client.clone(), z.zone.to_string());
            spawn(&limit, async move { c.list_records(&zone).await })
        })
        .collect();
    let registrar_reads: Vec<_> = desired
        .zones
        .iter()
        .filter(|z| z.nameservers.is_some())
        .map(|z| {
            let (c, zone) = (client.clone(), z.zone.to_string());
            (
                z,
                spawn(&limit, async move { c.get_registrar(&zone).await }),
            )
        })
        .collect();
    let sites_read = (all_sites || !desired.sites.is_empty()).then(|| {
        let c = client.clone();
        spawn(&limit, async move { c.list_sites().await })
    });
    let cron_reads: Vec<_> = desired
        .sites
        .iter()
        .map(|s| {
            s.cron.as_ref().map(|_| {
                let (c, slug) = (client.clone(), s.slug.clone());
                spawn(&limit, async move { c.list_cron(&slug).await })
            })
        })
        .collect();

    let mut snapshot = LiveSnapshot::default();
    for (spec, read) in desired.zones.iter().zip(zone_reads) {
        let listing: RecordListing = read.join().await?.map_err(|e| {
            if e.is_not_found() {
                SnapshotError::MissingZone {
                    zone: spec.zone.clone(),
                    location: spec.location.clone(),
                }
            } else {
                api_error(
                    format!("the records of zone {}", spec.zone),
                    &spec.location,
                    e,
                )
            }
        })?;
        let mut records = listing.records;
        // Pages were appended with the buffers' doubling; the slack (up to a third of a large
        // zone's rows) would stay allocated for the whole plan.
        records.shrink_to_fit();
        snapshot.zones.push(LiveZone {
            zone: spec.zone.clone(),
            records,
            service_nameservers: listing.nameservers,
        });
    }
    for (spec, read) in registrar_reads {
        let location = spec
            .nameservers
            .as_ref()
            .map_or(&spec.location, |n| &n.location);
        let registrar = read.join().await?.map_err(|e| {
            if e.is_not_found() {
                SnapshotError::MissingDomain {
                    domain: spec.zone.clone(),
                    location: location.clone(),
                }
            } else {
                api_error(format!("the registrar state of {}", spec.zone), location, e)
            }
        })?;
        let service_nameservers = snapshot.service_nameservers_of(&spec.zone);
        snapshot.domains.push(LiveDomain {
            domain: spec.zone.clone(),
            registrar,
            service_nameservers,
        });
    }
    let what = "the site list (GET /sites)";
    let listed = match (sites_read, desired.sites.first()) {
        (Some(read), Some(first)) => read
            .join()
            .await?
            .map_err(|e| api_error(what.into(), &first.location, e))?,
        (Some(read), None) => read
            .join()
            .await?
            .map_err(|source| SnapshotError::Listing {
                what: what.into(),
                source,
            })?,
        (None, _) => Vec::new(),
    };
    for (spec, read) in desired.sites.iter().zip(cron_reads) {
        let missing = || SnapshotError::MissingSite {
            slug: spec.slug.clone(),
            location: spec.location.clone(),
        };
        let site = listed
            .iter()
            .find(|s| s.slug == spec.slug)
            .ok_or_else(missing)?;
        let cron = match read {
            None => None,
            Some(read) => Some(read.join().await?.map_err(|e| {
                if e.is_not_found() {
                    missing()
                } else {
                    api_error(
                        format!("the cron jobs of site {}", spec.slug),
                        &spec.location,
                        e,
                    )
                }
            })?),
        };
        snapshot.sites.push(LiveSite {
            slug: spec.slug.clone(),
            state: site.state.clone(),
            cron,
        });
    }
    Ok((snapshot, all_sites.then_some(listed)))
}

pub(super) fn api_error(what: String, location: &Location, source: ApiError) -> SnapshotError {
    SnapshotError::Api {
        what,
        location: location.clone(),
        source,
    }
}
