//! What holds a change: accepted and refused forms of each part of the rule, on plans made from
//! zone and site files against live states that a desired state declares.

use super::*;
use crate::config::model::Desired;
use crate::plan::model::{Acceptance, TargetKind, TargetRef, Value};
use crate::plan::snapshot::{LiveSnapshot, declared};
use crate::plan::{DiffOptions, diff, mail_findings};

/// The octoDNS habit: `\;` is not a DMARC separator, so receivers discard the record.
const BROKEN_DMARC: &str = "  - { name: _dmarc, type: TXT, content: 'v=DMARC1\\; p=reject' }\n";
const GOOD_DMARC: &str = "  - { name: _dmarc, type: TXT, content: 'v=DMARC1; p=reject' }\n";
const WWW: &str = "  - { name: www, type: A, content: 192.0.2.1 }\n";
const WWW_MOVED: &str = "  - { name: www, type: A, content: 192.0.2.2 }\n";

fn desired(files: &[(&str, String)]) -> Desired {
    let texts: Vec<(std::path::PathBuf, String)> = files
        .iter()
        .map(|(name, text)| (name.into(), text.clone()))
        .collect();
    crate::config::load_texts(&texts).unwrap_or_else(|d| panic!("{d}"))
}

fn zone(records: &[&str]) -> Desired {
    let records = match records {
        [] => " []\n".to_string(),
        some => format!("\n{}", some.concat()),
    };
    desired(&[("a.yaml", format!("zone: a.example\nrecords:{records}"))])
}

