//! The revision binding, without a server: live states are what a desired state declares
//! (`snapshot::declared`), edited.

use super::bind::{self, Next, Outcome};
use super::{Refusal, ReviewedBy, revision};
use crate::apply::ApplyResult;
use crate::config::model::Desired;
use crate::plan::snapshot::{LiveSnapshot, declared};
use crate::plan::{Action, DiffOptions, Planned, diff};

fn desired(www: &str, extra: &str) -> Desired {
    let text = format!(
        "zone: a.example\nrecords:\n  - {{name: www, type: A, content: {www}}}\n  - {{name: mail, type: A, content: 192.0.2.9}}\n{extra}"
    );
    crate::config::load_texts(&[("a.yaml".into(), text)]).unwrap_or_else(|d| panic!("{d}"))
}

/// The files now (`www` at 192.0.2.2, where the previous revision had 192.0.2.1) planned
/// against `live`, bound to the previous revision.
fn bound_to_previous(live: LiveSnapshot) -> Result<bind::Bound, Refusal> {
    let previous = desired("192.0.2.1", "");
    let now = desired("192.0.2.2", "");
    let plan = diff(&now, &live, &DiffOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let planned = Planned { plan, live };
    let reviewed = revision::reviewed(&previous, &planned, false)?;
    bind::bind(&reviewed, planned.plan, planned.live, ReviewedBy::Revision)
}

fn live_with(www: &str, extra: &str) -> LiveSnapshot {
    declared(&desired(www, extra), &LiveSnapshot::default())
}

#[test]
fn a_record_changed_between_revisions_applies_while_live_holds_the_previous_value() {
    let bound = bound_to_previous(live_with("192.0.2.1", "")).unwrap_or_else(|e| panic!("{e}"));
    let Next::Ready(Outcome::Execute { already_live }) = bound.next else {
        panic!("not executed");
    };
    assert!(already_live.is_empty());
    let actions: Vec<_> = bound.plan.changes.iter().map(|c| c.action).collect();
    assert_eq!(actions, [Action::Update]);
}

#[test]
fn a_record_someone_moved_since_the_previous_revision_is_changed_since_review() {
    let bound = bound_to_previous(live_with("192.0.2.3", "")).unwrap_or_else(|e| panic!("{e}"));
    let Next::Ready(Outcome::Report(report)) = bound.next else {
        panic!("executed although live moved");
    };
    let ApplyResult::ChangedSinceReview { changed, .. } = &report.result else {
        panic!("{:?}", report.result);
    };
    assert_eq!(changed.len(), 1);
}

#[test]
fn a_record_only_live_in_neither_revision_is_unreviewed() {
    let only_live = "  - {name: only, type: A, content: 192.0.2.50}\n";
    let refused = bound_to_previous(live_with("192.0.2.1", only_live)).map(|_| ());
    let Err(Refusal::Unreviewed {
        reviewed_by,
        changes,
    }) = refused
    else {
        panic!("{refused:?}");
    };
    assert_eq!(reviewed_by, ReviewedBy::Revision);
    let deletes: Vec<_> = changes.iter().map(|c| c.action).collect();
    assert_eq!(deletes, [Action::Delete]);
}
