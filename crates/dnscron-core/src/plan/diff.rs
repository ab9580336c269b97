//! Desired state + live snapshot → plan. Pure: no network, no clock (the id and time come in
//! with the options' [`PlanStamp`]).

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};

use crate::config::model::{Desired, SiteSpec, ZoneSpec};

use super::model::{
    Change, Finding, Plan, PlanOptions, PlanStamp, Status, Summary, Target, TargetKind, TargetRef,
};
use super::order::{self, Draft};
use super::snapshot::{LiveSite, LiveSnapshot};
use super::{PlanError, cron_jobs, fingerprint, nameservers, records, safety};
use crate::finding::FindingCode;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiffOptions {
    /// The API base URL, recorded in the plan.
    pub api_url: String,
    /// Lift the per-zone safety limits: the zones over them are recorded in the plan
    /// (`Plan::over_limits`) instead of refusing it.
    pub allow_mass_changes: bool,
    /// The `mode` value that selects the service's own nameservers on PUT nameservers.
    pub hosted_mode_wire_value: String,
    /// The plan's id and creation time.
    pub stamp: PlanStamp,
}

impl Default for DiffOptions {
    /// No API URL, safety limits on, the documented hosted-mode value, a fresh stamp.
    fn default() -> Self {
        DiffOptions {
            api_url: String::new(),
            allow_mass_changes: false,
            hosted_mode_wire_value: dnscron_api::openapi::DEFAULT_HOSTED_MODE.into(),
            stamp: PlanStamp::fresh(),
        }
    }
}

/// Everything the targets contribute before ordering.
#[derive(Default)]
struct Parts {
    targets: Vec<Target>,
    drafts: Vec<Draft>,
    findings: Vec<Finding>,
    over_limits: Vec<safety::OverLimits>,
}

/// Makes the plan that turns `live` into `desired`. Fails when a declared target is missing from
/// the snapshot, or when a zone's plan breaks its safety limits (unless lifted: the plan then
/// records them).
pub fn diff(desired: &Desired, live: &LiveSnapshot, opts: &DiffOptions) -> Result<Plan, PlanError> {
    let mut plan = diff_lent(desired, live, opts)?;
    plan.desired = desired.clone();
    Ok(plan)
}

/// The plan with an empty `desired`, for the caller to fill: `make_plan_owned` moves it in
/// rather than copying 100,000 declared records.
pub(super) fn diff_lent(
    desired: &Desired,
    live: &LiveSnapshot,
    opts: &DiffOptions,
) -> Result<Plan, PlanError> {
    let mut parts = Parts::default();
    for zone in &desired.zones {
        diff_zone(zone, live, &mut parts)?;
    }
    let now = chrono::DateTime::parse_from_rfc3339(&opts.stamp.created_at)
        .ok()
        .map(|t| t.with_timezone(&chrono::Utc));
    for site in &desired.sites {
        diff_site(site, live, now, &mut parts)?;
    }
    if !parts.over_limits.is_empty() && !opts.allow_mass_changes {
        return Err(PlanError::Unsafe(parts.over_limits));
    }
    let changes = order::order(parts.drafts);
    let mut findings = status_findings(&changes);
    findings.extend(parts.findings);
    Ok(Plan {
        plan_id: opts.stamp.id.clone(),
        created_at: opts.stamp.created_at.clone(),
        api_url: opts.api_url.clone(),
        options: PlanOptions {
            hosted_mode_wire_value: opts.hosted_mode_wire_value.clone(),
            allow_mass_changes: opts.allow_mass_changes,
        },
        targets: parts.targets,
        summary: Summary::of(&changes),
        changes,
        findings,
        desired: Desired::default(),
        scope: None,
        over_limits: parts.over_limits,
    })
}

fn missing(kind: TargetKind, name: &str, declared_at: String) -> PlanError {
    PlanError::MissingLive {
        kind: kind.as_str(),
        name: name.to_string(),
        declared_at,
    }
}

