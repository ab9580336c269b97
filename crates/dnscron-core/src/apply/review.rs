//! Review-bound apply (docs/apply.md, "Review-bound apply" and "The contract"): a plan made
//! now may run only when every one of its changes is one of a reviewed plan's changes, with the
//! precondition the reviewer saw.
//!
//! Two changes are the same when their [`MatchKey`]s are equal: target (kind and name), action,
//! what is changed (record name and type, cron job, nameservers), the value it starts from
//! (`before`: none for a create) and the value it ends with (`after`: none for a delete). So an
//! update or delete runs only while the live account holds the value the reviewer saw, and a
//! create only while no such record exists (an identical one is "already in effect"). Record
//! ids, change ids, cron occurrence numbers and statuses are left out: the same intent against a
//! record someone re-created with the same value, or after a portal step, keeps its key.
//!
//! A change now with a reviewed change's intent (same thing, same resulting value) but another
//! starting value is "changed since review": the live value moved after the review (a person,
//! another PR merged first that changed the same thing, another account at the same URL).

use crate::config::model::{Desired, Unmanaged};
use crate::dns::RecordType;
use crate::plan::snapshot::LiveSnapshot;
use crate::plan::{self, Action, Change, DiffOptions, Plan, PlanError, Resource, TargetRef, Value};

use super::outcome::Moved;

/// What makes two changes the same reviewed change.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MatchKey {
    target: TargetRef,
    action: Action,
    subject: Subject,
    /// The precondition: the value the change expects live (`None` for a create).
    before: Option<Value>,
    after: Option<Value>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Subject {
    Record { name: String, rtype: RecordType },
    CronJob { schedule: String, command: String },
    Nameservers,
}

fn subject_of(change: &Change) -> Subject {
    match &change.resource {
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
    }
}

impl MatchKey {
    pub fn of(change: &Change) -> MatchKey {
        MatchKey {
            target: change.target.clone(),
            action: change.action,
            subject: subject_of(change),
            before: change.before.clone(),
            after: change.after.clone(),
        }
    }
}

/// Whether `a` and `b` mean to do the same thing from different starting values: both put
/// the same value in place (a create and an update count alike: the record may have been
/// created or deleted meanwhile), or both delete the same record (by id).
fn same_intent(a: &Change, b: &Change) -> bool {
    if a.target != b.target || subject_of(a) != subject_of(b) {
        return false;
    }
    match (a.action, b.action) {
        (Action::Delete, Action::Delete) => match (&a.resource, &b.resource) {
            (
                Resource::Record {
                    record_id: Some(x), ..
                },
                Resource::Record {
                    record_id: Some(y), ..
                },
            ) => x == y,
            (Resource::Record { .. } | Resource::CronJob { .. } | Resource::Nameservers, _) => {
                false
            }
        },
        (Action::Delete, _) | (_, Action::Delete) => false,
        (Action::Create | Action::Update, Action::Create | Action::Update) => a.after == b.after,
    }
}

/// How a plan made now compares with the reviewed one.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Review {
    /// Changes of the new plan no reviewed change matches: apply refuses to run.
    pub unreviewed: Vec<Change>,
    /// Reviewed changes the new plan no longer needs. After [`check_live`]: only those whose
    /// effect is live (already in effect).
    pub already_live: Vec<Change>,
    /// Reviewed changes whose thing holds another value now than the reviewed `before`
    /// (`expected`), with the live value: apply refuses to run.
    pub changed: Vec<Moved>,
    /// Reviewed changes not in effect that the plan made now does not make (the desired state
    /// applied does not produce them; their precondition still holds): apply refuses to run.
    pub not_made: Vec<Change>,
    /// Reviewed changes the plan made now does not make whose target it did not read (the
    /// files applied don't declare it, or it is outside the scope read): nothing is known of
    /// their live value, so apply refuses to run.
    pub not_read: Vec<Change>,
}

impl Review {
    pub fn is_reviewed(&self) -> bool {
        self.unreviewed.is_empty()
    }

    /// Every reviewed change is either made now under its precondition or in effect.
    pub fn holds(&self) -> bool {
        self.changed.is_empty() && self.not_made.is_empty() && self.not_read.is_empty()
    }
}

/// Matches `now`'s changes against `reviewed`'s, each reviewed change at most once (two
/// identical cron jobs reviewed allow two identical creates, not three).
pub fn check(reviewed: &Plan, now: &Plan) -> Review {
    let (review, _) = pair(reviewed, now);
    review
}

