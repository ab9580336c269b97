//! `check`'s output: text for people, JSON for drift jobs. Every value a server sent goes
//! through `untrusted` escaping.

use std::fmt::Write as _;

use crate::cli::error::{undiscovered, unresolved};
use crate::render::check_findings;
use crate::render::github::{Annotation, Level, render_capped};
use dnscron_api::untrusted::{Untrusted, json_text};
use dnscron_core::dnscheck::{
    CheckReport, Difference, NameserverSource, RrsetDifference, ServerReport, Status,
};
use dnscron_core::plan::Finding;

/// The JSON output's shape version: bumped when a field changes meaning or goes away.
pub(crate) const JSON_VERSION: u32 = 1;

pub(crate) fn json(
    report: &CheckReport,
    findings: &[Finding],
) -> Result<String, serde_json::Error> {
    let mut text = json_text(serde_json::to_string_pretty(&json_value(report, findings))?);
    text.push('\n');
    Ok(text)
}

/// Several accounts' checks: `{"version", "accounts": [{"name", ...one account's fields}]}`.
pub(crate) fn json_accounts(
    accounts: &[(&str, &CheckReport, &[Finding])],
) -> Result<String, serde_json::Error> {
    let accounts: Vec<serde_json::Value> = accounts
        .iter()
        .map(|(name, report, findings)| {
            let mut value = json_value(report, findings);
            if let Some(object) = value.as_object_mut() {
                object.remove("version");
                object.insert("name".into(), (*name).into());
            }
            value
        })
        .collect();
    let value = serde_json::json!({ "version": JSON_VERSION, "accounts": accounts });
    let mut text = json_text(serde_json::to_string_pretty(&value)?);
    text.push('\n');
    Ok(text)
}

fn json_value(report: &CheckReport, findings: &[Finding]) -> serde_json::Value {
    let mut value = serde_json::json!({
        "version": JSON_VERSION,
        "zones": report.zones,
        "summary": report.totals(),
        "queries": report.queries,
        "findings": check_findings::json(findings),
    });
    word_errors(&mut value, report);
    word_unreachable(&mut value, report);
    value
}

/// The zones' and nameservers' errors in our words, naming the flags that help.
fn word_errors(doc: &mut serde_json::Value, report: &CheckReport) {
    for (z, zone) in report.zones.iter().enumerate() {
        if let (Some(error), Some(field)) =
            (&zone.error, doc.pointer_mut(&format!("/zones/{z}/error")))
        {
            *field = undiscovered(error).into();
        }
        for (n, server) in zone.nameservers.iter().enumerate() {
            if let (Some(error), Some(field)) = (
                &server.error,
                doc.pointer_mut(&format!("/zones/{z}/nameservers/{n}/error")),
            ) {
                *field = unresolved(error).into();
            }
        }
    }
}

/// Why a server could not be asked, as `reason` after the difference's `kind`.
fn word_unreachable(doc: &mut serde_json::Value, report: &CheckReport) {
    for (z, zone) in report.zones.iter().enumerate() {
        for (n, server) in zone.nameservers.iter().enumerate() {
            for (d, difference) in server.differences.iter().enumerate() {
                let Difference::Unreachable { outcome } = &difference.difference else {
                    continue;
                };
                let at = format!("/zones/{z}/nameservers/{n}/differences/{d}");
                if let Some(serde_json::Value::Object(fields)) = doc.pointer_mut(&at) {
                    let place = fields
                        .keys()
                        .position(|k| k == "kind")
                        .map_or(fields.len(), |i| i + 1);
                    let reason = serde_json::Value::String(outcome.to_string());
                    fields.shift_insert(place, "reason".into(), reason);
                }
            }
        }
    }
}

pub(crate) fn text(report: &CheckReport, findings: &[Finding]) -> String {
    let mut out = String::new();
    for zone in &report.zones {
        let from = match &zone.nameservers_from {
            NameserverSource::Files => "nameservers from the files".to_string(),
            NameserverSource::Resolver { address } => {
                format!("nameservers from the resolver {address}")
            }
            NameserverSource::Unknown => "nameservers not found".to_string(),
        };
        let _ = writeln!(out, "{} ({from})", zone.zone);
        if let Some(error) = &zone.error {
            let _ = writeln!(out, "  x {}", Untrusted(&undiscovered(error)));
        }
        for server in &zone.nameservers {
            server_text(&mut out, server, zone.rrsets);
        }
    }
    out.push_str(&check_findings::text(findings));
    out.push_str(&summary(report, findings));
    out
}