fn diff_zone(spec: &ZoneSpec, live: &LiveSnapshot, parts: &mut Parts) -> Result<(), PlanError> {
    let declared_at = spec.location.to_string();
    let name = spec.zone.to_string();
    let zone = live
        .zones
        .iter()
        .find(|z| z.zone == spec.zone)
        .ok_or_else(|| missing(TargetKind::Zone, &name, declared_at.clone()))?;
    parts.targets.push(Target {
        kind: TargetKind::Zone,
        name: name.clone(),
        fingerprint: fingerprint::zone(zone),
        declared_at: declared_at.clone(),
    });
    let out = records::diff_zone(spec, zone);
    parts.over_limits.extend(safety::check_zone(
        &name,
        &declared_at,
        &out.stats,
        &spec.safety,
    ));
    parts.drafts.extend(out.drafts);
    parts.findings.extend(out.findings);

    if let Some(ns) = &spec.nameservers {
        let ns_declared = ns.location.to_string();
        let domain = live
            .domains
            .iter()
            .find(|d| d.domain == spec.zone)
            .ok_or_else(|| missing(TargetKind::Domain, &name, ns_declared.clone()))?;
        parts.targets.push(Target {
            kind: TargetKind::Domain,
            name: name.clone(),
            fingerprint: fingerprint::domain(domain),
            declared_at: ns_declared,
        });
        if domain.service_nameservers.is_empty() {
            let target = TargetRef {
                kind: TargetKind::Domain,
                name: name.clone(),
            };
            parts.findings.push(Finding::new(
                FindingCode::ServiceNameserversUnlisted,
                target,
                "the server did not list its own nameservers with the zone's records, so hosted and custom mode can't be told apart; the domain counts as custom".into(),
            ));
        }
        parts
            .drafts
            .extend(nameservers::diff_nameservers(ns, domain));
    }
    Ok(())
}

fn diff_site(
    spec: &SiteSpec,
    live: &LiveSnapshot,
    now: Option<DateTime<Utc>>,
    parts: &mut Parts,
) -> Result<(), PlanError> {
    let declared_at = spec.location.to_string();
    let site: &LiveSite = live
        .sites
        .iter()
        .find(|s| s.slug == spec.slug)
        .ok_or_else(|| missing(TargetKind::Site, &spec.slug, declared_at.clone()))?;
    parts.targets.push(Target {
        kind: TargetKind::Site,
        name: spec.slug.clone(),
        fingerprint: fingerprint::site(site),
        declared_at: declared_at.clone(),
    });
    if let Some(want) = &spec.cron {
        // A snapshot without the cron listing of a site whose file manages cron is incomplete;
        // planning against "no jobs" would create duplicates.
        let have = site
            .cron
            .as_deref()
            .ok_or_else(|| PlanError::IncompleteSnapshot {
                what: format!("the cron jobs of site `{}`", spec.slug),
                declared_at,
            })?;
        parts.drafts.extend(cron_jobs::diff_cron(
            spec,
            want,
            site.state.as_deref(),
            have,
            now,
        ));
        if let Some(now) = now {
            parts
                .findings
                .extend(cron_jobs::schedule_findings(spec, want, now));
        }
    }
    Ok(())
}

