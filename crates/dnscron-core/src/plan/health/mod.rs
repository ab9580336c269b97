//! The health of each declared domain's registration (docs/health.md): what `GET /domains` and
//! `GET /domains/{domain}/registrar` say, turned into findings. Nothing here is ever written:
//! the API can't change these values, and plan only reads.
//!
//! Cost: one paged `GET /domains` per plan (when a zone is declared; a plan limited to a change
//! of a single zone sends one `GET /domains/{domain}` instead, which never costs more), plus one
//! `GET /domains/{domain}/registrar` per declared zone that the account registers and whose
//! file has no `nameservers` key (the snapshot already read the others).

pub(crate) mod mail;
mod registrar;
mod values;

#[cfg(test)]
mod tests;

use chrono::{DateTime, Utc};

use crate::config::model::{Desired, ZoneSpec};
use crate::dns::fold_host;
use dnscron_api::{ReadClient, payload};

use super::model::Finding;
use super::progress::ReadProgressHook;
use super::snapshot::{LiveSnapshot, Slots, SnapshotError, api_error, spawn};

/// What the account says about one declared zone's domain.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Registration {
    /// `None`: `GET /domains` does not list it (registered elsewhere, or DNS hosting only).
    pub listing: Option<payload::Domain>,
    pub registrar: Option<payload::Registrar>,
}

/// Up to this many declared zones, each domain is looked up (`GET /domains/{domain}`) rather
/// than the account's domains listed: the listing is at least one request and one more per
/// 100 domains, so a lookup for a single zone never costs more, while two lookups would cost
/// more than the listing of an account with at most 100 domains.
const LOOKUPS_MAX: usize = 1;

/// How much of the account's domains a plan reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DomainsRead {
    /// Those of the zones declared: the listing, or a lookup per zone when there are few.
    Declared,
    /// Only those of the zones declared, in a plan limited to a change (the account likely
    /// holds more domains than the change touches).
    Scoped,
    /// Every domain of the account, for the account as a whole (`plan::account`), even with no
    /// zone declared.
    All,
}

/// The account's domains that `desired` declares a zone for (every one with
/// [`DomainsRead::All`]): `GET /domains` (every page), or in a scoped plan one lookup per zone
/// when there are few (see [`LOOKUPS_MAX`]). It needs no snapshot, so plan reads it alongside
/// the snapshot.
pub(crate) async fn list(
    client: &ReadClient,
    desired: &Desired,
    read: DomainsRead,
) -> Result<Vec<payload::Domain>, SnapshotError> {
    let what = "the domain list (GET /domains)";
    let Some(first) = desired.zones.first() else {
        return match read {
            DomainsRead::All => {
                client
                    .list_domains()
                    .await
                    .map_err(|source| SnapshotError::Listing {
                        what: what.into(),
                        source,
                    })
            }
            DomainsRead::Declared | DomainsRead::Scoped => Ok(Vec::new()),
        };
    };
    let scoped = read == DomainsRead::Scoped;
    if scoped && desired.zones.len() <= LOOKUPS_MAX {
        return lookup(client, first).await;
    }
    client
        .list_domains()
        .await
        .map_err(|e| api_error(what.into(), &first.location, e))
}

/// The zone's domain as the account registers it; none when it answers 404 (not registered
/// here), as the listing would not list it.
async fn lookup(
    client: &ReadClient,
    spec: &ZoneSpec,
) -> Result<Vec<payload::Domain>, SnapshotError> {
    match client.get_domain(spec.zone.as_str()).await {
        Ok(domain) => Ok(vec![domain]),
        Err(e) if e.is_not_found() => Ok(Vec::new()),
        Err(e) => Err(api_error(
            format!("the domain {} (GET /domains/{{domain}})", spec.zone),
            &spec.location,
            e,
        )),
    }
}

/// The registration of every zone `desired` declares, in file order: the listing from
/// [`list`], and the registrar state from the snapshot or, when it lacks it, one GET.
pub(crate) async fn fetch(
    client: &ReadClient,
    desired: &Desired,
    live: &LiveSnapshot,
    listed: &[payload::Domain],
    progress: Option<&ReadProgressHook>,
) -> Result<Vec<Registration>, SnapshotError> {
    let limit = Slots::new(progress);
    let mut reads = Vec::new();
    for spec in &desired.zones {
        let listing = listed
            .iter()
            .find(|d| fold_host(&d.domain) == spec.zone.as_str())
            .cloned();
        let known = live_registrar(live, spec);
        let read = (listing.is_some() && known.is_none()).then(|| {
            let (c, zone) = (client.clone(), spec.zone.to_string());
            spawn(&limit, async move { c.get_registrar(&zone).await })
        });
        reads.push((spec, listing, read, known));
    }
    let mut out = Vec::new();
    for (spec, listing, read, known) in reads {
        let registrar = match read {
            Some(read) => Some(read.join().await?.map_err(|e| {
                let what = format!("the registrar state of {}", spec.zone);
                api_error(what, &spec.location, e)
            })?),
            None => known,
        };
        out.push(Registration { listing, registrar });
    }
    Ok(out)
}

fn live_registrar(live: &LiveSnapshot, spec: &ZoneSpec) -> Option<payload::Registrar> {
    live.domains
        .iter()
        .find(|d| d.domain == spec.zone)
        .map(|d| d.registrar.clone())
}

/// The findings of every declared zone's registration, judged at `now` (the plan's time).
pub(crate) fn findings(
    desired: &Desired,
    registrations: &[Registration],
    now: DateTime<Utc>,
) -> Vec<Finding> {
    desired
        .zones
        .iter()
        .zip(registrations)
        .flat_map(|(spec, reg)| registrar::findings(spec, reg, now))
        .collect()
}
