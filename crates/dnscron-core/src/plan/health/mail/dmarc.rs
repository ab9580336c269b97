//! DMARC (RFC 7489) at `_dmarc` names, judged as receivers discover the policy (§6.6.3): TXT
//! records that don't start with `v=DMARC1` are discarded (step 4), several that do mean no
//! policy (step 5), and the one left must be a valid tag list (§6.3, DKIM's syntax: no tag
//! twice) with a valid `p=` and, if present, `sp=` (step 6). Then its report addresses: `mailto:`
//! URIs, and another domain's consent to receive the reports (§7.1).

use crate::config::model::{RecordSpec, ZoneSpec};
use crate::dns::RecordType;
use crate::finding::FindingCode;
use crate::finding::{DmarcPolicy, Figure, FigureKind};
use crate::plan::model::Finding;
use dnscron_api::untrusted::escape;

use super::account::{Account, Held, by_name, host};
use super::{Out, tags};

const POLICIES: &[&str] = &["none", "quarantine", "reject"];
const OCTODNS: &str = "`\\;` is octoDNS's escape for `;`; in dnscron files write `;`";
const NO_POLICY: &str = "so no policy applies and no reports are sent";

pub(super) fn findings(account: &Account<'_>, spec: &ZoneSpec, out: &mut Out<'_>) {
    let at_dmarc = |r: &RecordSpec| {
        let first = r.name.split('.').next().unwrap_or_default();
        first.eq_ignore_ascii_case("_dmarc")
    };
    for (name, records) in by_name(spec, RecordType::TXT, at_dmarc) {
        let domain = name.strip_prefix("_dmarc.").unwrap_or(&name).to_string();
        let (kept, discarded): (Vec<&RecordSpec>, Vec<&RecordSpec>) = records
            .into_iter()
            .partition(|r| starts_with_version(&r.canonical));
        match kept.as_slice() {
            [] => {
                for record in discarded {
                    unread(&name, record, out);
                }
            }
            [record] => {
                for other in discarded {
                    ignored(&name, other, out);
                }
                policy_record(account, &name, &domain, record, out);
            }
            [_, second, ..] => out.push(
                FindingCode::DmarcMultiple,
                second,
                format!(
                    "{name} has {} DMARC records: receivers ignore DMARC for {domain} as if it published none, so the policy is not applied (RFC 7489 §6.6.3); keep one `v=DMARC1` record",
                    kept.len()
                ),
            ),
        }
    }
}

/// Marks each of `findings` (a zone's DMARC findings) whose code measures the policy with the
/// `p=` of the one DMARC record at its name, so that an acceptance records the policy it
/// accepted and a weaker one later is not covered.
pub(super) fn measure(spec: &ZoneSpec, findings: &mut [Finding]) {
    for finding in findings.iter_mut() {
        if FigureKind::of(finding.code) != Some(FigureKind::DmarcPolicy) {
            continue;
        }
        let Some(at) = finding.record.as_ref().map(|r| r.name.as_str()) else {
            continue;
        };
        let mut kept = spec
            .records
            .iter()
            .filter(|r| r.rtype == RecordType::TXT && r.name.eq_ignore_ascii_case(at))
            .filter(|r| starts_with_version(&r.canonical));
        let (Some(record), None) = (kept.next(), kept.next()) else {
            continue;
        };
        let policy = tags::parse(&record.canonical)
            .ok()
            .and_then(|tags| tags::get(&tags, "p").and_then(DmarcPolicy::parse));
        if let Some(policy) = policy {
            finding.figure = Some(Figure::DmarcPolicy(policy));
        }
    }
}

/// Whether receivers keep the record (§6.6.3 step 4): its first tag is `v=DMARC1`, exactly
/// (`v=DMARC1x` is another version, §6.4's grammar ends the tag there).
pub(super) fn starts_with_version(text: &str) -> bool {
    let first = text.split(';').next().unwrap_or_default();
    first
        .split_once('=')
        .is_some_and(|(n, v)| n.trim() == "v" && v.trim() == "DMARC1")
}

