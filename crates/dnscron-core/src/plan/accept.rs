//! The files' `accept:` entries judged against a plan's findings, once the findings are final
//! (docs/health.md#accepting-a-finding). A finding matches an entry of its own zone or site with
//! its code and name; the entry's `until` is judged against the day the plan was made, which the
//! plan records, so a reviewed plan keeps the judgement it was reviewed with. An entry past its
//! day accepts nothing and says so; an entry that matches nothing is only called unused where
//! the plan looked for its finding.

use chrono::NaiveDate;

use crate::config::model::{ACCEPT_WHOLE, AcceptSpec, Desired, SiteSpec, ZoneSpec};

use super::model::{Acceptance, Finding, TargetKind, TargetRef};
use crate::finding::Figure;
use crate::finding::{Basis, FindingCode};

/// Which findings were looked for, so that an entry is only called unused where its finding
/// would have shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Looked {
    /// A plan that read its targets' live state and registrations: every finding of the
    /// desired state it holds, those judged from DNS answers only when `dns` (a resolver was
    /// given). A plan limited to a change holds only the targets it read.
    Everything { dns: bool },
    /// Some findings only (`validate` and `check` judge the files alone, apply's own re-plan
    /// reads no registrations): an entry that matches nothing may match what was not looked for.
    Partly,
}

/// Marks every finding an entry accepts on `today`, and adds a warning per entry past its day
/// (`acceptance-expired`) and per entry that matched nothing where `looked` could tell
/// (`acceptance-unused`). `today: None` (a plan time that does not parse) can't judge an
/// `until`: such entries accept nothing and are not called expired.
pub fn judge_acceptances(
    findings: &mut Vec<Finding>,
    desired: &Desired,
    today: Option<NaiveDate>,
    looked: Looked,
) {
    let mut notes = Vec::new();
    for zone in &desired.zones {
        let owner = Owner::Zone(zone);
        for entry in &zone.accept {
            notes.extend(judge_entry(findings, &owner, entry, today, looked));
        }
    }
    for site in &desired.sites {
        let owner = Owner::Site(site);
        for entry in &site.accept {
            notes.extend(judge_entry(findings, &owner, entry, today, looked));
        }
    }
    findings.extend(notes);
}

/// Whose `accept:` an entry is.
enum Owner<'a> {
    Zone(&'a ZoneSpec),
    Site(&'a SiteSpec),
}

impl Owner<'_> {
    fn target(&self) -> TargetRef {
        match self {
            Owner::Zone(zone) => TargetRef {
                kind: TargetKind::Zone,
                name: zone.zone.to_string(),
            },
            Owner::Site(site) => TargetRef {
                kind: TargetKind::Site,
                name: site.slug.clone(),
            },
        }
    }

    /// Whether `finding` is one `entry` names: same code, same zone (or its domain) or site,
    /// same name.
    fn names(&self, entry: &AcceptSpec, finding: &Finding) -> bool {
        if finding.code != entry.finding {
            return false;
        }
        match self {
            Owner::Zone(zone) => {
                let ours = matches!(finding.target.kind, TargetKind::Zone | TargetKind::Domain)
                    && finding.target.name == zone.zone.as_str();
                let name = finding
                    .record
                    .as_ref()
                    .map_or(ACCEPT_WHOLE, |r| r.name.as_str());
                ours && name == entry.name
            }
            Owner::Site(site) => {
                let ours =
                    finding.target.kind == TargetKind::Site && finding.target.name == site.slug;
                ours && (entry.name == ACCEPT_WHOLE
                    || job_command(site, finding) == Some(&entry.name))
            }
        }
    }
}

/// The command of the job a site's finding is declared at.
fn job_command<'s>(site: &'s SiteSpec, finding: &Finding) -> Option<&'s String> {
    let at = finding.declared_at.as_deref()?;
    site.cron
        .iter()
        .flatten()
        .find(|job| job.location.to_string() == at)
        .map(|job| &job.command)
}