/// `files` planned against `live` with every finding the files give, before holding.
fn unheld(files: &Desired, live: &LiveSnapshot) -> Plan {
    let mut plan = diff(files, live, &DiffOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    plan.findings
        .extend(rt.block_on(mail_findings(files, None)));
    plan
}

fn planned(files: &Desired, live: &LiveSnapshot) -> Plan {
    let mut plan = unheld(files, live);
    hold(&mut plan);
    plan
}

fn live(records: &[&str]) -> LiveSnapshot {
    declared(&zone(records), &LiveSnapshot::default())
}

fn statuses(plan: &Plan) -> Vec<(Action, String, Status)> {
    plan.changes
        .iter()
        .map(|c| {
            let subject = match &c.resource {
                Resource::Record { name, rtype, .. } => format!("{name} {rtype}"),
                Resource::CronJob { command, .. } => command.clone(),
                Resource::Nameservers => "nameservers".into(),
            };
            (c.action, subject, c.status)
        })
        .collect()
}

#[test]
fn a_create_of_a_record_set_with_an_error_finding_is_held_and_counted() {
    let plan = planned(&zone(&[WWW, BROKEN_DMARC]), &live(&[]));
    assert_eq!(
        statuses(&plan),
        [
            (Action::Create, "_dmarc TXT".into(), Status::HeldByFinding),
            (Action::Create, "www A".into(), Status::Ready),
        ]
    );
    let change = &plan.changes[0];
    assert_eq!(
        change.reason.as_deref(),
        Some("held by the error finding `dmarc-octodns-escape`, which no `accept:` accepts")
    );
    assert_eq!(plan.summary.held, 1);
    assert_eq!(plan.summary.create, 2);
    let held = held(&plan);
    assert_eq!(held.len(), 1);
    assert_eq!(held[0].change, *change);
    let codes: Vec<FindingCode> = held[0].findings.iter().map(|f| f.code).collect();
    assert_eq!(codes, [FindingCode::DmarcOctodnsEscape]);
    assert_eq!(held[0].findings[0].change_ids, [change.id]);
    assert_eq!(
        held[0].findings[0].declared_at.as_deref(),
        Some("a.yaml:4:5")
    );
}

#[test]
fn an_update_into_a_broken_record_is_held_and_a_valid_one_is_not() {
    let now = planned(&zone(&[BROKEN_DMARC]), &live(&[GOOD_DMARC]));
    assert_eq!(
        statuses(&now),
        [(Action::Update, "_dmarc TXT".into(), Status::HeldByFinding)]
    );
    // Accepted form: the record fixed, the same update is ready and nothing is found.
    let fixed = planned(&zone(&[GOOD_DMARC]), &live(&[BROKEN_DMARC]));
    assert_eq!(
        statuses(&fixed),
        [(Action::Update, "_dmarc TXT".into(), Status::Ready)]
    );
    assert!(held(&fixed).is_empty());
    assert_eq!(fixed.summary.held, 0);
}

#[test]
fn an_accepted_finding_holds_nothing() {
    let mut plan = unheld(&zone(&[WWW, BROKEN_DMARC]), &live(&[]));
    for finding in &mut plan.findings {
        if finding.code == FindingCode::DmarcOctodnsEscape {
            finding.accepted = Some(Acceptance {
                reason: "the provider rewrites it".into(),
                until: None,
                declared_at: "a.yaml:9:5".into(),
                figure: None,
            });
        }
    }
    hold(&mut plan);
    assert_eq!(
        statuses(&plan),
        [
            (Action::Create, "_dmarc TXT".into(), Status::Ready),
            (Action::Create, "www A".into(), Status::Ready),
        ]
    );
    assert_eq!(plan.summary.held, 0);
    let dmarc = plan
        .findings
        .iter()
        .find(|f| f.code == FindingCode::DmarcOctodnsEscape)
        .unwrap_or_else(|| panic!("{:?}", plan.findings));
    assert!(dmarc.change_ids.is_empty());
}

#[test]
fn a_finding_on_a_record_set_no_change_writes_holds_nothing() {
    // The broken record is live already: only www changes, and it is ready.
    let plan = planned(
        &zone(&[WWW_MOVED, BROKEN_DMARC]),
        &live(&[WWW, BROKEN_DMARC]),
    );
    assert_eq!(
        statuses(&plan),
        [(Action::Update, "www A".into(), Status::Ready)]
    );
    let codes: Vec<FindingCode> = plan.findings.iter().map(|f| f.code).collect();
    assert_eq!(codes, [FindingCode::DmarcOctodnsEscape]);
    assert!(plan.findings[0].change_ids.is_empty());
}

#[test]
fn a_delete_in_the_record_set_of_a_finding_is_not_held() {
    // The files keep the broken record (live already) and drop the other one at `_dmarc`.
    let second = "  - { name: _dmarc, type: TXT, content: 'v=DMARC1; p=none' }\n";
    let plan = planned(&zone(&[BROKEN_DMARC]), &live(&[BROKEN_DMARC, second]));
    assert_eq!(
        statuses(&plan),
        [(Action::Delete, "_dmarc TXT".into(), Status::Ready)]
    );
    // Even a finding that names the delete's record set exactly holds no delete.
    let finding = &plan.findings[0];
    assert_eq!(finding.code, FindingCode::DmarcOctodnsEscape);
    assert!(!holds(finding, &plan.changes[0]));
}

#[test]
fn only_unaccepted_error_findings_from_the_files_or_dns_about_the_same_zone_hold() {
    let plan = unheld(&zone(&[BROKEN_DMARC]), &live(&[]));
    let create = &plan.changes[0];
    let finding = plan.findings[0].clone();
    assert!(holds(&finding, create));
    // Refused forms, one part of the rule each.
    let elsewhere = Finding {
        target: TargetRef {
            kind: TargetKind::Zone,
            name: "b.example".into(),
        },
        ..finding.clone()
    };
    assert!(!holds(&elsewhere, create));
    let other_type = finding
        .clone()
        .about_record("_dmarc", crate::dns::RecordType::CNAME);
    assert!(!holds(&other_type, create));
    let warning = Finding {
        code: FindingCode::DmarcReportUriNotMailto,
        severity: Severity::Warning,
        ..finding.clone()
    };
    assert!(!holds(&warning, create));
    // An error judged from the account (a domain about to expire) is no file's to fix here.
    let from_account = Finding {
        code: FindingCode::DomainExpiring,
        ..finding.clone()
    };
    assert!(!holds(&from_account, create));
    // An error judged from DNS (lookups inside a provider's include) is about the record the
    // change writes: it holds it, unless accepted.
    let from_dns = Finding {
        code: FindingCode::SpfTooManyLookupsFromDns,
        ..finding.clone()
    };
    assert!(holds(&from_dns, create));
    let accepted_from_dns = Finding {
        accepted: Some(
            serde_json::from_value(serde_json::json!({
                "reason": "the provider trims its includes in March",
                "declared_at": "a.yaml:3:5",
            }))
            .unwrap(),
        ),
        ..from_dns
    };
    assert!(!holds(&accepted_from_dns, create));
    let without_record = Finding {
        record: None,
        ..finding
    };
    assert!(!holds(&without_record, create));
}

#[test]
fn a_cron_job_that_never_runs_holds_its_create_and_no_other_job() {
    let site = "site: shop\ncron:\n  - { schedule: \"0 0 30 2 *\", command: php bin/leap.php }\n  - { schedule: \"0 3 * * *\", command: php bin/night.php }\n";
    let files = desired(&[("shop.yaml", site.into())]);
    let mut live = LiveSnapshot::default();
    live.sites.push(crate::plan::snapshot::LiveSite {
        slug: "shop".into(),
        state: Some("active".into()),
        cron: Some(Vec::new()),
    });
    let plan = planned(&files, &live);
    assert_eq!(
        statuses(&plan),
        [
            (
                Action::Create,
                "php bin/leap.php".into(),
                Status::HeldByFinding
            ),
            (Action::Create, "php bin/night.php".into(), Status::Ready),
        ]
    );
    assert_eq!(
        plan.changes[0].reason.as_deref(),
        Some("held by the error finding `cron-never-runs`, which no `accept:` accepts")
    );
    let never = &plan.findings[0];
    assert_eq!(never.code, FindingCode::CronNeverRuns);
    assert_eq!(never.declared_at.as_deref(), Some("shop.yaml:3:5"));
    assert_eq!(never.change_ids, [plan.changes[0].id]);
    assert_eq!(
        plan.changes[0].after,
        Some(Value::CronJob {
            schedule: "0 0 30 2 *".into(),
            command: "php bin/leap.php".into()
        })
    );
}

#[test]
fn several_findings_on_one_record_set_are_named_together() {
    let mut plan = unheld(&zone(&[BROKEN_DMARC]), &live(&[]));
    let second = Finding {
        code: FindingCode::DmarcPolicyInvalid,
        ..plan.findings[0].clone()
    };
    plan.findings.push(second);
    hold(&mut plan);
    assert_eq!(
        plan.changes[0].reason.as_deref(),
        Some(
            "held by the error findings `dmarc-octodns-escape`, `dmarc-policy-invalid`, which no `accept:` accepts"
        )
    );
    assert_eq!(held(&plan)[0].findings.len(), 2);
}
