//! Review-bound apply (docs/apply.md, "Review-bound apply"): a plan made now may run only when
//! every one of its changes is one of a reviewed plan's changes.
//!
//! Two changes are the same when their [`MatchKey`]s are equal: target (kind and name), action,
//! what is changed (record name and type, cron job, nameservers) and the value it ends with. A
//! delete ends with nothing, so it is identified by the value it removes instead: a delete
//! nobody reviewed must never go through because another record of that name was reviewed.
//! Record ids, change ids, statuses and the `before` of creates and updates are left out: the
//! same intent against an account someone else touched meanwhile (another reviewed PR merged
//! first) keeps its key, while any different intent does not.

use crate::dns::RecordType;
use crate::plan::{Action, Change, Plan, Resource, TargetRef, Value};

/// What makes two changes the same reviewed intent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchKey {
    target: TargetRef,
    action: Action,
    subject: Subject,
    /// `after` for creates and updates, `before` for deletes.
    value: Option<Value>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Subject {
    Record { name: String, rtype: RecordType },
    CronJob { schedule: String, command: String },
    Nameservers,
}

impl MatchKey {
    pub fn of(change: &Change) -> MatchKey {
        let subject = match &change.resource {
            Resource::Record { name, rtype, .. } => Subject::Record {
                name: name.clone(),
                rtype: *rtype,
            },
            Resource::CronJob {
                schedule, command, ..
            } => Subject::CronJob {
                schedule: schedule.clone(),
                command: command.clone(),
            },
            Resource::Nameservers => Subject::Nameservers,
        };
        let value = match change.action {
            Action::Delete => change.before.clone(),
            Action::Create | Action::Update => change.after.clone(),
        };
        MatchKey {
            target: change.target.clone(),
            action: change.action,
            subject,
            value,
        }
    }
}

/// How a plan made now compares with the reviewed one.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Review {
    /// Changes of the new plan no reviewed change matches: apply refuses to run.
    pub unreviewed: Vec<Change>,
    /// Reviewed changes the new plan no longer needs: already in effect.
    pub already_live: Vec<Change>,
}

impl Review {
    pub fn is_reviewed(&self) -> bool {
        self.unreviewed.is_empty()
    }
}

/// Matches `now`'s changes against `reviewed`'s, each reviewed change at most once (two
/// identical cron jobs reviewed allow two identical creates, not three).
pub fn check(reviewed: &Plan, now: &Plan) -> Review {
    let mut unused: Vec<(MatchKey, &Change)> = reviewed
        .changes
        .iter()
        .map(|c| (MatchKey::of(c), c))
        .collect();
    let mut unreviewed = Vec::new();
    for change in &now.changes {
        let key = MatchKey::of(change);
        match unused.iter().position(|(k, _)| *k == key) {
            Some(i) => {
                unused.remove(i);
            }
            None => unreviewed.push(change.clone()),
        }
    }
    Review {
        unreviewed,
        already_live: unused.into_iter().map(|(_, c)| c.clone()).collect(),
    }
}

/// The plan to execute: `now`'s changes under the reviewed plan's id, so that the keys are
/// deterministic per (reviewed plan, change): a re-run of the same reviewed plan sends the same
/// key for the same request, and a different request never gets an old key (the key hashes
/// the request itself, see `Change::idempotency_key`).
///
/// Findings about no change (registrar health) that the plan made now did not read (`apply
/// --plan` reads only what its changes need) are kept from the reviewed plan, so the plan shown
/// says what the reviewer saw.
pub fn bound(reviewed: &Plan, now: Plan) -> Plan {
    let mut findings = now.findings;
    for f in &reviewed.findings {
        if f.change_ids.is_empty() && !findings.contains(f) {
            findings.push(f.clone());
        }
    }
    Plan {
        plan_id: reviewed.plan_id.clone(),
        findings,
        ..now
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(
        action: Action,
        id: Option<i64>,
        before: Option<&str>,
        after: Option<&str>,
    ) -> Change {
        crate::plan::model::record_change(action, id, before, after)
    }

    fn plan(changes: Vec<Change>) -> Plan {
        Plan {
            format_version: 2,
            plan_id: "p".into(),
            created_at: "t".into(),
            api_url: "u".into(),
            options: crate::plan::PlanOptions {
                hosted_mode_wire_value: "veldhost".into(),
            },
            targets: Vec::new(),
            summary: crate::plan::Summary::default(),
            changes,
            findings: Vec::new(),
            desired: crate::config::model::Desired::default(),
            scope: None,
        }
    }

    #[test]
    fn an_update_to_the_reviewed_value_matches_whatever_the_record_id_and_old_value() {
        let reviewed = plan(vec![record(Action::Update, Some(1), Some("a"), Some("b"))]);
        let now = plan(vec![record(Action::Update, Some(7), Some("c"), Some("b"))]);
        assert_eq!(check(&reviewed, &now), Review::default());
        // Refused form: another resulting value.
        let other = plan(vec![record(Action::Update, Some(1), Some("a"), Some("x"))]);
        let review = check(&reviewed, &other);
        assert_eq!(review.unreviewed, other.changes);
        assert_eq!(review.already_live, reviewed.changes);
    }

    #[test]
    fn a_delete_matches_only_the_value_it_removes() {
        let reviewed = plan(vec![record(Action::Delete, Some(1), Some("a"), None)]);
        let same = plan(vec![record(Action::Delete, Some(9), Some("a"), None)]);
        assert!(check(&reviewed, &same).is_reviewed());
        let other = plan(vec![record(Action::Delete, Some(1), Some("z"), None)]);
        assert!(!check(&reviewed, &other).is_reviewed());
    }

    #[test]
    fn each_reviewed_change_allows_one_change() {
        let create = record(Action::Create, None, None, Some("a"));
        let reviewed = plan(vec![create.clone()]);
        let twice = plan(vec![create.clone(), create.clone()]);
        assert_eq!(check(&reviewed, &twice).unreviewed, vec![create]);
    }
}
