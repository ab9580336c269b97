//! Fingerprints of the live state a plan was made from, kept in the plan file as a record of
//! what was read. Apply no longer refuses a plan on them: it binds a plan made now to the
//! reviewed one (`apply::review`), which an unrelated or ignored record cannot disturb.
//!
//! Each is `sha256:<hex>` over a canonical text of what was read: order-independent (servers may
//! list in any order) and blind to what the diff itself ignores (nameserver case and final dots,
//! whitespace in cron fields), but sensitive to everything else, raw record content included.

use sha2::{Digest, Sha256};

use dnscron_api::payload;

use super::model::{Plan, TargetKind, TargetRef, hex};
use super::norm::host_set;
use super::records::prefix_key;
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

/// One line per record, sorted: `record|id|name|TYPE|ttl|content` (fields escaped as in
/// `field`), after a `zone|name` line. The lines share one buffer: a zone of 100,000 records
/// would otherwise cost a dozen allocations per record.
pub(crate) fn zone(zone: &LiveZone) -> String {
    const PREFIX: &str = "record|";
    let mut text = String::new();
    let mut lines = Vec::with_capacity(zone.records.len());
    let mut number = itoa::Buffer::new();
    for r in zone.records.iter() {
        let start = text.len();
        text.push_str(PREFIX);
        text.push_str(number.format(r.id));
        text.push('|');
        push_text(
            &mut text,
            &crate::dns::live_name_relative(r.name, &zone.zone),
        );
        text.push('|');
        push_field(
            &mut text,
            r.rtype.trim().chars().map(|c| c.to_ascii_uppercase()),
        );
        text.push('|');
        text.push_str(number.format(r.ttl));
        text.push('|');
        push_text(&mut text, r.content);
        lines.push((
            prefix_key(&text.as_bytes()[start + PREFIX.len()..]),
            start,
            text.len(),
        ));
    }
    // Ordered as text; the key (the id's digits, mostly) settles nearly every comparison
    // without reading the lines, which all begin alike.
    let bytes = text.as_bytes();
    lines.sort_unstable_by(|a, b| {
        (a.0.cmp(&b.0)).then_with(|| bytes[a.1..a.2].cmp(&bytes[b.1..b.2]))
    });
    let mut hasher = Sha256::new();
    hasher.update(format!("zone|{}\n", zone.zone).as_bytes());
    for (_, start, end) in lines {
        hasher.update(&bytes[start..end]);
        hasher.update(b"\n");
    }
    format!("sha256:{}", hex(&hasher.finalize()))
}

/// [`field`] of `text`, written to `out`: copied whole when there is nothing to escape.
fn push_text(out: &mut String, text: &str) {
    if text.bytes().any(|b| matches!(b, b'\\' | b'|' | b'\n')) {
        push_field(out, text.chars());
    } else {
        out.push_str(text);
    }
}

/// [`field`] of `chars`, written to `out`.
fn push_field(out: &mut String, chars: impl Iterator<Item = char>) {
    for c in chars {
        match c {
            '\\' => out.push_str("\\\\"),
            '|' => out.push_str("\\|"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
}

pub(crate) fn domain(domain: &LiveDomain) -> String {
    let registry: Vec<String> = host_set(&domain.registrar.nameservers.registry)
        .into_iter()
        .collect();
    let service: Vec<String> = host_set(&domain.service_nameservers).into_iter().collect();
    let dnssec = payload::dnssec_is_active(domain.registrar.dnssec.state.as_ref());
    digest(&[
        format!("domain|{}", domain.domain),
        format!("registry|{}", registry.join(",")),
        format!("service|{}", service.join(",")),
        format!("dnssec_active|{dnssec}"),
    ])
}

pub(crate) fn site(site: &LiveSite) -> String {
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
                    let (schedule, command) = super::cron_jobs::job_key(&j.schedule, &j.command);
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
pub(crate) fn fingerprint(live: &LiveSnapshot, target: &TargetRef) -> Option<String> {
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::dns::ZoneName;

    /// A listed record with ttl 300.
    fn record(id: i64, name: &str, rtype: &str, content: &str) -> dnscron_api::payload::Record {
        dnscron_api::payload::Record {
            id,
            name: name.into(),
            rtype: rtype.into(),
            ttl: 300,
            content: content.into(),
        }
    }

    #[test]
    fn a_zone_is_the_digest_of_its_sorted_escaped_lines() {
        let live = LiveZone {
            zone: ZoneName::parse("example.com").unwrap(),
            records: [
                record(12, "WWW.example.com.", " a ", "192.0.2.1"),
                record(3, "@", "TXT", "a|b\\c\nd"),
                record(123, "x|y", "txt", "\"q\""),
            ]
            .into_iter()
            .collect(),
            service_nameservers: Vec::new(),
        };
        // Sorted as text: `123|` before `12|` ('3' < '|') before `3|`.
        let want = digest(&[
            "zone|example.com".into(),
            "record|123|x\\|y|TXT|300|\"q\"".into(),
            "record|12|www|A|300|192.0.2.1".into(),
            "record|3|@|TXT|300|a\\|b\\\\c\\nd".into(),
        ]);
        assert_eq!(zone(&live), want);
        let mut rows = live.records.to_wire();
        rows.reverse();
        let mut reordered = live.clone();
        reordered.records = rows.iter().collect();
        assert_eq!(zone(&reordered), want);
        rows[0].ttl = 301;
        reordered.records = rows.iter().collect();
        assert_ne!(zone(&reordered), want);
    }
}