/// One finding per (target, status, reason) of the changes that are not ready.
fn status_findings(changes: &[Change]) -> Vec<Finding> {
    let mut grouped: BTreeMap<(TargetRef, String, bool), Vec<usize>> = BTreeMap::new();
    for c in changes {
        let portal = match c.status {
            // A held change's finding is the one that holds it, listed already.
            Status::Ready | Status::HeldByFinding => continue,
            Status::NeedsPortalStep => true,
            Status::Blocked => false,
        };
        let reason = c.reason.clone().unwrap_or_default();
        grouped
            .entry((c.target.clone(), reason, portal))
            .or_default()
            .push(c.id);
    }
    grouped
        .into_iter()
        .map(|((target, message, portal), change_ids)| {
            let code = if portal {
                FindingCode::ChangeNeedsPortalStep
            } else {
                FindingCode::ChangeBlocked
            };
            Finding {
                change_ids,
                ..Finding::new(code, target, message)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::safety::{Exceeded, OverLimits};

    /// A zone file declaring `www0` … `www{n-1}`.
    fn zone(n: usize) -> Desired {
        let records: String = (0..n)
            .map(|i| format!("\n  - {{name: www{i}, type: A, content: 192.0.2.{i}}}"))
            .collect();
        crate::config::load_texts(&[(
            "z.yaml".into(),
            format!("zone: example.com\nrecords:{records}\n"),
        )])
        .unwrap_or_else(|d| panic!("{d:?}"))
    }

    #[test]
    fn a_plan_past_the_safety_limits_is_refused_unless_they_are_lifted() {
        let live = super::super::snapshot::declared(&zone(10), &LiveSnapshot::default());
        let shrunk = zone(1);
        let over = vec![OverLimits {
            zone: "example.com".into(),
            declared_at: shrunk.zones[0].location.to_string(),
            exceeded: vec![Exceeded::DeletePercent {
                deletes: 9,
                live: 10,
                floor: 5,
                max_percent: 30,
            }],
        }];
        match diff(&shrunk, &live, &DiffOptions::default()) {
            Err(PlanError::Unsafe(refused)) => assert_eq!(refused, over),
            other => panic!("9 deletes of 10 must be refused: {other:?}"),
        }
        // The accepted forms: lifted, the plan records what it goes past; within the limits,
        // nothing is recorded.
        let lifted = DiffOptions {
            allow_mass_changes: true,
            ..DiffOptions::default()
        };
        let plan = diff(&shrunk, &live, &lifted).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(plan.over_limits, over);
        assert_eq!(plan.summary.delete, 9);
        let within =
            diff(&zone(8), &live, &DiffOptions::default()).unwrap_or_else(|e| panic!("{e}"));
        assert!(within.over_limits.is_empty());
        assert_eq!(within.summary.delete, 2);
    }
    #[test]
    fn each_declared_target_is_read_under_its_own_name() {
        let file = |path: &str, text: &str| (std::path::PathBuf::from(path), text.to_string());
        let desired = crate::config::load_texts(&[
            file(
                "a.yaml",
                "zone: example.com\nnameservers: {mode: custom, hosts: [ns1.other.net, ns2.other.net]}\nrecords:\n  - {name: www, type: A, content: 192.0.2.1}\n",
            ),
            file("b.yaml", "zone: example.org\nrecords:\n  - {name: www, type: A, content: 192.0.2.2}\n"),
            file("blog.yaml", "site: blog\ncron:\n  - {schedule: \"0 3 * * *\", command: \"wp a\"}\n"),
            file("shop.yaml", "site: shop\ncron:\n  - {schedule: \"0 4 * * *\", command: \"wp b\"}\n"),
        ])
        .unwrap_or_else(|d| panic!("{d:?}"));
        let live = crate::plan::snapshot::declared(&desired, &LiveSnapshot::default());
        let plan = diff(&desired, &live, &DiffOptions::default()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            plan.changes,
            [],
            "the live account is what the files declare"
        );
        let targets: Vec<(TargetKind, &str)> = plan
            .targets
            .iter()
            .map(|t| (t.kind, t.name.as_str()))
            .collect();
        assert_eq!(
            targets,
            [
                (TargetKind::Zone, "example.com"),
                (TargetKind::Domain, "example.com"),
                (TargetKind::Zone, "example.org"),
                (TargetKind::Site, "blog"),
                (TargetKind::Site, "shop"),
            ]
        );
        // Refused forms: a declared target the snapshot lacks.
        let no_domain = LiveSnapshot {
            domains: Vec::new(),
            ..live.clone()
        };
        let no_site = LiveSnapshot {
            sites: live.sites[..1].to_vec(),
            ..live.clone()
        };
        for lacking in [no_domain, no_site] {
            let refused = diff(&desired, &lacking, &DiffOptions::default());
            assert!(
                matches!(refused, Err(PlanError::MissingLive { .. })),
                "{refused:?}"
            );
        }
    }
    #[test]
    fn changes_not_ready_get_one_finding_per_target_status_and_reason() {
        use crate::plan::model::{Action, record_change};
        let with = |id: usize, status: Status, reason: &str| Change {
            id,
            ..record_change(Action::Create, None, None, Some("a"))
                .with_status(status, Some(reason.into()))
        };
        let changes = [
            with(1, Status::Blocked, "clash"),
            with(2, Status::Ready, "ready"),
            with(3, Status::Blocked, "clash"),
            with(4, Status::NeedsPortalStep, "portal"),
            with(5, Status::HeldByFinding, "held"),
        ];
        let found: Vec<(FindingCode, String, Vec<usize>)> = status_findings(&changes)
            .into_iter()
            .map(|f| (f.code, f.message, f.change_ids))
            .collect();
        assert_eq!(
            found,
            [
                (FindingCode::ChangeBlocked, "clash".to_string(), vec![1, 3]),
                (
                    FindingCode::ChangeNeedsPortalStep,
                    "portal".to_string(),
                    vec![4]
                ),
            ]
        );
    }
}
