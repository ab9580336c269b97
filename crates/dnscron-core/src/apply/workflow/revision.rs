//! A controller's apply, bound to the previous revision of the desired state instead of a plan
//! file: what the previous revision would change into the new one is the reviewed plan, each
//! change starting from the previous revision's value. So a change between revisions runs only
//! while the live account still holds what the previous revision declared, and anything else
//! the files would change now (a record only live, in neither revision) is unreviewed.

use crate::config::model::Desired;
use crate::plan::snapshot::{self, LiveSite, LiveSnapshot, LiveZone};
use crate::plan::{DiffOptions, Plan, PlanError, PlanStamp, Planned, diff};

/// The plan from `previous` to the files planned now (`planned`), under the plan made now's id
/// and scope; the safety limits as `allow_mass_changes` says (they hold for the plan made now,
/// which is bound to this one, not for this difference between two revisions).
pub(super) fn reviewed(
    previous: &Desired,
    planned: &Planned,
    allow_mass_changes: bool,
) -> Result<Plan, PlanError> {
    let now = &planned.plan;
    let base = with_first_declared(
        snapshot::declared(previous, &planned.live),
        &now.desired,
        &planned.live,
    );
    let opts = DiffOptions {
        allow_mass_changes: true,
        stamp: PlanStamp {
            id: now.plan_id.clone(),
            created_at: now.created_at.clone(),
        },
        ..crate::apply::diff_options_for(now)
    };
    let mut reviewed = diff(&now.desired, &base, &opts)?;
    reviewed.options.allow_mass_changes = allow_mass_changes;
    reviewed.scope = now.scope.clone();
    Ok(reviewed)
}

/// `base` with what `desired` declares and the previous revision did not: a zone with no records
/// and a site with no cron jobs (so only what the new revision adds is reviewed, never a delete
/// of something live), and a domain's registrar as `live` read it (the previous revision did not
/// manage its nameservers, so what is live is where a switch starts).
fn with_first_declared(
    mut base: LiveSnapshot,
    desired: &Desired,
    live: &LiveSnapshot,
) -> LiveSnapshot {
    for zone in &desired.zones {
        if !base.zones.iter().any(|z| z.zone == zone.zone) {
            base.zones.push(LiveZone {
                zone: zone.zone.clone(),
                records: Default::default(),
                service_nameservers: live.service_nameservers_of(&zone.zone),
            });
        }
    }
    for domain in &live.domains {
        if !base.domains.iter().any(|d| d.domain == domain.domain) {
            base.domains.push(domain.clone());
        }
    }
    for site in &desired.sites {
        match base.sites.iter_mut().find(|s| s.slug == site.slug) {
            Some(known) if known.cron.is_none() && site.cron.is_some() => {
                known.cron = Some(Vec::new());
            }
            Some(_) => {}
            None => base.sites.push(LiveSite {
                slug: site.slug.clone(),
                state: Some("active".into()),
                cron: site.cron.as_ref().map(|_| Vec::new()),
            }),
        }
    }
    base
}
