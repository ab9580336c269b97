//! The findings of one domain's registration. Signals are comparisons (our DS against the
//! registry's, registry nameservers against what resolvers see) and clear values
//! (`auto_renew: false`); a state word dnscron does not know is shown as information.

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::config::model::ZoneSpec;
use dnscron_api::payload;

use super::Registration;
use super::values::{date, ds_set, flag, shown, word};
use crate::finding::Figure;
use crate::finding::FindingCode;
use crate::plan::model::{Finding, TargetKind, TargetRef};
use crate::plan::norm::host_set;

/// State words that mean "nothing under way" and "something under way".
const SETTLED: &[&str] = &[
    "synced",
    "settled",
    "ok",
    "active",
    "live",
    "done",
    "complete",
    "completed",
];
const PENDING: &[&str] = &[
    "pending",
    "propagating",
    "in_progress",
    "updating",
    "queued",
    "processing",
];
const NO_TRANSFER: &[&str] = &["", "none", "no", "false", "completed", "complete", "done"];
const TRANSFER: &[&str] = &[
    "pending",
    "in_progress",
    "requested",
    "initiated",
    "started",
    "transferring",
    "awaiting_approval",
    "pending_approval",
    "incoming",
    "outgoing",
    "transfer_in",
    "transfer_out",
];
const DNSSEC_WORDS: &[&str] = &[
    "", "active", "inactive", "on", "off", "enabled", "disabled", "none", "unsigned", "signed",
    "true", "false", "yes", "no",
];

struct Out<'a> {
    spec: &'a ZoneSpec,
    findings: Vec<Finding>,
}

impl Out<'_> {
    fn push(&mut self, code: FindingCode, message: String) {
        let declared_at = match &self.spec.registrar {
            Some(r) => r.location.to_string(),
            None => self.spec.location.to_string(),
        };
        let target = TargetRef {
            kind: TargetKind::Domain,
            name: self.spec.zone.to_string(),
        };
        self.findings
            .push(Finding::new(code, target, message).declared_at(declared_at));
    }
}

pub(super) fn findings(spec: &ZoneSpec, reg: &Registration, now: DateTime<Utc>) -> Vec<Finding> {
    let mut out = Out {
        spec,
        findings: Vec::new(),
    };
    let Some(listing) = &reg.listing else {
        if spec.registrar.is_some() {
            out.push(
                FindingCode::RegistrarNotHere, format!( "the file sets `registrar` expectations but GET /domains does not list {}: the domain is not registered with this account, so they can't be checked; remove the `registrar` key or register the domain here",
                    spec.zone
                ),
            );
        }
        return out.findings;
    };
    if let Some(registrar) = &reg.registrar {
        dnssec(&mut out, listing, registrar);
        nameservers(&mut out, registrar);
        expectation(&mut out, "lock", registrar.lock.as_ref(), |r| r.lock);
        expectation(
            &mut out,
            "whois_privacy",
            registrar.whois_privacy.as_ref(),
            |r| r.whois_privacy,
        );
    }
    transfer(&mut out, listing);
    expiry(&mut out, listing, now);
    expectation(&mut out, "auto_renew", listing.auto_renew.as_ref(), |r| {
        r.auto_renew
    });
    out.findings
}

fn list(set: &BTreeSet<String>) -> String {
    if set.is_empty() {
        "none".into()
    } else {
        set.iter().cloned().collect::<Vec<_>>().join(", ")
    }
}

fn dnssec(out: &mut Out<'_>, listing: &payload::Domain, registrar: &payload::Registrar) {
    let state = registrar.dnssec.state.as_ref().or(listing.dnssec.as_ref());
    if let Some(w) = state.and_then(word)
        && !DNSSEC_WORDS.contains(&w.as_str())
    {
        let shown_state = state.map(shown).unwrap_or_default();
        out.push(
            FindingCode::DnssecStateUnknown,
            format!(
                "DNSSEC state `{shown_state}` is not a value dnscron knows; it is shown, not judged"
            ),
        );
    }
    let active = payload::dnssec_is_active(state);
    let ours = ds_set(registrar.dnssec.our_ds.as_ref());
    let registry = ds_set(registrar.dnssec.registry_ds.as_ref());
    let domain = &out.spec.zone;
    let both = format!("our DS: {}; registry DS: {}", list(&ours), list(&registry));
    if !active {
        if !registry.is_empty() {
            out.push(
                FindingCode::DnssecDsLeftBehind, format!("validating resolvers will fail for {domain}: DNSSEC is off for the zone but the registry still publishes a DS ({both}); remove the DS at the registrar (portal: DNSSEC) or turn DNSSEC back on"),
            );
        }
        return;
    }
    if ours == registry {
        return;
    }
    if !registry.is_empty() && ours.is_disjoint(&registry) {
        out.push(
            FindingCode::DnssecDsMismatch, format!("validating resolvers will fail for {domain}: no DS at the registry matches the zone's keys ({both}); publish our DS at the registrar (portal: DNSSEC), or turn DNSSEC off there until they match"),
        );
    } else if registry.is_empty() {
        out.push(
            FindingCode::DnssecDsMissing, format!("DNSSEC is on for {domain} but the registry publishes no DS, so resolvers treat the zone as unsigned ({both}); publish our DS at the registrar (portal: DNSSEC)"),
        );
    } else {
        out.push(
            FindingCode::DnssecDsRollover, format!("the DS sets of {domain} differ but share a key, so resolvers still validate (a key rollover?) ({both}); finish the rollover at the registrar so that they match"),
        );
    }
}