/// [`check`], then each reviewed change the plan made now does not need is looked up in
/// `live` (read for the plan made now): in effect, changed since review, or not made.
pub fn check_live(reviewed: &Plan, now: &Plan, live: &LiveSnapshot) -> Result<Review, PlanError> {
    let (mut review, consumed) = pair(reviewed, now);
    if review.already_live.is_empty() {
        return Ok(review);
    }
    let records = live_records(reviewed, &review.already_live, live)?;
    let mut needed: Vec<(MatchKey, Change)> = against_live(reviewed, &review.already_live, live)?
        .into_iter()
        .map(|q| (MatchKey::of(&q), q))
        .collect();
    // What the changes made now do is no longer needed: with identical cron jobs, the copies
    // they create or delete would otherwise look missing.
    for r in &consumed {
        let key = MatchKey::of(r);
        if let Some(i) = needed
            .iter()
            .position(|(k, _)| *k == key)
            .or_else(|| needed.iter().position(|(_, q)| same_intent(q, r)))
        {
            needed.remove(i);
        }
    }
    let mut in_effect = Vec::new();
    for r in std::mem::take(&mut review.already_live) {
        let key = MatchKey::of(&r);
        if let Some(i) = needed.iter().position(|(k, _)| *k == key) {
            needed.remove(i);
            review.not_made.push(r);
        } else if let Some(i) = needed.iter().position(|(_, q)| same_intent(q, &r)) {
            let (_, q) = needed.remove(i);
            review
                .changed
                .push(Moved::new(&r, r.before.clone(), q.before));
        } else if !plan::in_effect::was_read(live, &r.target) {
            review.not_read.push(r);
        } else if live_after_state(&records, &r) {
            in_effect.push(r);
        } else {
            review.not_made.push(r);
        }
    }
    review.already_live = in_effect;
    Ok(review)
}

/// A controller's apply of merged changes (`apply::workflow::Binding::Merged`): the changes
/// made now split into those a reviewed change allows, with its precondition, and the rest.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Split {
    /// Changes made now that are reviewed changes from the reviewed value: they may run.
    pub reviewed: Vec<Change>,
    /// Every other change made now: drift, never sent (no reviewed change allows it, or the
    /// live value moved from the reviewed one).
    pub left: Vec<Change>,
    /// Reviewed changes whose thing holds another value now than the one reviewed, with both
    /// values: why some of `left` are left.
    pub moved: Vec<Moved>,
}

/// Splits `now`'s changes by `pair`: each runs only as a reviewed change from the reviewed
/// value, anything else is left alone.
pub fn split(reviewed: &Plan, now: &Plan) -> Split {
    let (review, _, exact) = pair_each(reviewed, now);
    let (sent, left): (Vec<_>, Vec<_>) = now.changes.iter().zip(exact).partition(|(_, e)| *e);
    let changes = |v: Vec<(&Change, bool)>| v.into_iter().map(|(c, _)| c.clone()).collect();
    Split {
        reviewed: changes(sent),
        left: changes(left),
        moved: review.changed,
    }
}

/// Pairs each change now with a reviewed one; returns the review (`already_live`: the reviewed
/// changes left unpaired) and the reviewed changes paired.
fn pair(reviewed: &Plan, now: &Plan) -> (Review, Vec<Change>) {
    let (review, consumed, _) = pair_each(reviewed, now);
    (review, consumed)
}

/// [`pair`], and for each change now whether a reviewed change matched it exactly (same key).
fn pair_each(reviewed: &Plan, now: &Plan) -> (Review, Vec<Change>, Vec<bool>) {
    let mut unused: Vec<(MatchKey, &Change)> = reviewed
        .changes
        .iter()
        .map(|c| (MatchKey::of(c), c))
        .collect();
    let mut review = Review::default();
    let mut consumed = Vec::new();
    let mut exact = vec![false; now.changes.len()];
    for (n, change) in now.changes.iter().enumerate() {
        if declared_copies(&reviewed.desired, change) != declared_copies(&now.desired, change) {
            review.unreviewed.push(change.clone());
            continue;
        }
        let key = MatchKey::of(change);
        if let Some(i) = unused.iter().position(|(k, _)| *k == key) {
            consumed.push(unused.remove(i).1.clone());
            exact[n] = true;
        } else if let Some(i) = unused.iter().position(|(_, r)| same_intent(r, change)) {
            let r = unused.remove(i).1;
            review
                .changed
                .push(Moved::new(r, r.before.clone(), change.before.clone()));
            consumed.push(r.clone());
        } else {
            review.unreviewed.push(change.clone());
        }
    }
    review.already_live = unused.into_iter().map(|(_, c)| c.clone()).collect();
    (review, consumed, exact)
}

