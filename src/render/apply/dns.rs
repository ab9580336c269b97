//! The DNS check lines of the apply report: one per zone when it is live everywhere, the
//! nameservers that are not (and what they serve) when it is not.

use std::fmt::Write as _;

use dnscron_api::untrusted::Untrusted as U;
use dnscron_core::apply::dns::{DnsCheck, NameserverCheck, ZoneCheck};

use super::dns_words::{problem_text, skip_reason};

/// Text lines after the result (empty when the check did not run).
pub(crate) fn text(check: Option<&DnsCheck>) -> String {
    let mut out = String::new();
    match check {
        None => {}
        Some(DnsCheck::Skipped { reason }) => {
            let _ = writeln!(out, "DNS check: skipped, {}.", skip_reason(*reason));
        }
        Some(DnsCheck::Ran {
            deadline_secs,
            zones,
            ..
        }) => {
            for zone in zones {
                zone_text(&mut out, zone, *deadline_secs);
            }
        }
    }
    out
}

fn zone_text(out: &mut String, zone: &ZoneCheck, deadline_secs: f64) {
    if zone.is_live() {
        let after = zone
            .waited_secs()
            .map(|s| format!(" after {s:.1}s"))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "DNS: {} is live on {}/{} nameservers{after}.",
            zone.zone, zone.live, zone.total
        );
        return;
    }
    let _ = writeln!(
        out,
        "warning: DNS: {} is live on {}/{} nameservers (asked for up to {deadline_secs}s); the API took the changes, but resolvers asking the others may still get the old data:",
        zone.zone, zone.live, zone.total
    );
    if zone.total == 0 {
        out.push_str("  the zone's record listing named no nameservers to ask\n");
    }
    for ns in zone.nameservers.iter().filter(|n| !n.is_live()) {
        for problem in &ns.problems {
            let _ = writeln!(out, "  {}: {}", who(ns), U(&problem_text(problem)));
        }
    }
    out.push_str("  This is a warning: apply's exit code does not change. Run `dnscron check` later to ask again.\n");
}

/// `ns1.example.net (192.0.2.53:53)`.
pub(crate) fn who(ns: &NameserverCheck) -> String {
    match ns.addresses.as_slice() {
        [] => ns.host.clone(),
        addrs => {
            let list: Vec<String> = addrs.iter().map(ToString::to_string).collect();
            format!("{} ({})", ns.host, list.join(", "))
        }
    }
}

/// Markdown lines for a CI job summary (empty when the check did not run).
pub(crate) fn markdown(check: Option<&DnsCheck>) -> String {
    let mut out = String::new();
    let Some(DnsCheck::Ran { zones, .. }) = check else {
        if let Some(DnsCheck::Skipped { reason }) = check {
            let _ = writeln!(out, "\nDNS check: skipped, {}.", skip_reason(*reason));
        }
        return out;
    };
    out.push('\n');
    for zone in zones {
        let mark = if zone.is_live() { "✅" } else { "⚠️" };
        let _ = writeln!(
            out,
            "- {mark} DNS: `{}` live on {}/{} nameservers",
            zone.zone, zone.live, zone.total
        );
        for ns in zone.nameservers.iter().filter(|n| !n.is_live()) {
            for problem in &ns.problems {
                let _ = writeln!(
                    out,
                    "  - `{}`: {}",
                    who(ns),
                    super::markdown::cell(&U(&problem_text(problem)).to_string())
                );
            }
        }
    }
    out
}