fn server_text(out: &mut String, server: &ServerReport, rrsets: usize) {
    let at = server.address.map(|a| format!(" {a}")).unwrap_or_default();
    let head = format!("  {}{at}", Untrusted(&server.host));
    match server.status {
        Status::InSync => {
            let _ = writeln!(
                out,
                "{head}: in sync (SOA + {})",
                count(rrsets, "RRset", "RRsets")
            );
        }
        Status::Differs => {
            let n = server.differences.len();
            let _ = writeln!(out, "{head}: {}", count(n, "difference", "differences"));
        }
        Status::Failed => {
            let _ = writeln!(out, "{head}: could not be asked");
        }
    }
    if let Some(error) = &server.error {
        let _ = writeln!(out, "    x {}", Untrusted(&unresolved(error)));
    }
    for difference in &server.differences {
        let _ = writeln!(out, "    {}", difference_line(difference));
    }
}

/// `www A: serves 192.0.2.9 (not in the files), lacks 192.0.2.1 (zones/a.yaml:8:5)`.
pub(crate) fn difference_line(d: &RrsetDifference) -> String {
    let at = d
        .location
        .as_ref()
        .map(|l| format!(" ({l})"))
        .unwrap_or_default();
    format!("{}{at}", difference_text(d))
}

/// [`difference_line`] without the location.
pub(crate) fn difference_text(d: &RrsetDifference) -> String {
    let quote = d.rtype == "TXT";
    let list = |values: &[String]| -> String {
        let shown: Vec<String> = values
            .iter()
            .map(|v| {
                if quote && !v.starts_with("CNAME ") {
                    format!("\"{}\"", Untrusted(v))
                } else {
                    Untrusted(v).to_string()
                }
            })
            .collect();
        shown.join(", ")
    };
    let what = match &d.difference {
        Difference::Missing { expected, answer } => {
            format!("lacks {} (the server answers {answer})", list(expected))
        }
        Difference::Values { missing, extra } => {
            let mut parts = Vec::new();
            if !extra.is_empty() {
                parts.push(format!("serves {} (not in the files)", list(extra)));
            }
            if !missing.is_empty() {
                parts.push(format!("lacks {}", list(missing)));
            }
            parts.join(", ")
        }
        Difference::Ttl {
            value,
            expected,
            served,
        } => format!(
            "serves {} with TTL {served}, the files say {expected}",
            list(std::slice::from_ref(value))
        ),
        Difference::NotAuthoritative => {
            "not authoritative for the zone (the answer's AA bit is clear)".to_string()
        }
        Difference::Refused { rcode } => format!("answers {rcode}"),
        Difference::Unreachable { outcome } => Untrusted(&outcome.to_string()).to_string(),
    };
    format!("{} {}: {what}", Untrusted(&d.name), d.rtype)
}

/// GitHub Actions annotations: each difference on the file line that declares the RRset (a
/// warning for a TTL, an error otherwise), each failure as an error, and the summary as a
/// notice.
pub(crate) fn github(report: &CheckReport, findings: &[Finding]) -> String {
    let mut annotations = Vec::new();
    for zone in &report.zones {
        if let Some(error) = &zone.error {
            let message = format!("{}: {}", zone.zone, Untrusted(&undiscovered(error)));
            annotations.push(Annotation::new(Level::Error, message).title("dnscron check"));
        }
        for server in &zone.nameservers {
            let at = server.address.map(|a| format!(" {a}")).unwrap_or_default();
            let who = format!("{}{at}", Untrusted(&server.host));
            if let Some(error) = &server.error {
                let message = format!("{who}: {}", Untrusted(&unresolved(error)));
                annotations.push(Annotation::new(Level::Error, message).title("dnscron check"));
            }
            for d in &server.differences {
                let level = if d.difference.is_minor() {
                    Level::Warning
                } else {
                    Level::Error
                };
                let message = format!("{who} ({}): {}", zone.zone, difference_text(d));
                let mut annotation = Annotation::new(level, message).title("dnscron check");
                if let Some(location) = &d.location {
                    annotation = annotation.at(&location.to_string());
                }
                annotations.push(annotation);
            }
        }
    }
    annotations.extend(check_findings::github(findings, "check"));
    let mut out = render_capped(&annotations, "DNS differences");
    let summary = summary(report, findings);
    out.push_str(&Annotation::new(Level::Notice, summary.trim_end()).render());
    out
}

