//! What follows when a change removes a declaration (docs/plan.md, "Removing a declaration"): a
//! zone's document, a site's, or a zone's `nameservers` key. The target leaves management: the
//! plan deletes nothing of it, and its live records, jobs or nameserver mode stay as they are.
//!
//! A plan of what changed (`plan::scope`) knows the files at the commit, so it knows what they
//! no longer declare. For each removed zone or site it reads whether the account still has it
//! (the zone's records and its domain, or the site list) and gives the findings the full plan
//! will give from then on (`plan::account`: `zone-undeclared`, with the same words, unless an
//! `unmanaged:` entry lists it), so the pull request says what the drift job will say after the
//! merge, and a removal made together with its `unmanaged:` entry plans clean. A note per
//! removal (`declaration-removed`, info) says what happens to the target.

use crate::config::model::{Desired, UnmanagedEntry};
use dnscron_api::ReadClient;

use super::account::{self, AccountCheck, Listings};
use super::model::{Finding, TargetKind, TargetRef};
use super::scope::Scope;
use super::snapshot::SnapshotError;
use crate::finding::FindingCode;

/// The findings about the declarations `scope` removes, judged against `files` (every file now)
/// and the account as read now.
pub(crate) async fn findings(
    client: &ReadClient,
    files: &Desired,
    scope: &Scope,
    check: &AccountCheck,
) -> Result<Vec<Finding>, SnapshotError> {
    let listed = read(client, scope).await?;
    let mut out = account::findings_about(files, &listed, check, &scope.removed);
    for target in &scope.removed {
        out.push(note(files, &listed, target));
    }
    Ok(out)
}

/// Which of the removed zones and sites the account still has (a removed domain key reads
/// nothing: the zone is still declared and read).
async fn read(client: &ReadClient, scope: &Scope) -> Result<Listings, SnapshotError> {
    let mut listed = Listings::default();
    let failed = |what: String| move |source| SnapshotError::Listing { what, source };
    for target in scope.removed.iter().filter(|t| t.kind == TargetKind::Zone) {
        let zone = &target.name;
        match client.list_records(zone).await {
            Ok(_) => listed.zones.push(zone.clone()),
            Err(e) if e.is_not_found() => {}
            Err(e) => {
                return Err(failed(format!(
                    "the zone {zone} (GET /dns/{{zone}}/records)"
                ))(e));
            }
        }
        match client.get_domain(zone).await {
            Ok(_) => listed.domains.push(zone.clone()),
            Err(e) if e.is_not_found() => {}
            Err(e) => {
                return Err(failed(format!(
                    "the domain {zone} (GET /domains/{{domain}})"
                ))(e));
            }
        }
    }
    if scope.removed.iter().any(|t| t.kind == TargetKind::Site) {
        let sites = client
            .list_sites()
            .await
            .map_err(failed("the site list (GET /sites)".into()))?;
        listed.sites = Listings::of(&[], &[], &sites).sites;
    }
    Ok(listed)
}

/// What happens to a target whose declaration is removed, in words.
fn note(files: &Desired, listed: &Listings, target: &TargetRef) -> Finding {
    let name = &target.name;
    let message = match target.kind {
        TargetKind::Zone => {
            let has = listed.zones.contains(name);
            leaving(
                "zone",
                name,
                has,
                "its live records",
                &files.unmanaged.zones,
                "zones",
                "zone-undeclared",
            )
        }
        TargetKind::Site => {
            let has = listed.sites.contains(name);
            leaving(
                "site",
                name,
                has,
                "its cron jobs",
                &files.unmanaged.sites,
                "sites",
                "site-undeclared",
            )
        }
        TargetKind::Domain => format!(
            "this change removes `nameservers` from the zone {name}: dnscron stops managing the domain's nameserver mode, which stays as it is live (nothing is sent); no plan reports a later change of it, since a zone without `nameservers` leaves its registrar side alone"
        ),
    };
    Finding::new(FindingCode::DeclarationRemoved, target.clone(), message)
}

fn leaving(
    noun: &str,
    name: &str,
    has: bool,
    live: &str,
    entries: &[UnmanagedEntry],
    list: &str,
    code: &str,
) -> String {
    let head = format!("this change removes the declaration of the {noun} {name}");
    if !has {
        return format!("{head}, which the account no longer has: nothing is left behind");
    }
    let stays =
        format!("dnscron stops managing it, and {live} stay as they are (nothing is deleted)");
    match entries.iter().find(|e| e.name == name) {
        Some(entry) => format!(
            "{head}: {stays}; `unmanaged.{list}` lists it at {}, so no plan reports it",
            entry.location
        ),
        None => format!(
            "{head}: {stays}; the drift job reports it as `{code}` until an `unmanaged:` document lists it: add `{list}: [{{ name: {name}, reason: \"…\" }}]`"
        ),
    }
}