/// A TXT at `_dmarc` receivers discard, with no DMARC record beside it: no policy applies.
fn unread(name: &str, record: &RecordSpec, out: &mut Out<'_>) {
    if record.canonical.contains("\\;") {
        let effect = "the record does not start with `v=DMARC1` and they discard it";
        return octodns_escape(name, record, effect, out);
    }
    let why = match tags::parse(&record.canonical) {
        Err(why) => why,
        Ok(_) => "it does not start with `v=DMARC1` (exactly, in capitals)".into(),
    };
    out.push(
        FindingCode::DmarcInvalid,
        record,
        format!(
            "the DMARC record at {name} is not one receivers read: {why}; they discard it, {NO_POLICY}; start it with `v=DMARC1;` and write `tag=value` pairs separated by `;`"
        ),
    );
}

/// A record that holds `\;`: octoDNS's escape, which receivers read as part of a tag's value.
fn octodns_escape(name: &str, record: &RecordSpec, effect: &str, out: &mut Out<'_>) {
    out.push(
        FindingCode::DmarcOctodnsEscape,
        record,
        format!(
            "the DMARC record at {name} separates its tags with `\\;`: {OCTODNS}. Receivers read the `\\` as part of the value before it, so {effect}, {NO_POLICY} (RFC 7489 §6.6.3)"
        ),
    );
}

/// A TXT beside the DMARC record that receivers discard: harmless, said in case it was meant.
fn ignored(name: &str, record: &RecordSpec, out: &mut Out<'_>) {
    let escaped = if record.canonical.contains("\\;") {
        format!(" ({OCTODNS})")
    } else {
        String::new()
    };
    out.push(
        FindingCode::DmarcOtherTxtIgnored,
        record,
        format!(
            "a TXT record at {name} does not start with `v=DMARC1`{escaped}: receivers discard it and apply the DMARC record beside it (RFC 7489 §6.6.3); remove it unless something else reads it"
        ),
    );
}

/// The one record receivers keep: a tag list, no tag twice, valid policies, report addresses.
fn policy_record(
    account: &Account<'_>,
    name: &str,
    domain: &str,
    record: &RecordSpec,
    out: &mut Out<'_>,
) {
    if record.canonical.contains("\\;") {
        let effect = "the tags after the first are not what they seem and the record is ignored";
        return octodns_escape(name, record, effect, out);
    }
    let tags = match tags::parse(&record.canonical) {
        Ok(tags) => tags,
        Err(why) => {
            out.push(
                FindingCode::DmarcInvalid,
                record,
                format!(
                    "the DMARC record at {name} is not one receivers read: {why}; they discard it, {NO_POLICY}; write `tag=value` pairs separated by `;`"
                ),
            );
            return;
        }
    };
    let twice = tags::duplicates(&tags);
    if !twice.is_empty() {
        let names: Vec<String> = twice.iter().map(|n| format!("`{}=`", escape(n))).collect();
        out.push(
            FindingCode::DmarcDuplicateTag,
            record,
            format!(
                "the DMARC record at {name} has {} more than once: a tag list with a tag twice is invalid as a whole (RFC 7489 §6.3, RFC 6376 §3.2), so receivers ignore the record, {NO_POLICY}; keep each tag once",
                names.join(", ")
            ),
        );
        return;
    }
    policy(name, record, &tags, out);
    reports(account, domain, record, &tags, out);
}

fn policy(name: &str, record: &RecordSpec, tags: &[(String, String)], out: &mut Out<'_>) {
    let with_rua = if tags::get(tags, "rua").is_some() {
        " (with `rua=`, some treat it as `p=none`)"
    } else {
        ""
    };
    let problem = match tags::get(tags, "p") {
        None => Some("has no `p=`".to_string()),
        Some(p) if valid_policy(p) => None,
        Some(p) => Some(format!(
            "has `p={}`, not none, quarantine or reject",
            escape(p)
        )),
    };
    if let Some(problem) = problem {
        out.push(
            FindingCode::DmarcPolicyInvalid,
            record,
            format!(
                "the DMARC record at {name} {problem}: receivers ignore the record{with_rua}, so spoofed mail is not quarantined or rejected (RFC 7489 §6.6.3); set `p=none`, `p=quarantine` or `p=reject`"
            ),
        );
    }
    if let Some(sp) = tags::get(tags, "sp").filter(|sp| !valid_policy(sp)) {
        out.push(
            FindingCode::DmarcSubdomainPolicyInvalid,
            record,
            format!(
                "the DMARC record at {name} has `sp={}`, not none, quarantine or reject: receivers ignore the whole record{with_rua}, not only for subdomains, so spoofed mail is not quarantined or rejected (RFC 7489 §6.3, §6.6.3); set `sp=` to none, quarantine or reject, or remove it to apply `p=` to subdomains",
                escape(sp)
            ),
        );
    }
}

