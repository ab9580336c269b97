//! The account as a whole (docs/health.md, "The account as a whole"): a plan of whole folders
//! reads the account's zone, domain and site listings and reports every one that no file of
//! those folders declares and no `unmanaged:` entry lists, once each, and every `unmanaged:`
//! entry the account no longer has. A plan of single files, or of what changed since a commit,
//! sees only part of the files, so it would report what the other files declare: it reads none
//! of this, but for what a change stops declaring (`plan::removal`, [`findings_about`]).
//!
//! Cost: `GET /dns` (one request per 100 zones) is new; `GET /domains` is the listing the
//! registrar findings read anyway (read for this alone only when no zone is declared);
//! `GET /sites` is the listing the snapshot reads anyway when a site is declared.

use crate::config::check_slug;
use crate::config::model::{Desired, UnmanagedEntry};
use crate::dns::{ZoneName, fold_host};
use dnscron_api::payload;

use super::model::{Finding, TargetKind, TargetRef};
use crate::finding::FindingCode;

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
    let mut out = undeclared_in(desired, listed, check);
    out.extend(stale(desired, listed));
    out
}

/// [`findings`] about `targets` only, from `listed`, which lists the account's of those alone
/// (`plan::removal`): what the full plan says of them, and nothing of what was not read.
pub(crate) fn findings_about(
    desired: &Desired,
    listed: &Listings,
    check: &AccountCheck,
    targets: &[TargetRef],
) -> Vec<Finding> {
    // A removed zone's domain is the zone's name: its `unmanaged.domains` entry is about it.
    let about = |f: &Finding| {
        targets.iter().any(|t| {
            t.name == f.target.name
                && match (t.kind, f.target.kind) {
                    (TargetKind::Zone, TargetKind::Zone | TargetKind::Domain) => true,
                    (TargetKind::Site, TargetKind::Site) => true,
                    (TargetKind::Zone | TargetKind::Domain | TargetKind::Site, _) => false,
                }
        })
    };
    let mut out = undeclared_in(desired, listed, check);
    out.extend(stale(desired, listed).filter(|f| about(f)));
    out.retain(|f| about(f));
    out
}

/// The undeclared findings of what `listed` holds.
fn undeclared_in(desired: &Desired, listed: &Listings, check: &AccountCheck) -> Vec<Finding> {
    let mut out = Vec::new();
    for (kind, names) in [
        (TargetKind::Zone, &listed.zones),
        (TargetKind::Domain, &listed.domains),
        (TargetKind::Site, &listed.sites),
    ] {
        for name in names {
            if let Some(unchecked) = unchecked(desired, listed, kind, name) {
                out.push(undeclared(kind, name, &unchecked, check));
            }
        }
    }
    out
}

fn listed_in(entries: &[UnmanagedEntry], name: &str) -> bool {
    entries.iter().any(|e| e.name == name)
}

fn zone_declared(desired: &Desired, name: &str) -> bool {
    desired.zones.iter().any(|z| z.zone.as_str() == name)
}

/// What the account has under `name` and nothing checks, in words; `None` when a file declares
/// it, an `unmanaged:` entry lists it, or (a domain) its zone's finding covers it.
fn unchecked(desired: &Desired, listed: &Listings, kind: TargetKind, name: &str) -> Option<String> {
    let u = &desired.unmanaged;
    match kind {
        TargetKind::Zone => {
            if zone_declared(desired, name) || listed_in(&u.zones, name) {
                return None;
            }
            let registered =
                listed.domains.iter().any(|d| d == name) && !listed_in(&u.domains, name);
            Some(if registered {
                "the account has this DNS zone and registers its domain, but no file in {folders} declares it: its records and its registration are not checked".into()
            } else {
                "the account has this DNS zone, but no file in {folders} declares it: its records are not checked".into()
            })
        }
        TargetKind::Domain => {
            let covered = zone_declared(desired, name)
                || listed.zones.iter().any(|z| z == name)
                || listed_in(&u.domains, name);
            (!covered).then(|| "the account registers this domain but has no DNS zone for it, so no file in {folders} can declare it: its registration (expiry, DNSSEC, transfer) is not checked".into())
        }
        TargetKind::Site => {
            let covered = desired.sites.iter().any(|s| s.slug == name) || listed_in(&u.sites, name);
            (!covered).then(|| "the account has this site, but no file in {folders} declares it: its cron jobs are not checked".into())
        }
    }
}

/// A name a file could not declare (the server listed something odd) is still reported, with
/// no folder to import it into.
fn undeclared(kind: TargetKind, name: &str, unchecked: &str, check: &AccountCheck) -> Finding {
    let (code, declarable) = match kind {
        TargetKind::Zone => (FindingCode::ZoneUndeclared, ZoneName::parse(name).is_ok()),
        TargetKind::Domain => (FindingCode::DomainUndeclared, ZoneName::parse(name).is_ok()),
        TargetKind::Site => (FindingCode::SiteUndeclared, check_slug(name).is_ok()),
    };
    let target = TargetRef {
        kind,
        name: name.to_string(),
    };
    let message = unchecked.replace("{folders}", &check.folders.join(" or "));
    let message = if declarable {
        message
    } else {
        format!("{message}; its name is not one a file can declare")
    };
    let finding = Finding::new(code, target, message);
    match (declarable, check.folders.first()) {
        (true, Some(folder)) => finding.adopt_into(&import_root(folder)),
        (true, None) | (false, _) => finding,
    }
}

/// The folder `import --out` takes for `folder`: import writes `zones/` and `sites/` below its
/// `--out`, so a plan of `dns/zones` (and `dns/sites`) adopts into `dns`.
fn import_root(folder: &str) -> String {
    let path = std::path::Path::new(folder);
    let inside = path
        .file_name()
        .is_some_and(|name| name == "zones" || name == "sites");
    match path.parent().filter(|_| inside) {
        Some(parent) if parent.as_os_str().is_empty() => ".".to_string(),
        Some(parent) => parent.display().to_string(),
        None => folder.to_string(),
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

#[cfg(test)]
mod tests {
    use super::import_root;

    #[test]
    fn a_plan_of_the_zones_or_sites_folder_adopts_into_the_folder_above() {
        assert_eq!(import_root("examples/dns/zones"), "examples/dns");
        assert_eq!(import_root("dns/sites/"), "dns");
        assert_eq!(import_root("zones"), ".");
        // Any other folder is the one import writes below.
        assert_eq!(import_root("dns"), "dns");
        assert_eq!(import_root("dns/zones-old"), "dns/zones-old");
        assert_eq!(import_root("."), ".");
    }
}