fn nameservers(out: &mut Out<'_>, registrar: &payload::Registrar) {
    let ns = &registrar.nameservers;
    let registry = host_set(&ns.registry);
    let resolver = host_set(&ns.resolver);
    let state_word = ns.state.as_ref().and_then(word);
    let state_shown = ns.state.as_ref().map(shown).unwrap_or_default();
    let live_and_pending = format!(
        "resolvers still see {} (live), the registry delegates to {} (pending)",
        list(&resolver),
        list(&registry)
    );
    if registry != resolver && !resolver.is_empty() {
        out.push(
            FindingCode::DelegationChanging, format!("the delegation of {} is changing: {live_and_pending}; resolvers follow within the old NS records' TTL (up to 2 days), so both sets must serve the zone until then", out.spec.zone),
        );
    } else if let Some(w) = &state_word
        && PENDING.contains(&w.as_str())
    {
        out.push(
            FindingCode::NameserversUnsettled, format!("the nameserver state of {} is `{state_shown}`, not settled: registry and resolvers both list {}, but the registrar has not finished the change; plan again later", out.spec.zone, list(&registry)),
        );
    }
    if let Some(w) = &state_word
        && !w.is_empty()
        && !SETTLED.contains(&w.as_str())
        && !PENDING.contains(&w.as_str())
    {
        out.push(
            FindingCode::NameserverStateUnknown, format!("nameserver state `{state_shown}` is not a value dnscron knows; registry: {}, resolver: {}", list(&registry), list(&resolver)),
        );
    }
}

fn transfer(out: &mut Out<'_>, listing: &payload::Domain) {
    let Some(value) = &listing.transfer_state else {
        return;
    };
    let Some(w) = word(value) else {
        return;
    };
    if NO_TRANSFER.contains(&w.as_str()) {
        return;
    }
    let (code, message) = if TRANSFER.contains(&w.as_str()) {
        (
            FindingCode::TransferUnderWay,
            format!(
                "a transfer of {} is under way (transfer_state `{}`): registrar changes may be refused and the new registrar may change the nameservers; check the transfer in the portal",
                out.spec.zone,
                shown(value)
            ),
        )
    } else {
        (
            FindingCode::TransferStateUnknown,
            format!(
                "transfer_state `{}` is not a value dnscron knows; it is shown, not judged",
                shown(value)
            ),
        )
    };
    out.push(code, message);
}

fn expiry(out: &mut Out<'_>, listing: &payload::Domain, now: DateTime<Utc>) {
    let renews = listing.auto_renew.as_ref().map(|v| (v, flag(v)));
    match renews {
        Some((_, Some(true))) | None => return,
        Some((v, None)) => {
            out.push(
                FindingCode::AutoRenewUnknown, format!("auto_renew `{}` is not a yes/no value dnscron knows, so the expiry is not checked", shown(v)),
            );
            return;
        }
        Some((_, Some(false))) => {}
    }
    let days = out.spec.expiry_warning_days();
    let Some(raw) = &listing.expiry else {
        return;
    };
    let Some(at) = date(raw) else {
        out.push(
            FindingCode::ExpiryUnreadable, format!("auto-renew is off and the expiry `{}` is not a date dnscron reads; check it in the portal", shown(raw)),
        );
        return;
    };
    // The date, never "in N days": a message that moves with the clock would change the drift
    // issue's digest every day (docs/ci.md, "Drift").
    let left = (at - now).num_days();
    let day = at.format("%Y-%m-%d");
    let (code, message) = if at <= now {
        (
            FindingCode::DomainExpired,
            format!(
                "{} expired on {day} and auto-renew is off: renew it in the portal now (the domain stops resolving)",
                out.spec.zone
            ),
        )
    } else if left < i64::from(days) {
        (
            FindingCode::DomainExpiring,
            format!(
                "{} expires on {day}, within the {days}-day warning, and auto-renew is off: renew it or turn auto-renew on in the portal",
                out.spec.zone
            ),
        )
    } else {
        return;
    };
    out.push(code, message);
    if code == FindingCode::DomainExpiring
        && let Some(last) = out.findings.last_mut()
    {
        // An acceptance of the expiry is of this day's (`plan::accept`).
        last.figure = Some(Figure::Expires(at.date_naive()));
    }
}

/// A value the file's `registrar` key expects, checked against live.
fn expectation(
    out: &mut Out<'_>,
    key: &str,
    live: Option<&Value>,
    want: impl Fn(&crate::config::model::RegistrarExpectations) -> Option<bool>,
) {
    let Some((want, at)) = out
        .spec
        .registrar
        .as_ref()
        .and_then(|r| Some((want(r)?, r.location.clone())))
    else {
        return;
    };
    let on_off = |b: bool| if b { "on" } else { "off" };
    match live.map(|v| (v, flag(v))) {
        Some((_, Some(have))) if have == want => {}
        Some((_, Some(have))) => out.push(
            FindingCode::RegistrarSettingDiffers, format!("{key} is {} at the registrar but {at} expects it {}: change it in the portal (dnscron never writes registrar settings), or change the file", on_off(have), on_off(want)),
        ),
        Some((v, None)) => out.push(
            FindingCode::RegistrarSettingUnknown, format!("{key} is `{}`, not a yes/no value dnscron knows; {at} expects it {}", shown(v), on_off(want)),
        ),
        None => out.push(
            FindingCode::RegistrarSettingMissing, format!("the server did not return {key}; {at} expects it {}", on_off(want)),
        ),
    }
}
