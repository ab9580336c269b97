//! "The same desired state, locations aside": what `fmt` must keep. Where a thing is written
//! and how its content is spelled (`RecordSpec::content`, kept for messages) are not meaning;
//! neither is the order of a zone's records, which the plan compares as a set.

use std::path::PathBuf;

use crate::config::load::load_texts;
use crate::config::model::{Desired, Location, RecordSpec};

/// Whether `after` loads to the same desired state as `before` did.
pub(super) fn kept(before: &Desired, after: &[(PathBuf, String)]) -> bool {
    load_texts(after).is_ok_and(|after| without_places(before) == without_places(&after))
}

fn without_places(desired: &Desired) -> Desired {
    let mut d = desired.clone();
    for zone in &mut d.zones {
        nowhere(&mut zone.location);
        if let Some(ns) = &mut zone.nameservers {
            nowhere(&mut ns.location);
        }
        if let Some(r) = &mut zone.registrar {
            nowhere(&mut r.location);
        }
        zone.ignore
            .iter_mut()
            .for_each(|i| nowhere(&mut i.location));
        zone.accept
            .iter_mut()
            .for_each(|a| nowhere(&mut a.location));
        for record in &mut zone.records {
            nowhere(&mut record.location);
            record.content.clear();
        }
        zone.records.sort_by(record_identity);
    }
    for site in &mut d.sites {
        nowhere(&mut site.location);
        site.accept
            .iter_mut()
            .for_each(|a| nowhere(&mut a.location));
        for job in site.cron.iter_mut().flatten() {
            nowhere(&mut job.location);
        }
    }
    let unmanaged = &mut d.unmanaged;
    for entry in unmanaged
        .zones
        .iter_mut()
        .chain(unmanaged.domains.iter_mut())
        .chain(unmanaged.sites.iter_mut())
    {
        nowhere(&mut entry.location);
    }
    d
}

fn nowhere(location: &mut Location) {
    location.line = 0;
    location.col = 0;
}

fn record_identity(a: &RecordSpec, b: &RecordSpec) -> std::cmp::Ordering {
    (&a.name, a.rtype, &a.canonical, a.ttl, &a.set).cmp(&(
        &b.name,
        b.rtype,
        &b.canonical,
        b.ttl,
        &b.set,
    ))
}
