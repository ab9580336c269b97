//! A plan limited to what changed: the targets it covers and the commit they changed since
//! (docs/plan.md, "Planning only what changed"). The plan reads, diffs and records only these;
//! apply of a scoped plan reads only these too. Drift elsewhere is the full plan's to find.

use std::collections::BTreeSet;

use crate::config::changed::ChangedTargets;
use crate::config::model::Desired;

use super::model::{TargetKind, TargetRef};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scope {
    /// The revision as the user gave it.
    pub since: String,
    /// The commit it named when the plan was made.
    pub commit: String,
    /// Sorted. A zone target covers the zone's records and its domain's registrar health; a
    /// domain target (present when a version of the zone's document sets `nameservers`) its
    /// nameserver mode; a site target its cron jobs.
    pub targets: Vec<TargetRef>,
}

impl Scope {
    pub fn of(changed: &ChangedTargets) -> Scope {
        let mut targets = BTreeSet::new();
        for (zone, nameservers) in &changed.zones {
            targets.insert(TargetRef {
                kind: TargetKind::Zone,
                name: zone.clone(),
            });
            if *nameservers {
                targets.insert(TargetRef {
                    kind: TargetKind::Domain,
                    name: zone.clone(),
                });
            }
        }
        for site in &changed.sites {
            targets.insert(TargetRef {
                kind: TargetKind::Site,
                name: site.clone(),
            });
        }
        Scope {
            since: changed.since.clone(),
            commit: changed.commit.clone(),
            targets: targets.into_iter().collect(),
        }
    }

    /// Both scopes' targets; `self`'s revision and commit.
    pub fn union(mut self, other: &Scope) -> Scope {
        let mut all: BTreeSet<TargetRef> = self.targets.into_iter().collect();
        all.extend(other.targets.iter().cloned());
        self.targets = all.into_iter().collect();
        self
    }

    pub fn covers(&self, kind: TargetKind, name: &str) -> bool {
        self.targets
            .iter()
            .any(|t| t.kind == kind && t.name.eq_ignore_ascii_case(name))
    }

    /// The declarations of `desired` in scope, in file order. A zone's document comes whole
    /// when its zone or its domain is in scope.
    pub fn restrict(&self, mut desired: Desired) -> Desired {
        desired.zones.retain(|z| {
            self.covers(TargetKind::Zone, z.zone.as_str())
                || self.covers(TargetKind::Domain, z.zone.as_str())
        });
        desired
            .sites
            .retain(|s| self.covers(TargetKind::Site, &s.slug));
        desired
    }

    /// How many targets of `kind` the scope names.
    pub fn count(&self, kind: TargetKind) -> usize {
        self.targets.iter().filter(|t| t.kind == kind).count()
    }
}