fn valid_policy(value: &str) -> bool {
    POLICIES.contains(&value.to_ascii_lowercase().as_str())
}

fn reports(
    account: &Account<'_>,
    domain: &str,
    record: &RecordSpec,
    tags: &[(String, String)],
    out: &mut Out<'_>,
) {
    for key in ["rua", "ruf"] {
        let Some(list) = tags::get(tags, key) else {
            continue;
        };
        for uri in list.split(',').map(str::trim).filter(|u| !u.is_empty()) {
            report_uri(account, domain, record, key, uri, out);
        }
    }
}

fn report_uri(
    account: &Account<'_>,
    domain: &str,
    record: &RecordSpec,
    key: &str,
    uri: &str,
    out: &mut Out<'_>,
) {
    let address = uri
        .get(..7)
        .filter(|s| s.eq_ignore_ascii_case("mailto:"))
        .map(|_| &uri[7..]);
    let other = address
        .map(|a| a.split('!').next().unwrap_or(a))
        .and_then(|a| a.rsplit_once('@'))
        .and_then(|(local, d)| (!local.is_empty()).then(|| host(d)).flatten());
    let Some(other) = other else {
        out.push(
            FindingCode::DmarcReportUriNotMailto,
            record,
            format!(
                "`{key}={}` in the DMARC record of {domain} is not a `mailto:` address: receivers send no reports there; write it as `mailto:user@domain`",
                escape(uri)
            ),
        );
        return;
    };
    // The zone stands for the organizational domain (§3.2) that needs no consent: reports of
    // `shop.example.com` to `example.com` are within it.
    let zone = account
        .zone_of(domain)
        .map(|z| z.zone.as_str())
        .unwrap_or(domain);
    if other == zone || other.ends_with(&format!(".{zone}")) {
        return;
    }
    let consent = format!("{domain}._report._dmarc.{other}");
    match consent_in_files(account, &consent, &other) {
        Consent::Given => {}
        Consent::Missing => out.push(
            FindingCode::DmarcReportUnauthorized,
            record,
            format!(
                "`{key}` sends {domain}'s DMARC reports to {other}, whose files have no `{consent}` (or `*._report._dmarc.{other}`) TXT record `v=DMARC1` (RFC 7489 §7.1): receivers send no reports there; add that record to {other}'s zone"
            ),
        ),
        Consent::Unseen(place) => {
            let whose = match place {
                Place::Outside => "outside the account",
                Place::Incomplete => {
                    "whose zone keeps TXT records its files don't show (`ignore` rules or `prune: false`)"
                }
            };
            out.push(
                FindingCode::DmarcReportAuthorizationUnseen,
                record,
                format!(
                    "`{key}` sends {domain}'s DMARC reports to {other}, {whose}: receivers send them only if {other} publishes a `{consent}` TXT record `v=DMARC1` (RFC 7489 §7.1), which the files can't show; make sure it does"
                ),
            );
        }
    }
}

enum Consent {
    Given,
    Missing,
    Unseen(Place),
}

enum Place {
    Outside,
    Incomplete,
}

/// The consent record for reports at `consent`, or the wildcard `*._report._dmarc.OTHER` a
/// domain that takes anyone's reports publishes (§7.1), as the files show them. The wildcard
/// answers only where the name itself has no TXT record, as DNS would.
fn consent_in_files(account: &Account<'_>, consent: &str, other: &str) -> Consent {
    let wildcard = format!("*._report._dmarc.{other}");
    let mut complete = true;
    for name in [consent, wildcard.as_str()] {
        match account.records(name, RecordType::TXT) {
            Held::Outside => return Consent::Unseen(Place::Outside),
            Held::Files {
                records,
                complete: c,
            } => {
                if records.iter().any(|r| starts_with_version(&r.canonical)) {
                    return Consent::Given;
                }
                complete &= c;
                if !records.is_empty() {
                    break;
                }
            }
        }
    }
    if complete {
        Consent::Missing
    } else {
        Consent::Unseen(Place::Incomplete)
    }
}
