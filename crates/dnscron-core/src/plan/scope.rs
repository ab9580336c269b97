//! A plan limited to what changed: the targets it covers and the commit they changed since
//! (docs/plan.md, "Planning only what changed"). The plan reads, diffs and records only these;
//! apply of a scoped plan reads only these too. Drift elsewhere is the full plan's to find.
//!
//! A scope narrows what is read from the API, never what is known from the files: the findings
//! judged from the files are judged over the whole desired state (an SPF `include:` into a
//! zone outside the scope is followed as the full plan follows it), then kept for the targets
//! in scope, so a scoped plan says of its targets exactly what the full plan says.

use std::collections::BTreeSet;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::config::changed::ChangedTargets;
use crate::config::model::Desired;

use super::model::{TargetKind, TargetRef};

/// What a plan limited to a change covers.
// Written in the plan file as it is: its doc comments are the file schema's descriptions.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Scope {
    /// The git revision as given.
    pub since: String,
    /// The commit it named when the plan was made.
    pub commit: String,
    /// The zones, domains (nameserver mode) and sites declared, now or at the commit, in a file
    /// that changed.
    // Sorted. A zone target covers the zone's records and its domain's registrar health; a
    // domain target (present when a version of the zone's document sets `nameservers`) its
    // nameserver mode; a site target its cron jobs.
    pub targets: Vec<TargetRef>,
    /// Of the targets, those whose declaration the change removes (no file declares the zone
    /// or site any more; a domain: its zone's document no longer sets `nameservers`): they
    /// leave management, and their live state stays as it is.
    // Sorted; every one is in `targets` too.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub removed: Vec<TargetRef>,
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
        let removed = &changed.removed;
        let mut gone = BTreeSet::new();
        for (kind, names) in [
            (TargetKind::Zone, &removed.zones),
            (TargetKind::Domain, &removed.nameservers),
            (TargetKind::Site, &removed.sites),
        ] {
            for name in names {
                let target = TargetRef {
                    kind,
                    name: name.clone(),
                };
                targets.insert(target.clone());
                gone.insert(target);
            }
        }
        Scope {
            since: changed.since.clone(),
            commit: changed.commit.clone(),
            targets: targets.into_iter().collect(),
            removed: gone.into_iter().collect(),
        }
    }

    /// Both scopes' targets; `self`'s revision and commit.
    pub fn union(mut self, other: &Scope) -> Scope {
        let mut all: BTreeSet<TargetRef> = self.targets.into_iter().collect();
        all.extend(other.targets.iter().cloned());
        self.targets = all.into_iter().collect();
        let mut removed: BTreeSet<TargetRef> = self.removed.into_iter().collect();
        removed.extend(other.removed.iter().cloned());
        self.removed = removed.into_iter().collect();
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
        desired.zones.retain(|z| self.covers_zone(z.zone.as_str()));
        desired
            .sites
            .retain(|s| self.covers(TargetKind::Site, &s.slug));
        desired
    }

    /// [`Scope::restrict`] of a desired state kept whole: only what is in scope is copied.
    pub fn restricted(&self, desired: &Desired) -> Desired {
        Desired {
            zones: desired
                .zones
                .iter()
                .filter(|z| self.covers_zone(z.zone.as_str()))
                .cloned()
                .collect(),
            sites: desired
                .sites
                .iter()
                .filter(|s| self.covers(TargetKind::Site, &s.slug))
                .cloned()
                .collect(),
            unmanaged: desired.unmanaged.clone(),
        }
    }

    /// Whether the zone's document is in scope: its zone or its domain is.
    fn covers_zone(&self, zone: &str) -> bool {
        self.covers(TargetKind::Zone, zone) || self.covers(TargetKind::Domain, zone)
    }

    /// Whether a finding or change about `target` is one a plan of this scope holds: a zone's
    /// and its domain's are one document's, a site's its own.
    pub fn holds(&self, target: &TargetRef) -> bool {
        match target.kind {
            TargetKind::Zone | TargetKind::Domain => self.covers_zone(&target.name),
            TargetKind::Site => self.covers(TargetKind::Site, &target.name),
        }
    }

    /// How many targets of `kind` the scope names.
    pub fn count(&self, kind: TargetKind) -> usize {
        self.targets.iter().filter(|t| t.kind == kind).count()
    }
}

/// The targets several scopes cover together. `None` is a plan made without a scope, which
/// covered everything: joined with anything it still covers everything, so no scope ever
/// narrows another.
pub(crate) fn joint<'a>(scopes: impl IntoIterator<Item = Option<&'a Scope>>) -> Option<Scope> {
    let mut scopes = scopes.into_iter();
    let first = scopes.next().flatten()?.clone();
    scopes.try_fold(first, |joint, next| next.map(|s| joint.union(s)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope_of(zone: &str) -> Scope {
        Scope {
            since: "base".into(),
            commit: "c".repeat(40),
            targets: vec![TargetRef {
                kind: TargetKind::Zone,
                name: zone.into(),
            }],
            removed: Vec::new(),
        }
    }

    #[test]
    fn no_scope_joined_with_any_scope_covers_everything() {
        let (a, b) = (scope_of("a.example"), scope_of("b.example"));
        assert_eq!(joint([None, Some(&b)]), None);
        assert_eq!(joint([Some(&a), None]), None);
        // The accepted form: two scopes cover both sets of targets.
        let both = joint([Some(&a), Some(&b)]).map(|s| s.targets);
        assert_eq!(both, Some([a.targets, b.targets].concat()));
    }

    #[test]
    fn a_zone_or_its_domain_brings_the_document_and_sites_come_by_slug() {
        let desired = crate::config::load_texts(&[
            ("a.yaml".into(), "zone: a.example\nrecords: []\n".into()),
            ("b.yaml".into(), "zone: b.example\nrecords: []\n".into()),
            ("c.yaml".into(), "zone: c.example\nrecords: []\n".into()),
            ("s.yaml".into(), "site: shop\n---\nsite: blog\n".into()),
        ])
        .unwrap_or_else(|d| panic!("{d}"));
        let changed = ChangedTargets {
            since: "HEAD~1".into(),
            commit: "c".repeat(40),
            zones: [("a.example".to_string(), false)].into_iter().collect(),
            sites: ["blog".to_string()].into_iter().collect(),
            removed: Default::default(),
        };
        let with_domain = Scope {
            targets: vec![TargetRef {
                kind: TargetKind::Domain,
                name: "C.example".into(),
            }],
            ..Scope::of(&changed)
        };
        let scope = Scope::of(&changed).union(&with_domain);
        let kept = scope.restrict(desired);
        let zones: Vec<_> = kept.zones.iter().map(|z| z.zone.to_string()).collect();
        let sites: Vec<_> = kept.sites.iter().map(|s| s.slug.as_str()).collect();
        assert_eq!(zones, ["a.example", "c.example"]);
        assert_eq!(sites, ["blog"]);
        assert_eq!(scope.count(TargetKind::Zone), 1);
        assert_eq!(scope.count(TargetKind::Domain), 1);
    }
}