/// For a cron change, how many copies of its job the desired state keeps on its site (`None`:
/// cron not managed there; other changes: `None`). A cron delete matches any copy of its job, so
/// two plans could agree change by change and still end with another number of copies (the
/// reviewed plan deleting 2 of 3, the plan now deleting all): the count declared is the intent.
fn declared_copies(desired: &Desired, change: &Change) -> Option<usize> {
    let Resource::CronJob {
        schedule, command, ..
    } = &change.resource
    else {
        return None;
    };
    let key = plan::job_key(schedule, command);
    let site = desired
        .sites
        .iter()
        .find(|s| s.slug == change.target.name)?;
    let jobs = site.cron.as_ref()?;
    Some(
        jobs.iter()
            .filter(|j| plan::job_key(&j.schedule, &j.command) == key)
            .count(),
    )
}

/// The part of the reviewed desired state that declares the targets of `left` and that `live`
/// has read.
fn scope(reviewed: &Plan, left: &[Change], live: &LiveSnapshot) -> Desired {
    let scope = super::verify::restrict(&reviewed.desired, &super::verify::touched(left));
    Desired {
        zones: scope
            .zones
            .into_iter()
            .filter(|z| live.zones.iter().any(|l| l.zone == z.zone))
            .map(|mut z| {
                if !live.domains.iter().any(|d| d.domain == z.zone) {
                    z.nameservers = None;
                }
                z
            })
            .collect(),
        sites: scope
            .sites
            .into_iter()
            .filter(|s| {
                live.sites
                    .iter()
                    .any(|l| l.slug == s.slug && (s.cron.is_none() || l.cron.is_some()))
            })
            .collect(),
        // An unmanaged list declares no target.
        unmanaged: Unmanaged::default(),
    }
}

fn live_diff(
    reviewed: &Plan,
    desired: &Desired,
    live: &LiveSnapshot,
) -> Result<Vec<Change>, PlanError> {
    let opts = DiffOptions {
        allow_mass_changes: true,
        ..super::diff_options_for(reviewed)
    };
    Ok(plan::diff(desired, live, &opts)?.changes)
}

/// What the reviewed desired state still needs against `live`, for the targets of `left`: a
/// reviewed change found again in it still waits for its effect.
fn against_live(
    reviewed: &Plan,
    left: &[Change],
    live: &LiveSnapshot,
) -> Result<Vec<Change>, PlanError> {
    live_diff(reviewed, &scope(reviewed, left, live), live)
}

/// Every live record of the zones of `left`, canonical, as the `before` of a delete (a desired
/// zone declaring nothing and ignoring nothing deletes them all): the live values themselves,
/// whatever the desired state says.
fn live_records(
    reviewed: &Plan,
    left: &[Change],
    live: &LiveSnapshot,
) -> Result<Vec<Change>, PlanError> {
    let mut bare = scope(reviewed, left, live);
    bare.sites.clear();
    for zone in &mut bare.zones {
        zone.records.clear();
        zone.ignore.clear();
        zone.prune = true;
        zone.nameservers = None;
    }
    live_diff(reviewed, &bare, live)
}

