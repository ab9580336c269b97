//! The targets a round reads: every one the files declare (a drift sweep walks them in order,
//! a chunk at a time), or those whose declaration changed between two revisions (what an apply
//! of merged changes reads: the work of a revision is in proportion to the change).

use crate::config::model::Desired;
use crate::plan::{Scope, TargetKind, TargetRef};

/// Every target `desired` declares, sorted: each zone, the registrar side of each zone that
/// sets `nameservers`, each site.
pub(super) fn declared(desired: &Desired) -> Vec<TargetRef> {
    let mut out = Vec::new();
    for zone in &desired.zones {
        out.push(target(TargetKind::Zone, zone.zone.as_str()));
        if zone.nameservers.is_some() {
            out.push(target(TargetKind::Domain, zone.zone.as_str()));
        }
    }
    for site in &desired.sites {
        out.push(target(TargetKind::Site, &site.slug));
    }
    out.sort();
    out.dedup();
    out
}

/// The targets whose declaration differs between `before` and `after` (declared in one and
/// not the other, or declared otherwise), sorted.
pub(super) fn changed(before: &Desired, after: &Desired) -> Vec<TargetRef> {
    let mut out = Vec::new();
    for zone in &after.zones {
        let old = before.zones.iter().find(|z| z.zone == zone.zone);
        if old != Some(zone) {
            out.push(target(TargetKind::Zone, zone.zone.as_str()));
            if zone.nameservers.is_some() || old.is_some_and(|o| o.nameservers.is_some()) {
                out.push(target(TargetKind::Domain, zone.zone.as_str()));
            }
        }
    }
    for zone in &before.zones {
        if !after.zones.iter().any(|z| z.zone == zone.zone) {
            out.push(target(TargetKind::Zone, zone.zone.as_str()));
        }
    }
    for site in &after.sites {
        if before.sites.iter().find(|s| s.slug == site.slug) != Some(site) {
            out.push(target(TargetKind::Site, &site.slug));
        }
    }
    for site in &before.sites {
        if !after.sites.iter().any(|s| s.slug == site.slug) {
            out.push(target(TargetKind::Site, &site.slug));
        }
    }
    out.sort();
    out.dedup();
    out
}

/// A scope of `targets` (a plan reads only them); `label` says what chose them, in the place
/// a git scope names its revision.
pub(super) fn scope(label: &str, revision: &str, targets: Vec<TargetRef>) -> Scope {
    Scope {
        since: label.to_string(),
        commit: revision.to_string(),
        targets,
        // A controller applies a revision bound to the last one converged: what leaves
        // management is the merged plan's to say, not the scope's.
        removed: Vec::new(),
    }
}

fn target(kind: TargetKind, name: &str) -> TargetRef {
    TargetRef {
        kind,
        name: name.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> Desired {
        crate::config::load_texts(&[("z.yaml".into(), text.into())])
            .unwrap_or_else(|d| panic!("{d}"))
    }

    const ONE: &str = "zone: a.example\nrecords:\n  - {name: www, type: A, content: 192.0.2.1, ttl: 300}\n---\nzone: b.example\nrecords: []\n---\nsite: shop\ncron: []\n";

    #[test]
    fn only_the_zone_whose_records_changed_is_read() {
        let before = load(ONE);
        let after = load(&ONE.replace("192.0.2.1", "192.0.2.2"));
        assert_eq!(
            changed(&before, &after),
            vec![target(TargetKind::Zone, "a.example")]
        );
        assert_eq!(changed(&before, &before), Vec::new());
        assert_eq!(
            declared(&before),
            vec![
                target(TargetKind::Zone, "a.example"),
                target(TargetKind::Zone, "b.example"),
                target(TargetKind::Site, "shop"),
            ]
        );
    }

    #[test]
    fn a_zone_or_site_dropped_from_the_files_is_changed() {
        let before = load(ONE);
        let after = load(
            "zone: a.example\nrecords:\n  - {name: www, type: A, content: 192.0.2.1, ttl: 300}\n",
        );
        assert_eq!(
            changed(&before, &after),
            vec![
                target(TargetKind::Zone, "b.example"),
                target(TargetKind::Site, "shop"),
            ]
        );
    }
}
