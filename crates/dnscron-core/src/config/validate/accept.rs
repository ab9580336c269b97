//! `accept:` entries of zones and sites: a known finding code, a name as the findings show it,
//! a reason (reviewers approve it, so it may not be left out or blank), an optional last day,
//! and no entry twice. Matching them against findings is the planner's (`plan::accept`).

use std::collections::HashMap;

use chrono::NaiveDate;

use super::Checker;
use crate::config::model::{ACCEPT_WHOLE, AcceptSpec, Location};
use crate::config::raw;
use crate::config::suggest::did_you_mean;
use crate::cron::normalize_command;
use crate::dns::{ZoneName, record_name_to_relative};
use crate::finding::{Figure, FigureKind, FindingCode};

/// Said wherever a reason is missing: it is what a reviewer approves, not a formality.
pub(crate) const REASON_HINT: &str = "say why the finding is accepted (and what ends it): reviewers read it, and every view shows it";

/// What an entry's `name` is read against.
pub(super) enum Owner<'a> {
    Zone(&'a ZoneName),
    Site,
}

/// The valid entries; every broken one is reported and left out.
pub(super) fn check_accept(
    c: &mut Checker<'_>,
    entries: &[raw::Accept],
    owner: Owner<'_>,
) -> Vec<AcceptSpec> {
    let mut seen: HashMap<(FindingCode, String), Location> = HashMap::new();
    let mut out = Vec::new();
    for entry in entries {
        let Some(spec) = entry_spec(c, entry, &owner) else {
            continue;
        };
        let key = (spec.finding, spec.name.clone());
        if let Some(first) = seen.get(&key) {
            let d = c.error(
                entry.pos,
                format!(
                    "`{}` of `{}` is accepted twice: here and at {first}",
                    spec.finding, spec.name
                ),
            );
            d.label = Some("second acceptance".into());
            d.hint = Some("keep one entry, with the reason and `until` that hold".into());
            continue;
        }
        seen.insert(key, spec.location.clone());
        out.push(spec);
    }
    out
}

fn entry_spec(c: &mut Checker<'_>, entry: &raw::Accept, owner: &Owner<'_>) -> Option<AcceptSpec> {
    let finding = code(c, &entry.finding);
    let name = name(c, &entry.name, owner);
    let reason = reason(c, &entry.reason);
    let until = match &entry.until {
        Some(until) => Some(day(c, until)?),
        None => None,
    };
    let finding = finding?;
    let figure = match &entry.value {
        Some(value) => Some(figure(c, finding, value)?),
        None => None,
    };
    Some(AcceptSpec {
        finding,
        name: name?,
        reason: reason?,
        until,
        figure,
        location: c.location(entry.pos),
    })
}

/// The figure `value` records, read as the findings of `code` measure it.
fn figure(c: &mut Checker<'_>, code: FindingCode, value: &raw::Sp<String>) -> Option<Figure> {
    let Some(kind) = FigureKind::of(code) else {
        let d = c.error(
            value.pos,
            format!("`{code}` findings measure nothing an acceptance could record"),
        );
        d.label = Some("no figure to record".into());
        d.hint = Some("remove `value`: the acceptance covers the finding as it is".into());
        return None;
    };
    let figure = Figure::parse(kind, &value.value);
    if figure.is_none() {
        let d = c.error(
            value.pos,
            format!(
                "`value` `{}` is not a figure of a `{code}` finding",
                value.value
            ),
        );
        d.label = Some("not this code's figure".into());
        d.hint = Some(format!("write {}", kind.expected()));
    }
    figure
}

fn code(c: &mut Checker<'_>, written: &raw::Sp<String>) -> Option<FindingCode> {
    if let Ok(code) = written.value.trim().parse::<FindingCode>() {
        return Some(code);
    }
    let codes: Vec<&str> = FindingCode::ALL.iter().map(|code| code.as_str()).collect();
    let d = c.error(
        written.pos,
        format!("`{}` is not a finding code", written.value),
    );
    d.label = Some("unknown code".into());
    d.hint = Some(match did_you_mean(written.value.trim(), &codes) {
        Some(code) => format!("did you mean `{code}`?"),
        None => "write the code a finding's head line shows in brackets; docs/health.md#finding-codes lists them".into(),
    });
    None
}

