//! DMARC (RFC 7489) at `_dmarc` names: one record, `v=DMARC1` first, a valid `p=`, report
//! addresses as `mailto:` URIs, and another domain's consent to receive the reports (§7.1).

use crate::config::model::{RecordSpec, ZoneSpec};
use crate::dns::RecordType;
use crate::plan::finding_code::FindingCode;

use super::account::{Account, Held, by_name, host};
use super::{Out, tags};

const POLICIES: &[&str] = &["none", "quarantine", "reject"];

pub(super) fn findings(account: &Account<'_>, spec: &ZoneSpec, out: &mut Out<'_>) {
    let at_dmarc = |r: &RecordSpec| {
        let first = r.name.split('.').next().unwrap_or_default();
        first.eq_ignore_ascii_case("_dmarc")
    };
    for (name, records) in by_name(spec, RecordType::TXT, at_dmarc) {
        let domain = name.strip_prefix("_dmarc.").unwrap_or(&name).to_string();
        let mut valid = Vec::new();
        for record in records {
            if let Some(tags) = version_first(&name, record, out) {
                valid.push((record, tags));
            }
        }
        if let [_, (second, _), ..] = valid.as_slice() {
            out.push(
                FindingCode::DmarcMultiple,
                second,
                format!(
                    "{name} has {} DMARC records: receivers ignore DMARC for {domain} as if it published none, so the policy is not applied; keep one `v=DMARC1` record",
                    valid.len()
                ),
            );
            continue;
        }
        if let Some((record, tags)) = valid.first() {
            policy(&name, record, tags, out);
            reports(account, &domain, record, tags, out);
        }
    }
}

/// The tags of a record that starts with `v=DMARC1`; a finding for any other TXT at `_dmarc`
/// (receivers discard it: a policy written there is not applied).
fn version_first(
    name: &str,
    record: &RecordSpec,
    out: &mut Out<'_>,
) -> Option<Vec<(String, String)>> {
    let parsed = tags::parse(&record.canonical);
    let first_is_version = parsed
        .as_ref()
        .is_ok_and(|t| t.first().is_some_and(|(n, v)| n == "v" && v == "DMARC1"));
    if first_is_version {
        return parsed.ok();
    }
    let why = match &parsed {
        Err(why) => why.clone(),
        Ok(_) => "it does not start with `v=DMARC1` (exactly, in capitals)".into(),
    };
    out.push(
        FindingCode::DmarcInvalid,
        record,
        format!(
            "the DMARC record at {name} is not one receivers read: {why}; they discard it, so no policy applies and no reports are sent; start it with `v=DMARC1;` and write `tag=value` pairs separated by `;`"
        ),
    );
    None
}

fn policy(name: &str, record: &RecordSpec, tags: &[(String, String)], out: &mut Out<'_>) {
    let problem = match tags::get(tags, "p") {
        None => "has no `p=`".to_string(),
        Some(p) if POLICIES.contains(&p.to_ascii_lowercase().as_str()) => return,
        Some(p) => format!("has `p={p}`, not none, quarantine or reject"),
    };
    let with_rua = if tags::get(tags, "rua").is_some() {
        " (with `rua=`, some treat it as `p=none`)"
    } else {
        ""
    };
    out.push(
        FindingCode::DmarcPolicyInvalid,
        record,
        format!(
            "the DMARC record at {name} {problem}: receivers ignore the record{with_rua}, so spoofed mail is not quarantined or rejected; set `p=none`, `p=quarantine` or `p=reject`"
        ),
    );
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
                "`{key}={uri}` in the DMARC record of {domain} is not a `mailto:` address: receivers send no reports there; write it as `mailto:user@domain`"
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
    let (found, complete) = match account.records(&consent, RecordType::TXT) {
        Held::Outside => (false, None),
        Held::Files { records, complete } => (
            records.iter().any(|r| r.canonical.starts_with("v=DMARC1")),
            Some(complete),
        ),
    };
    match (found, complete) {
        (true, _) => {}
        (false, Some(true)) => out.push(
            FindingCode::DmarcReportUnauthorized,
            record,
            format!(
                "`{key}` sends {domain}'s DMARC reports to {other}, whose files have no `{consent}` TXT record `v=DMARC1` (RFC 7489 §7.1): receivers send no reports there; add that record to {other}'s zone"
            ),
        ),
        (false, place) => {
            let whose = match place {
                None => "outside the account",
                Some(_) => "whose zone keeps TXT records its files don't show (`ignore` rules or `prune: false`)",
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