/// Whether a reviewed record change's after-state is what `records` (from [`live_records`])
/// hold: its value for a create or update, no record with the removed value for a delete.
/// Other changes are left to the re-plan of the reviewed desired state.
fn live_after_state(records: &[Change], r: &Change) -> bool {
    if !matches!(r.resource, Resource::Record { .. }) {
        return true;
    }
    let held: Vec<Value> = records
        .iter()
        .filter(|l| l.target == r.target && subject_of(l) == subject_of(r))
        .filter_map(|l| l.before.clone())
        .collect();
    plan::in_effect::effect(r, &held).is_in_effect()
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
            plan_id: "p".into(),
            created_at: "t".into(),
            api_url: "u".into(),
            options: crate::plan::PlanOptions {
                hosted_mode_wire_value: "veldhost".into(),
                allow_mass_changes: false,
            },
            targets: Vec::new(),
            summary: crate::plan::Summary::default(),
            changes,
            findings: Vec::new(),
            desired: crate::config::model::Desired::default(),
            scope: None,
            over_limits: Vec::new(),
        }
    }

    #[test]
    fn an_update_matches_only_from_the_reviewed_value_whatever_the_record_id() {
        let reviewed = plan(vec![record(Action::Update, Some(1), Some("a"), Some("b"))]);
        let now = plan(vec![record(Action::Update, Some(7), Some("a"), Some("b"))]);
        assert_eq!(check(&reviewed, &now), Review::default());
        // Refused forms: another starting value is changed since review (with the live value);
        // another resulting value is unreviewed.
        let moved = plan(vec![record(Action::Update, Some(1), Some("c"), Some("b"))]);
        let review = check(&reviewed, &moved);
        assert!(review.is_reviewed() && !review.holds());
        let value = |c: &str| Value::Record {
            ttl: 300,
            content: c.into(),
        };
        assert_eq!(
            review.changed,
            vec![Moved::new(
                &reviewed.changes[0],
                Some(value("a")),
                Some(value("c"))
            )]
        );
        let other = plan(vec![record(Action::Update, Some(1), Some("a"), Some("x"))]);
        let review = check(&reviewed, &other);
        assert_eq!(review.unreviewed, other.changes);
        assert_eq!(review.already_live, reviewed.changes);
    }

    #[test]
    fn a_create_where_someone_created_another_value_is_changed_since_review() {
        let reviewed = plan(vec![record(Action::Create, None, None, Some("b"))]);
        let now = plan(vec![record(Action::Update, Some(3), Some("z"), Some("b"))]);
        let review = check(&reviewed, &now);
        assert!(review.is_reviewed());
        assert_eq!(review.changed.len(), 1);
        assert_eq!(review.changed[0].expected, None);
    }

    #[test]
    fn a_delete_matches_only_the_value_it_removes() {
        let reviewed = plan(vec![record(Action::Delete, Some(1), Some("a"), None)]);
        let same = plan(vec![record(Action::Delete, Some(9), Some("a"), None)]);
        assert!(check(&reviewed, &same).is_reviewed());
        // Refused forms: the same record holding another value now is changed since review;
        // another record with another value is unreviewed.
        let moved = plan(vec![record(Action::Delete, Some(1), Some("z"), None)]);
        let review = check(&reviewed, &moved);
        assert!(review.is_reviewed() && !review.holds());
        let other = plan(vec![record(Action::Delete, Some(2), Some("z"), None)]);
        assert!(!check(&reviewed, &other).is_reviewed());
    }

    #[test]
    fn a_reviewed_change_whose_target_was_not_read_is_not_read_not_blamed_on_live() {
        let reviewed = plan(vec![record(Action::Create, None, None, Some("b"))]);
        let unread = check_live(&reviewed, &plan(Vec::new()), &LiveSnapshot::default())
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(unread.not_read, reviewed.changes);
        assert!(unread.not_made.is_empty() && !unread.holds());
        // The accepted form: the zone read, holding the created value, is in effect.
        let desired = crate::config::load_texts(&[(
            "z.yaml".into(),
            "zone: example.com\nrecords:\n  - {name: www, type: A, content: 192.0.2.1, ttl: 300}\n"
                .into(),
        )])
        .unwrap_or_else(|d| panic!("{d}"));
        let reviewed = plan(vec![record(Action::Create, None, None, Some("192.0.2.1"))]);
        let reviewed = Plan {
            desired: desired.clone(),
            ..reviewed
        };
        let live = crate::plan::snapshot::declared(&desired, &LiveSnapshot::default());
        let read =
            check_live(&reviewed, &plan(Vec::new()), &live).unwrap_or_else(|e| panic!("{e}"));
        assert!(read.holds(), "{read:?}");
        assert_eq!(read.already_live, reviewed.changes);
    }

    #[test]
    fn each_reviewed_change_allows_one_change() {
        let create = record(Action::Create, None, None, Some("a"));
        let reviewed = plan(vec![create.clone()]);
        let twice = plan(vec![create.clone(), create.clone()]);
        assert_eq!(check(&reviewed, &twice).unreviewed, vec![create]);
    }
}