fn name(c: &mut Checker<'_>, written: &raw::Sp<String>, owner: &Owner<'_>) -> Option<String> {
    if written.value.trim() == ACCEPT_WHOLE {
        return Some(ACCEPT_WHOLE.into());
    }
    let read = match owner {
        Owner::Zone(zone) => record_name_to_relative(&written.value, zone)
            .map_err(|err| (err.to_string(), err.hint())),
        Owner::Site => normalize_command(&written.value).map_err(|err| {
            let message = format!(
                "an acceptance in a site names a cron job's command or `@`: {}",
                err.message
            );
            (message, err.hint)
        }),
    };
    read.map_err(|(message, hint)| {
        c.error(written.pos, message).hint = hint;
    })
    .ok()
}

fn reason(c: &mut Checker<'_>, written: &raw::Sp<String>) -> Option<String> {
    let reason = written.value.trim();
    if reason.is_empty() {
        let d = c.error(written.pos, "the acceptance's `reason` is empty");
        d.hint = Some(REASON_HINT.into());
        return None;
    }
    Some(reason.to_string())
}

/// A calendar day written `YYYY-MM-DD`, and nothing else: `2026-2-1` or a time of day would
/// leave a reader unsure which day ends it.
fn day(c: &mut Checker<'_>, written: &raw::Sp<String>) -> Option<NaiveDate> {
    let text = written.value.trim();
    let shaped = text.len() == 10
        && text.bytes().enumerate().all(|(i, b)| {
            if i == 4 || i == 7 {
                b == b'-'
            } else {
                b.is_ascii_digit()
            }
        });
    match NaiveDate::parse_from_str(text, "%Y-%m-%d") {
        Ok(day) if shaped => Some(day),
        Ok(_) | Err(_) => {
            let d = c.error(
                written.pos,
                format!(
                    "`until` `{}` is not a day written YYYY-MM-DD",
                    written.value
                ),
            );
            d.label = Some("not a date".into());
            d.hint = Some(
                "write the last day the acceptance holds (UTC), e.g. `2026-12-31`, or remove `until` for no end"
                    .into(),
            );
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use crate::config::load_texts;
    use crate::finding::FindingCode;

    fn load(text: &str) -> Result<crate::config::model::Desired, Vec<String>> {
        load_texts(&[(PathBuf::from("z.yaml"), text.to_string())]).map_err(|d| {
            d.items
                .iter()
                .map(|d| {
                    let at = d
                        .location
                        .as_ref()
                        .map(ToString::to_string)
                        .unwrap_or_default();
                    format!("{at}: {}", d.message)
                })
                .collect()
        })
    }

    #[test]
    fn zone_names_are_read_as_record_names_and_site_names_as_commands() {
        let desired = load(concat!(
            "zone: example.com\n",
            "accept:\n",
            "  - { finding: dkim-key-too-short, name: Mail._DomainKey, reason: r }\n",
            "  - { finding: spf-invalid, name: example.com., reason: r, until: 2026-12-31 }\n",
            "  - { finding: domain-expiring, name: \"@\", reason: r }\n",
            "---\n",
            "site: shop\n",
            "accept:\n",
            "  - { finding: cron-every-minute, name: \"php   artisan  run\", reason: \" busy \" }\n",
        ))
        .unwrap();
        let names: Vec<(&str, &str)> = desired.zones[0]
            .accept
            .iter()
            .chain(&desired.sites[0].accept)
            .map(|a| (a.finding.as_str(), a.name.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                ("dkim-key-too-short", "mail._domainkey"),
                ("spf-invalid", "@"),
                ("domain-expiring", "@"),
                ("cron-every-minute", "php artisan run"),
            ]
        );
        assert_eq!(desired.sites[0].accept[0].reason, "busy");
        assert_eq!(
            desired.zones[0].accept[1]
                .until
                .map(|d| d.to_string())
                .as_deref(),
            Some("2026-12-31")
        );
        assert_eq!(
            desired.zones[0].accept[0].finding,
            FindingCode::DkimKeyTooShort
        );
    }

    #[test]
    fn broken_entries_are_each_reported_at_their_place() {
        let errors = load(concat!(
            "zone: example.com\n",
            "accept:\n",
            "  - { finding: dkim-key-to-short, name: a, reason: r }\n",
            "  - { finding: spf-invalid, name: a, reason: r, until: 2026-2-1 }\n",
            "  - { finding: spf-invalid, name: a, reason: r, until: 2026-02-30 }\n",
            "  - { finding: spf-invalid, name: a }\n",
            "  - { finding: spf-invalid, name: a, reason: \"  \" }\n",
            "  - { finding: spf-invalid, name: www.example.com, reason: r }\n",
            "  - { finding: mx-target-is-cname, name: A, reason: r }\n",
            "  - { finding: mx-target-is-cname, name: a.example.com., reason: r }\n",
            "---\n",
            "site: shop\n",
            "accept:\n",
            "  - { finding: cron-never-runs, name: echo hi, reason: r }\n",
        ))
        .unwrap_err();
        assert_eq!(
            errors,
            [
                "z.yaml:3:16: `dkim-key-to-short` is not a finding code",
                "z.yaml:4:56: `until` `2026-2-1` is not a day written YYYY-MM-DD",
                "z.yaml:5:56: `until` `2026-02-30` is not a day written YYYY-MM-DD",
                "z.yaml:6:5: an acceptance has no `reason`",
                "z.yaml:7:46: the acceptance's `reason` is empty",
                "z.yaml:8:35: `www.example.com` is not a valid domain name: it ends in the zone name but has no final dot, so it would mean `www.example.com.example.com`; write `www` or `www.example.com.`",
                "z.yaml:10:5: `mx-target-is-cname` of `a` is accepted twice: here and at z.yaml:9:5",
                "z.yaml:14:39: an acceptance in a site names a cron job's command or `@`: command `echo hi` does not start with `php` or `wp`",
            ]
        );
    }

    #[test]
    fn a_value_is_the_figure_its_code_measures() {
        use crate::finding::{DmarcPolicy, Figure};
        let desired = load(concat!(
            "zone: example.com\n",
            "accept:\n",
            "  - { finding: spf-too-many-lookups, name: \"@\", reason: r, value: 11 }\n",
            "  - { finding: dmarc-report-unauthorized, name: _dmarc, reason: r, value: Quarantine }\n",
            "  - { finding: dkim-key-weak, name: mail._domainkey, reason: r, value: \"1024\" }\n",
            "  - { finding: domain-expiring, name: \"@\", reason: r, value: 2026-02-01 }\n",
            "  - { finding: mx-target-is-cname, name: \"@\", reason: r }\n",
        ))
        .unwrap();
        let figures: Vec<Option<Figure>> =
            desired.zones[0].accept.iter().map(|a| a.figure).collect();
        assert_eq!(
            figures,
            [
                Some(Figure::Lookups(11)),
                Some(Figure::DmarcPolicy(DmarcPolicy::Quarantine)),
                Some(Figure::KeyBits(1024)),
                chrono::NaiveDate::from_ymd_opt(2026, 2, 1).map(Figure::Expires),
                None,
            ]
        );
        let errors = load(concat!(
            "zone: example.com\n",
            "accept:\n",
            "  - { finding: spf-too-many-lookups, name: \"@\", reason: r, value: eleven }\n",
            "  - { finding: dmarc-report-unauthorized, name: _dmarc, reason: r, value: p=none }\n",
            "  - { finding: domain-expiring, name: \"@\", reason: r, value: 2026-2-1 }\n",
            "  - { finding: mx-target-is-cname, name: \"@\", reason: r, value: 1 }\n",
        ))
        .unwrap_err();
        assert_eq!(
            errors,
            [
                "z.yaml:3:67: `value` `eleven` is not a figure of a `spf-too-many-lookups` finding",
                "z.yaml:4:75: `value` `p=none` is not a figure of a `dmarc-report-unauthorized` finding",
                "z.yaml:5:62: `value` `2026-2-1` is not a figure of a `domain-expiring` finding",
                "z.yaml:6:65: `mx-target-is-cname` findings measure nothing an acceptance could record",
            ]
        );
    }
}