/// The closing line: `check: 1 of 2 zones in sync, 3 differences, 1 failure, 24 DNS queries`.
pub(crate) fn summary(report: &CheckReport, findings: &[Finding]) -> String {
    let t = report.totals();
    let mut parts = vec![format!(
        "{} of {} in sync",
        t.zones_in_sync,
        count(t.zones, "zone", "zones")
    )];
    parts.push(count(t.differences, "difference", "differences"));
    parts.extend(check_findings::summary_part(findings));
    if t.failures > 0 {
        parts.push(format!(
            "{} (the check did not run there)",
            count(t.failures, "failure", "failures")
        ));
    }
    parts.push(format!(
        "{} to {}",
        count(
            usize::try_from(report.queries).unwrap_or(usize::MAX),
            "DNS query",
            "DNS queries"
        ),
        count(t.nameservers, "nameserver address", "nameserver addresses")
    ));
    format!("check: {}\n", parts.join(", "))
}

fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use dnscron_core::dnscheck::{
        CheckReport, DiscoverError, ResolveError, ServerReport, ZoneReport,
    };

    #[test]
    fn errors_name_the_flags_the_core_leaves_out() {
        let mut lost = ZoneReport::new("a.test");
        lost.error = Some(DiscoverError::SystemResolverOff {
            zone: "a.test".into(),
        });
        let mut unmapped = ServerReport::new("ns1.b.test", None);
        unmapped.error = Some(ResolveError::NotMapped {
            host: "ns1.b.test".into(),
        });
        unmapped.settle();
        let mut found = ZoneReport::new("b.test");
        found.nameservers.push(unmapped);
        let report = CheckReport {
            zones: vec![lost, found],
            queries: 0,
        };
        let off = "no --resolver given and the system resolver is turned off; give --resolver \
                   IP[:PORT], or list a.test's nameservers with `nameservers: {mode: custom, \
                   hosts: [...]}`";
        let no_address = "nameserver `ns1.b.test` has no --nameserver-address and the system \
                          resolver is turned off; add --nameserver-address ns1.b.test=IP[:PORT]";
        let text = super::text(&report, &[]);
        assert!(text.contains(&format!("  x {off}\n")), "{text}");
        assert!(text.contains(&format!("    x {no_address}\n")), "{text}");
        let json: serde_json::Value =
            serde_json::from_str(&super::json(&report, &[]).expect("serializes"))
                .expect("valid JSON");
        assert_eq!(json["zones"][0]["error"], off);
        assert_eq!(json["zones"][1]["nameservers"][0]["error"], no_address);
    }

    #[test]
    fn a_server_that_could_not_be_asked_says_why_in_its_place() {
        use dnscron_core::dnscheck::{Difference, RrsetDifference};
        let mut silent = ServerReport::new(
            "ns1.c.test",
            Some("192.0.2.53:53".parse().expect("an address")),
        );
        silent.differences.push(RrsetDifference::new(
            "@",
            "SOA",
            None,
            Difference::Unreachable {
                outcome: dnscron_core::dnscheck::Outcome::Timeout,
            },
        ));
        silent.settle();
        let mut zone = ZoneReport::new("c.test");
        zone.nameservers.push(silent);
        let report = CheckReport {
            zones: vec![zone],
            queries: 2,
        };
        let json = super::json(&report, &[]).expect("serializes");
        let difference = "          \"differences\": [\n            {\n              \"name\": \"@\",\n              \"type\": \"SOA\",\n              \"kind\": \"unreachable\",\n              \"reason\": \"no answer (timeout)\"\n            }\n          ]\n";
        assert!(json.contains(difference), "{json}");
        let text = super::text(&report, &[]);
        assert!(text.contains("    @ SOA: no answer (timeout)\n"), "{text}");
    }
}
