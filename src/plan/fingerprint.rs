//! Fingerprints of the live state a plan was made from, kept in the plan file as a record of
//! what was read. Apply no longer refuses a plan on them: it binds a plan made now to the
//! reviewed one (`apply::review`), which an unrelated or ignored record cannot disturb.
//!
//! Each is `sha256:<hex>` over a canonical text of what was read: order-independent (servers may
//! list in any order) and blind to what the diff itself ignores (nameserver case and final dots,
//! whitespace in cron fields), but sensitive to everything else, raw record content included.

use sha2::{Digest, Sha256};

use crate::api::wire;

use super::model::{Plan, TargetKind, TargetRef, hex};
use super::norm::host_set;
use super::snapshot::{LiveDomain, LiveSite, LiveSnapshot, LiveZone};

fn digest(lines: &[String]) -> String {
    let mut hasher = Sha256::new();
    for line in lines {
        hasher.update(line.as_bytes());
        hasher.update(b"\n");
    }
    format!("sha256:{}", hex(&hasher.finalize()))
}

/// Escapes the separator so that two different records never print the same line.
fn field(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace('\n', "\\n")
}

pub fn zone(zone: &LiveZone) -> String {
    let mut lines: Vec<String> = zone
        .records
        .iter()
        .map(|r: &wire::Record| {
            format!(
                "record|{}|{}|{}|{}|{}",
                r.id,
                field(&crate::dns::live_name_to_relative(&r.name, &zone.zone)),
                field(&r.rtype.trim().to_ascii_uppercase()),
                r.ttl,
                field(&r.content)
            )
        })
        .collect();
    lines.sort();
    lines.insert(0, format!("zone|{}", zone.zone));
    digest(&lines)
}

pub fn domain(domain: &LiveDomain) -> String {
    let registry: Vec<String> = host_set(&domain.registrar.nameservers.registry)
        .into_iter()
        .collect();
    let service: Vec<String> = host_set(&domain.service_nameservers).into_iter().collect();
    let dnssec = wire::dnssec_is_active(domain.registrar.dnssec.state.as_ref());
    digest(&[
        format!("domain|{}", domain.domain),
        format!("registry|{}", registry.join(",")),
        format!("service|{}", service.join(",")),
        format!("dnssec_active|{dnssec}"),
    ])
}

pub fn site(site: &LiveSite) -> String {
    let mut lines = vec![
        format!("site|{}", field(&site.slug)),
        format!("state|{}", field(site.state.as_deref().unwrap_or("<none>"))),
    ];
    match &site.cron {
        None => lines.push("cron|<not read>".into()),
        Some(jobs) => {
            let mut jobs: Vec<String> = jobs
                .iter()
                .map(|j| {
                    let (schedule, command) = super::cron::job_key(&j.schedule, &j.command);
                    format!("job|{}|{}", field(&schedule), field(&command))
                })
                .collect();
            jobs.sort();
            lines.extend(jobs);
        }
    }
    digest(&lines)
}

/// The fingerprint of `target` in `live`, or `None` when the snapshot doesn't hold it.
pub fn fingerprint(live: &LiveSnapshot, target: &TargetRef) -> Option<String> {
    match target.kind {
        TargetKind::Zone => live
            .zones
            .iter()
            .find(|z| z.zone.as_str() == target.name)
            .map(zone),
        TargetKind::Domain => live
            .domains
            .iter()
            .find(|d| d.domain.as_str() == target.name)
            .map(domain),
        TargetKind::Site => live.sites.iter().find(|s| s.slug == target.name).map(site),
    }
}

/// The targets of `plan` whose live state in `live` differs from what the plan was made from
/// (or is missing from `live`): apply refuses the plan if this is not empty.
pub fn stale_targets(plan: &Plan, live: &LiveSnapshot) -> Vec<TargetRef> {
    plan.targets
        .iter()
        .filter(|t| fingerprint(live, &t.target_ref()).as_deref() != Some(t.fingerprint.as_str()))
        .map(|t| t.target_ref())
        .collect()
}
