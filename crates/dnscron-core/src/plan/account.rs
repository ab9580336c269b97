//! The account as a whole (docs/health.md, "The account as a whole"): a plan of whole folders
//! reads the account's zone, domain and site listings and reports every one that no file of
//! those folders declares and no `unmanaged:` entry lists, once each, and every `unmanaged:`
//! entry the account no longer has. A plan of single files, or of what changed since a commit,
//! sees only part of the files, so it would report what the other files declare: it reads none
//! of this.
//!
//! Cost: `GET /dns` (one request per 100 zones) is new; `GET /domains` is the listing the
//! registrar findings read anyway (read for this alone only when no zone is declared);
//! `GET /sites` is the listing the snapshot reads anyway when a site is declared.

use crate::api::payload;
use crate::config::check_slug;
use crate::config::model::{Desired, UnmanagedEntry};
use crate::dns::{ZoneName, fold_host};

use super::finding_code::FindingCode;
use super::model::{Finding, TargetKind, TargetRef};

/// Which files a plan compares with the whole account: every file of these folders.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccountCheck {
    /// As the user named them; the first is where an import of what is undeclared goes.
    pub folders: Vec<String>,
}

/// What the account's listings hold, names folded as the files write them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Listings {
    pub zones: Vec<String>,
    pub domains: Vec<String>,
    pub sites: Vec<String>,
}

impl Listings {
    pub(crate) fn of(
        zones: &[payload::Zone],
        domains: &[payload::Domain],
        sites: &[payload::Site],
    ) -> Listings {
        Listings {
            zones: zones.iter().map(|z| fold_host(&z.zone)).collect(),
            domains: domains.iter().map(|d| fold_host(&d.domain)).collect(),
            sites: sites.iter().map(|s| s.slug.trim().to_string()).collect(),
        }
    }
}

/// The findings about the account as a whole: undeclared zones (with their domain, when the
/// account registers it: one thing to adopt, one finding), domains without a zone, sites, then
/// stale `unmanaged:` entries.
pub(crate) fn findings(desired: &Desired, listed: &Listings, check: &AccountCheck) -> Vec<Finding> {
    let mut out = Vec::new();
    out.extend(undeclared_zones(desired, listed, check));
    out.extend(undeclared_domains(desired, listed, check));
    out.extend(undeclared_sites(desired, listed, check));
    out.extend(stale(desired, listed));
    out
}

fn listed_in(entries: &[UnmanagedEntry], name: &str) -> bool {
    entries.iter().any(|e| e.name == name)
}

fn zone_declared(desired: &Desired, name: &str) -> bool {
    desired.zones.iter().any(|z| z.zone.as_str() == name)
}

fn undeclared_zones<'a>(
    desired: &'a Desired,
    listed: &'a Listings,
    check: &'a AccountCheck,
) -> impl Iterator<Item = Finding> + 'a {
    let unmanaged = &desired.unmanaged;
    listed
        .zones
        .iter()
        .filter(|z| !zone_declared(desired, z) && !listed_in(&unmanaged.zones, z))
        .map(move |zone| {
            let registered = listed.domains.contains(zone) && !listed_in(&unmanaged.domains, zone);
            let what = if registered {
                "the account has this DNS zone and registers its domain"
            } else {
                "the account has this DNS zone"
            };
            let unchecked = if registered {
                "its records and its registration are not checked"
            } else {
                "its records are not checked"
            };
            undeclared(
                FindingCode::ZoneUndeclared,
                TargetKind::Zone,
                zone,
                format!(
                    "{what}, but no file in {} declares it: {unchecked}",
                    folders(check)
                ),
                ZoneName::parse(zone).is_ok(),
                check,
            )
        })
}

fn undeclared_domains<'a>(
    desired: &'a Desired,
    listed: &'a Listings,
    check: &'a AccountCheck,
) -> impl Iterator<Item = Finding> + 'a {
    let unmanaged = &desired.unmanaged;
    listed
        .domains
        .iter()
        .filter(|d| {
            !zone_declared(desired, d)
                && !listed.zones.contains(d)
                && !listed_in(&unmanaged.domains, d)
        })
        .map(move |domain| {
            undeclared(
                FindingCode::DomainUndeclared,
                TargetKind::Domain,
                domain,
                format!(
                    "the account registers this domain but has no DNS zone for it, so no file in {} can declare it: its registration (expiry, DNSSEC, transfer) is not checked",
                    folders(check)
                ),
                ZoneName::parse(domain).is_ok(),
                check,
            )
        })
}

fn undeclared_sites<'a>(
    desired: &'a Desired,
    listed: &'a Listings,
    check: &'a AccountCheck,
) -> impl Iterator<Item = Finding> + 'a {
    let unmanaged = &desired.unmanaged;
    listed
        .sites
        .iter()
        .filter(|s| {
            !desired.sites.iter().any(|d| d.slug == **s) && !listed_in(&unmanaged.sites, s)
        })
        .map(move |site| {
            undeclared(
                FindingCode::SiteUndeclared,
                TargetKind::Site,
                site,
                format!(
                    "the account has this site, but no file in {} declares it: its cron jobs are not checked",
                    folders(check)
                ),
                check_slug(site).is_ok(),
                check,
            )
        })
}

/// A name a file could not declare (the server listed something odd) is still reported, with
/// no folder to import it into.
fn undeclared(
    code: FindingCode,
    kind: TargetKind,
    name: &str,
    message: String,
    declarable: bool,
    check: &AccountCheck,
) -> Finding {
    let target = TargetRef {
        kind,
        name: name.to_string(),
    };
    let message = if declarable {
        message
    } else {
        format!("{message}; its name is not one a file can declare")
    };
    let finding = Finding::new(code, target, message);
    match (declarable, check.folders.first()) {
        (true, Some(folder)) => finding.adopt_into(folder),
        (true, None) | (false, _) => finding,
    }
}

/// Entries of `unmanaged:` the account does not have (any more): the list should say what is
/// there.
fn stale<'a>(desired: &'a Desired, listed: &'a Listings) -> impl Iterator<Item = Finding> + 'a {
    let u = &desired.unmanaged;
    [
        (
            TargetKind::Zone,
            &u.zones,
            &listed.zones,
            "unmanaged.zones",
            "DNS zone",
        ),
        (
            TargetKind::Domain,
            &u.domains,
            &listed.domains,
            "unmanaged.domains",
            "registered domain",
        ),
        (
            TargetKind::Site,
            &u.sites,
            &listed.sites,
            "unmanaged.sites",
            "site",
        ),
    ]
    .into_iter()
    .flat_map(|(kind, entries, names, list, noun)| {
        entries
            .iter()
            .filter(|e| !names.contains(&e.name))
            .map(move |e| {
                let target = TargetRef {
                    kind,
                    name: e.name.clone(),
                };
                let message = format!(
                    "`{list}` lists {}, but the account has no such {noun}",
                    e.name
                );
                Finding::new(FindingCode::UnmanagedStale, target, message).declared_at(&e.location)
            })
    })
}

fn folders(check: &AccountCheck) -> String {
    check.folders.join(" or ")
}
