//! Review-bound apply (docs/apply.md, "Review-bound apply" and "The contract"): a plan made
//! now may run only when every one of its changes is one of a reviewed plan's changes, with the
//! precondition the reviewer saw.
//!
//! Two changes are the same when their `MatchKey`s are equal: target (kind and name), action,
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
pub(crate) struct MatchKey {
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
    pub(crate) fn of(change: &Change) -> MatchKey {
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
pub(crate) struct Review {
    /// Changes of the new plan no reviewed change matches: apply refuses to run.
    pub unreviewed: Vec<Change>,
    /// Reviewed changes the new plan no longer needs. After `check_live`: only those whose
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
    pub(crate) fn is_reviewed(&self) -> bool {
        self.unreviewed.is_empty()
    }

    /// Every reviewed change is either made now under its precondition or in effect.
    pub(crate) fn holds(&self) -> bool {
        self.changed.is_empty() && self.not_made.is_empty() && self.not_read.is_empty()
    }
}

/// Matches `now`'s changes against `reviewed`'s, each reviewed change at most once (two
/// identical cron jobs reviewed allow two identical creates, not three). The binding uses
/// [`check_live`]; this is its offline half, for the tests.
#[cfg(test)]
pub(crate) fn check(reviewed: &Plan, now: &Plan) -> Review {
    let (review, _) = pair(reviewed, now);
    review
}

/// `check`, then each reviewed change the plan made now does not need is looked up in
/// `live` (read for the plan made now): in effect, changed since review, or not made.
pub(crate) fn check_live(
    reviewed: &Plan,
    now: &Plan,
    live: &LiveSnapshot,
) -> Result<Review, PlanError> {
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
pub(crate) struct Split {
    /// Changes made now that are reviewed changes from the reviewed value: they may run.
    pub(crate) reviewed: Vec<Change>,
    /// Every other change made now: drift, never sent (no reviewed change allows it, or the
    /// live value moved from the reviewed one).
    pub(crate) left: Vec<Change>,
    /// Reviewed changes whose thing holds another value now than the one reviewed, with both
    /// values: why some of `left` are left.
    pub(crate) moved: Vec<Moved>,
}

/// Splits `now`'s changes by `pair`: each runs only as a reviewed change from the reviewed
/// value, anything else is left alone.
pub(crate) fn split(reviewed: &Plan, now: &Plan) -> Split {
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
pub(crate) fn bound(reviewed: &Plan, now: Plan) -> Plan {
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

    fn zone_files(text: &str) -> Desired {
        crate::config::load_texts(&[("z.yaml".into(), text.into())])
            .unwrap_or_else(|d| panic!("{d:?}"))
    }

    fn value(content: &str) -> Value {
        Value::Record {
            ttl: 300,
            content: content.into(),
        }
    }

    #[test]
    fn the_same_intent_needs_the_same_target_and_the_same_thing() {
        let reviewed = plan(vec![record(Action::Update, Some(1), Some("a"), Some("b"))]);
        let reviewed_change = &reviewed.changes[0];
        // Refused forms: the same value put on another name, or in another zone, from another
        // starting value is not the reviewed change moved: it is unreviewed.
        let other_name = Change {
            resource: Resource::Record {
                name: "mail".into(),
                rtype: RecordType::A,
                record_id: Some(2),
            },
            ..record(Action::Update, Some(2), Some("c"), Some("b"))
        };
        let other_zone = Change {
            target: TargetRef {
                kind: crate::plan::TargetKind::Zone,
                name: "example.org".into(),
            },
            ..record(Action::Update, Some(3), Some("c"), Some("b"))
        };
        for now in [other_name, other_zone] {
            let review = check(&reviewed, &plan(vec![now.clone()]));
            assert_eq!(review.unreviewed, [now]);
            assert!(review.changed.is_empty(), "{review:?}");
            assert_eq!(review.already_live, std::slice::from_ref(reviewed_change));
        }
        // The accepted form: the same name and zone from another value is changed since review.
        let moved = record(Action::Update, Some(1), Some("c"), Some("b"));
        let review = check(&reviewed, &plan(vec![moved]));
        assert!(review.unreviewed.is_empty() && review.already_live.is_empty());
        assert_eq!(review.changed.len(), 1);
    }

    #[test]
    fn a_review_holds_only_when_nothing_moved_nothing_is_missing_and_everything_was_read() {
        let c = record(Action::Create, None, None, Some("a"));
        assert!(Review::default().holds());
        let moved = Review {
            changed: vec![Moved::new(&c, None, Some(value("z")))],
            ..Review::default()
        };
        let not_made = Review {
            not_made: vec![c.clone()],
            ..Review::default()
        };
        let not_read = Review {
            not_read: vec![c.clone()],
            ..Review::default()
        };
        for review in [moved, not_made, not_read] {
            assert!(!review.holds(), "{review:?}");
            assert!(review.is_reviewed());
        }
        // Changes already in effect don't break it.
        let live = Review {
            already_live: vec![c],
            ..Review::default()
        };
        assert!(live.holds());
    }

    #[test]
    fn split_sends_only_changes_reviewed_from_the_reviewed_value() {
        let exact = record(Action::Update, Some(1), Some("a"), Some("b"));
        let reviewed = plan(vec![
            exact.clone(),
            record(Action::Delete, Some(2), Some("d"), None),
        ]);
        let moved = record(Action::Delete, Some(2), Some("e"), None);
        let drift = record(Action::Create, None, None, Some("x"));
        let now = plan(vec![exact.clone(), moved.clone(), drift.clone()]);
        let split = split(&reviewed, &now);
        assert_eq!(split.reviewed, [exact]);
        assert_eq!(split.left, [moved, drift]);
        assert_eq!(
            split.moved,
            [Moved::new(
                &reviewed.changes[1],
                Some(value("d")),
                Some(value("e"))
            )]
        );
    }

    #[test]
    fn a_cron_change_is_reviewed_only_for_the_number_of_copies_reviewed() {
        let site = |jobs: &str| {
            crate::config::load_texts(&[("s.yaml".into(), format!("site: blog\ncron:{jobs}\n"))])
                .unwrap_or_else(|d| panic!("{d:?}"))
        };
        let job = "\n  - {schedule: \"0 3 * * *\", command: \"wp cron\"}";
        let other = "\n  - {schedule: \"0 4 * * *\", command: \"wp other\"}";
        let delete = Change::new(
            Action::Delete,
            TargetRef {
                kind: crate::plan::TargetKind::Site,
                name: "blog".into(),
            },
            Resource::CronJob {
                schedule: "0 3 * * *".into(),
                command: "wp cron".into(),
                occurrence: 0,
            },
            Some(Value::CronJob {
                schedule: "0 3 * * *".into(),
                command: "wp cron".into(),
            }),
            None,
        );
        let with = |desired: Desired| Plan {
            desired,
            ..plan(vec![delete.clone()])
        };
        // Reviewed: keep one copy (of two live). Now: keep none. Same change, other intent.
        let reviewed = with(site(&format!("{job}{other}")));
        let now = with(site(other));
        assert_eq!(
            check(&reviewed, &now).unreviewed,
            std::slice::from_ref(&delete)
        );
        // The accepted form: the same number of copies declared, whatever else the site runs.
        let now = with(site(job));
        assert!(check(&reviewed, &now).is_reviewed());
    }

    #[test]
    fn a_reviewed_change_the_files_still_need_is_not_made_not_moved() {
        let desired = zone_files(
            "zone: example.com\nrecords:\n  - {name: www, type: A, content: 192.0.2.1, ttl: 300}\n",
        );
        let reviewed = Plan {
            desired: desired.clone(),
            ..plan(vec![record(Action::Create, None, None, Some("192.0.2.1"))])
        };
        let empty = LiveSnapshot {
            zones: vec![crate::plan::snapshot::LiveZone {
                zone: desired.zones[0].zone.clone(),
                records: Default::default(),
                service_nameservers: Vec::new(),
            }],
            ..LiveSnapshot::default()
        };
        let review =
            check_live(&reviewed, &plan(Vec::new()), &empty).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(review.not_made, reviewed.changes);
        assert!(review.changed.is_empty() && review.already_live.is_empty());
        // Unread, the zone is neither judged nor planned (no error for its missing listing).
        let unread = check_live(&reviewed, &plan(Vec::new()), &LiveSnapshot::default())
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(unread.not_read, reviewed.changes);
    }

    #[test]
    fn a_reviewed_change_is_in_effect_only_by_its_own_record() {
        // The files now declare 192.0.2.1 at `mail` only; the reviewed create of `www` with that
        // value is not in effect because `mail` holds it.
        let desired = zone_files(
            "zone: example.com\nrecords:\n  - {name: mail, type: A, content: 192.0.2.1, ttl: 300}\n",
        );
        let live = crate::plan::snapshot::declared(&desired, &LiveSnapshot::default());
        let create = Plan {
            desired: desired.clone(),
            ..plan(vec![record(Action::Create, None, None, Some("192.0.2.1"))])
        };
        let review =
            check_live(&create, &plan(Vec::new()), &live).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(review.not_made, create.changes);
        assert!(review.already_live.is_empty());
        // A reviewed delete of `www`'s 192.0.2.1 is in effect although `mail` holds that value.
        let delete = Plan {
            desired,
            ..plan(vec![record(
                Action::Delete,
                Some(5),
                Some("192.0.2.1"),
                None,
            )])
        };
        let review =
            check_live(&delete, &plan(Vec::new()), &live).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(review.already_live, delete.changes);
        assert!(review.holds(), "{review:?}");
    }

    #[test]
    fn the_plan_bound_runs_under_the_reviewed_id_with_the_reviewed_findings_about_no_change() {
        let target = TargetRef {
            kind: crate::plan::TargetKind::Domain,
            name: "example.com".into(),
        };
        let finding = |message: &str, change_ids: Vec<usize>| crate::plan::Finding {
            change_ids,
            ..crate::plan::Finding::new(
                crate::plan::FindingCode::ServiceNameserversUnlisted,
                target.clone(),
                message.into(),
            )
        };
        let reviewed = Plan {
            plan_id: "reviewed".into(),
            findings: vec![
                finding("registrar", vec![]),
                finding("of a change", vec![1]),
                finding("both", vec![]),
            ],
            ..plan(Vec::new())
        };
        let now = Plan {
            plan_id: "now".into(),
            findings: vec![finding("both", vec![]), finding("new", vec![1])],
            ..plan(vec![record(Action::Create, None, None, Some("a"))])
        };
        let bound = bound(&reviewed, now.clone());
        assert_eq!(bound.plan_id, "reviewed");
        assert_eq!(bound.changes, now.changes);
        assert_eq!(
            bound.findings,
            [
                finding("both", vec![]),
                finding("new", vec![1]),
                finding("registrar", vec![])
            ]
        );
    }

    #[test]
    fn a_reviewed_cron_job_the_files_still_need_is_not_made_beside_one_made_now() {
        let site = |jobs: &str| {
            crate::config::load_texts(&[("s.yaml".into(), format!("site: blog\ncron:{jobs}\n"))])
                .unwrap_or_else(|d| panic!("{d:?}"))
        };
        let create = |schedule: &str, command: &str| {
            Change::new(
                Action::Create,
                TargetRef {
                    kind: crate::plan::TargetKind::Site,
                    name: "blog".into(),
                },
                Resource::CronJob {
                    schedule: schedule.into(),
                    command: command.into(),
                    occurrence: 0,
                },
                None,
                Some(Value::CronJob {
                    schedule: schedule.into(),
                    command: command.into(),
                }),
            )
        };
        let dropped = create("0 3 * * *", "wp dropped");
        let kept = create("0 4 * * *", "wp kept");
        let reviewed = Plan {
            desired: site(
                "\n  - {schedule: \"0 3 * * *\", command: \"wp dropped\"}\n  - {schedule: \"0 4 * * *\", command: \"wp kept\"}",
            ),
            ..plan(vec![dropped.clone(), kept.clone()])
        };
        let now = Plan {
            desired: site("\n  - {schedule: \"0 4 * * *\", command: \"wp kept\"}"),
            ..plan(vec![kept])
        };
        let live = LiveSnapshot {
            sites: vec![crate::plan::snapshot::LiveSite {
                slug: "blog".into(),
                state: Some("active".into()),
                cron: Some(Vec::new()),
            }],
            ..LiveSnapshot::default()
        };
        let review = check_live(&reviewed, &now, &live).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            review.not_made,
            std::slice::from_ref(&dropped),
            "{review:?}"
        );
        assert!(review.already_live.is_empty() && review.unreviewed.is_empty());
        // The site read without its cron listing: nothing is known of its jobs.
        let unread = LiveSnapshot {
            sites: vec![crate::plan::snapshot::LiveSite {
                cron: None,
                ..live.sites[0].clone()
            }],
            ..LiveSnapshot::default()
        };
        let review = check_live(&reviewed, &now, &unread).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(review.not_read, [dropped]);
    }

    #[test]
    fn a_reviewed_delegation_is_judged_only_where_the_domain_was_read() {
        let delegate = |hosts: &str| {
            zone_files(&format!(
                "zone: example.com\nnameservers: {{mode: custom, hosts: [{hosts}]}}\nrecords:\n  - {{name: www, type: A, content: 192.0.2.1, ttl: 300}}\n"
            ))
        };
        let desired = delegate("ns1.other.net, ns2.other.net");
        let live = crate::plan::snapshot::declared(
            &delegate("ns1.old.net, ns2.old.net"),
            &LiveSnapshot::default(),
        );
        let made = crate::plan::diff(&desired, &live, &DiffOptions::default())
            .unwrap_or_else(|e| panic!("{e}"));
        let reviewed = Plan {
            desired,
            ..plan(made.changes)
        };
        assert!(
            matches!(reviewed.changes.as_slice(), [c] if c.resource == Resource::Nameservers),
            "{:?}",
            reviewed.changes
        );
        // Still needed by the files, the delegation not made now is not made.
        let review =
            check_live(&reviewed, &plan(Vec::new()), &live).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(review.not_made, reviewed.changes);
        // The domain not read: its delegation is not read, and no error for the zone.
        let no_domain = LiveSnapshot {
            domains: Vec::new(),
            ..live.clone()
        };
        let review =
            check_live(&reviewed, &plan(Vec::new()), &no_domain).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(review.not_read, reviewed.changes);
    }
}
