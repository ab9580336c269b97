//! Reads what an import selects: zones with their records (and the registrar state of those
//! that are registered domains here), sites with their cron jobs. Each read of a target is a
//! `plan::ReadProgress` note, as a plan's are: `import --all` of a large account reads for
//! minutes at the API's pace, and says where it is as `plan` does.

use std::collections::BTreeSet;

use crate::dns::ZoneName;
use crate::plan::ReadProgressHook;
use dnscron_api::{ApiError, ReadClient};

use super::ImportError;
use super::site::{SiteFile, build_site};
use super::zone::{NsChoice, ZoneFile, build_zone, nameserver_choice};

/// What to import. `all` takes every zone of `GET /dns` and every site of `GET /sites`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    pub zones: Vec<ZoneName>,
    pub sites: Vec<String>,
    pub all: bool,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Fetched {
    pub zones: Vec<ZoneFile>,
    pub sites: Vec<SiteFile>,
}

fn api(what: impl Into<String>) -> impl FnOnce(ApiError) -> ImportError {
    let what = what.into();
    move |source| ImportError::Api {
        what,
        source: Box::new(source),
    }
}

/// Reads `sel`, telling `progress` of each zone's records, each registrar state and each site's
/// cron jobs as they are queued (once the listings name them) and read.
pub async fn fetch(
    client: &ReadClient,
    sel: &Selection,
    progress: Option<&ReadProgressHook>,
) -> Result<Fetched, ImportError> {
    let queued = |count: usize| {
        if let Some(p) = progress {
            p.0.queued(count);
        }
    };
    let done = || {
        if let Some(p) = progress {
            p.0.done();
        }
    };
    let mut out = Fetched::default();
    let zones = if sel.all {
        let listed = client
            .list_zones()
            .await
            .map_err(api("the zone list (GET /dns)"))?;
        let mut names = BTreeSet::new();
        for z in listed {
            // A name the server lists but we can't parse is skipped with a warning rather than
            // failing the whole import.
            match ZoneName::parse(&z.zone) {
                Ok(name) => {
                    names.insert(name);
                }
                Err(e) => tracing::warn!(
                    "skipping zone `{}` from GET /dns: {e}",
                    dnscron_api::untrusted::escape(&z.zone)
                ),
            }
        }
        names.into_iter().collect()
    } else {
        dedup(&sel.zones)
    };
    if !zones.is_empty() {
        let domains = client
            .list_domains()
            .await
            .map_err(api("the domain list (GET /domains)"))?;
        let registered: BTreeSet<String> = domains
            .iter()
            .filter_map(|d| ZoneName::parse(&d.domain).ok())
            .map(|z| z.to_string())
            .collect();
        let registrar_reads = zones
            .iter()
            .filter(|z| registered.contains(z.as_str()))
            .count();
        queued(zones.len() + registrar_reads);
        for zone in &zones {
            let registered = registered.contains(zone.as_str());
            out.zones
                .push(zone_file(client, zone, registered, &done).await?);
        }
    }
    if sel.all || !sel.sites.is_empty() {
        let listed = client
            .list_sites()
            .await
            .map_err(api("the site list (GET /sites)"))?;
        let slugs: Vec<String> = if sel.all {
            let mut all: Vec<String> = listed.iter().map(|s| s.slug.clone()).collect();
            all.sort();
            all.dedup();
            all
        } else {
            dedup(&sel.sites)
        };
        // Every slug becomes a file name: all are checked before any is read or written.
        for slug in &slugs {
            crate::config::check_slug(slug).map_err(|reason| ImportError::UnsafeSlug {
                slug: slug.clone(),
                reason,
            })?;
        }
        queued(slugs.len());
        for slug in slugs {
            let site = listed
                .iter()
                .find(|s| s.slug == slug)
                .ok_or_else(|| ImportError::NoSuchSite { slug: slug.clone() })?;
            let jobs = client
                .list_cron(&slug)
                .await
                .map_err(api(format!("the cron jobs of site {slug}")))?;
            done();
            out.sites.push(build_site(&slug, site.state.clone(), &jobs));
        }
    }
    Ok(out)
}

async fn zone_file(
    client: &ReadClient,
    zone: &ZoneName,
    registered: bool,
    done: &impl Fn(),
) -> Result<ZoneFile, ImportError> {
    let listing = client.list_records(zone.as_str()).await.map_err(|e| {
        if e.is_not_found() {
            ImportError::NoSuchZone { zone: zone.clone() }
        } else {
            ImportError::Api {
                what: format!("the records of zone {zone}"),
                source: Box::new(e),
            }
        }
    })?;
    done();
    let nameservers = if registered {
        let registrar = client
            .get_registrar(zone.as_str())
            .await
            .map_err(api(format!("the registrar state of {zone}")))?;
        done();
        nameserver_choice(zone, &registrar.nameservers.registry, &listing.nameservers)
    } else {
        NsChoice::Unmanaged(None)
    };
    let mut file = build_zone(zone, &listing.records.to_wire(), nameservers);
    file.header.push(super::render::IMPORTED.to_string());
    Ok(file)
}

fn dedup<T: Clone + PartialEq>(items: &[T]) -> Vec<T> {
    let mut out: Vec<T> = Vec::new();
    for item in items {
        if !out.contains(item) {
            out.push(item.clone());
        }
    }
    out
}