/// Accepts what `entry` names, or says why it accepts nothing.
fn judge_entry(
    findings: &mut [Finding],
    owner: &Owner<'_>,
    entry: &AcceptSpec,
    today: Option<NaiveDate>,
    looked: Looked,
) -> Option<Finding> {
    let holds = match (entry.until, today) {
        (None, _) => true,
        (Some(until), Some(today)) => today <= until,
        (Some(_), None) => false,
    };
    let mut matched = false;
    let mut outgrown = None;
    for finding in findings.iter_mut().filter(|f| owner.names(entry, f)) {
        matched = true;
        match covers(entry, finding, today) {
            Cover::Yes if holds && finding.accepted.is_none() => {
                finding.accepted = Some(Acceptance {
                    reason: entry.reason.clone(),
                    until: entry.until,
                    declared_at: entry.location.to_string(),
                    figure: entry.figure,
                });
            }
            Cover::Yes => {}
            Cover::Worse { accepted, now } => outgrown = Some((accepted, now)),
            Cover::ExpiryReached(day) => {
                outgrown = Some((Figure::Expires(day), Figure::Expires(day)))
            }
        }
    }
    let what = format!("`{}` of `{}`", entry.finding, entry.name);
    if let Some((accepted, now)) = outgrown
        && holds
    {
        return Some(note(
            owner,
            entry,
            FindingCode::AcceptanceOutgrown,
            outgrown_message(&what, entry, accepted, now),
        ));
    }
    if let (Some(until), Some(today)) = (entry.until, today)
        && today > until
    {
        let message = format!(
            "the acceptance of {what} expired on {until} (\"{}\"), so {}; fix what the finding is about, or extend `until` if the reason still holds",
            entry.reason,
            if matched {
                "the finding counts again"
            } else {
                "it would not accept the finding any more (none was found)"
            }
        );
        return Some(note(owner, entry, FindingCode::AcceptanceExpired, message));
    }
    (!matched && could_see(entry.finding, looked)).then(|| {
        let message = format!(
            "the acceptance of {what} matches no finding of this plan: what it accepted is gone or the name differs from the finding's; remove the entry, or write the name the finding's head line shows"
        );
        note(owner, entry, FindingCode::AcceptanceUnused, message)
    })
}

/// Whether an entry covers a finding it names, on `today`.
enum Cover {
    Yes,
    /// The finding measures worse than the entry records.
    Worse {
        accepted: Figure,
        now: Figure,
    },
    /// An expiry finding's day has come: its acceptance ends on it.
    ExpiryReached(NaiveDate),
}

/// An entry covers what it accepted: a finding no worse than its figure (an entry without one,
/// written before figures were recorded, covers any), and an expiry only before its day.
fn covers(entry: &AcceptSpec, finding: &Finding, today: Option<NaiveDate>) -> Cover {
    if let (Some(Figure::Expires(day)), Some(today)) = (finding.figure, today)
        && today >= day
    {
        return Cover::ExpiryReached(day);
    }
    match (entry.figure, finding.figure) {
        (Some(accepted), Some(now)) if accepted.worse(now) => Cover::Worse { accepted, now },
        (Some(_) | None, Some(_) | None) => Cover::Yes,
    }
}

fn outgrown_message(what: &str, entry: &AcceptSpec, accepted: Figure, now: Figure) -> String {
    let reason = &entry.reason;
    match (accepted, now) {
        (Figure::Expires(day), Figure::Expires(expires)) if day == expires => format!(
            "the acceptance of {what} (\"{reason}\") ended on {}, the day the domain expires, so the finding counts again; renew the domain or turn auto-renew on in the portal",
            day.format("%Y-%m-%d")
        ),
        (
            Figure::Lookups(_) | Figure::DmarcPolicy(_) | Figure::KeyBits(_) | Figure::Expires(_),
            _,
        ) => format!(
            "{what} was accepted at {accepted}, now {now}: it got worse, so the finding counts again (the entry's reason: \"{reason}\"); fix what it is about, or write `value: {}` if the reason still holds",
            now.value()
        ),
    }
}

/// Whether a finding of `code` would be in findings made as `looked` says.
fn could_see(code: FindingCode, looked: Looked) -> bool {
    match looked {
        Looked::Partly => false,
        Looked::Everything { dns } => match code.basis() {
            Basis::Files | Basis::Account => true,
            Basis::Dns => dns,
        },
    }
}

fn note(owner: &Owner<'_>, entry: &AcceptSpec, code: FindingCode, message: String) -> Finding {
    Finding::new(code, owner.target(), message).declared_at(&entry.location)
}

#[cfg(test)]
#[path = "accept_tests.rs"]
mod tests;
