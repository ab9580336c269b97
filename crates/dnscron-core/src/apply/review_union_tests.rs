use super::*;
use crate::apply::review;
use crate::plan::{Action, Change};

fn record(action: Action, before: Option<&str>, after: Option<&str>) -> Change {
    crate::plan::model::record_change(action, Some(1), before, after)
}

fn plan(id: &str, url: &str, changes: Vec<Change>) -> Plan {
    Plan {
        plan_id: id.into(),
        created_at: format!("2026-01-0{}T00:00:00Z", id.len()),
        api_url: url.into(),
        options: crate::plan::PlanOptions {
            hosted_mode_wire_value: "veldhost".into(),
            allow_mass_changes: false,
        },
        targets: Vec::new(),
        summary: crate::plan::Summary::of(&changes),
        changes,
        findings: Vec::new(),
        desired: crate::config::model::Desired::default(),
        scope: None,
        over_limits: Vec::new(),
    }
}

const URL: &str = "http://127.0.0.1/api/v1";

#[test]
fn one_plan_keeps_its_id_and_changes() {
    let one = plan("aa", URL, vec![record(Action::Create, None, Some("a"))]);
    assert_eq!(union(std::slice::from_ref(&one)), Ok(one));
}

#[test]
fn several_plans_hold_every_change_under_an_id_of_the_set() {
    let a = plan("aa", URL, vec![record(Action::Create, None, Some("a"))]);
    let b = plan(
        "bbb",
        &format!("{URL}/"),
        vec![record(Action::Delete, Some("b"), None)],
    );
    let ab = union(&[a.clone(), b.clone()]).unwrap();
    let ba = union(&[b.clone(), a.clone()]).unwrap();
    assert_eq!(
        ab.plan_id, ba.plan_id,
        "the order of the files doesn't count"
    );
    assert_eq!(ab.plan_id.len(), 32);
    assert!(ab.plan_id.chars().all(|c| c.is_ascii_hexdigit()));
    assert_ne!(ab.plan_id, a.plan_id);
    assert_eq!(ab.changes.iter().map(|c| c.id).collect::<Vec<_>>(), [1, 2]);
    assert_eq!(ab.summary.create + ab.summary.delete, 2);
    assert_eq!(ab.created_at, b.created_at);
    // Either plan's change is reviewed by the union, each once.
    let now = plan("now", URL, vec![a.changes[0].clone(), b.changes[0].clone()]);
    assert!(review::check(&ab, &now).is_reviewed());
    let twice = plan("now", URL, vec![a.changes[0].clone(), a.changes[0].clone()]);
    assert_eq!(
        review::check(&ab, &twice).unreviewed,
        vec![a.changes[0].clone()]
    );
}

#[test]
fn the_same_plan_twice_counts_once() {
    let a = plan("aa", URL, vec![record(Action::Create, None, Some("a"))]);
    assert_eq!(union(&[a.clone(), a.clone()]), Ok(a));
}

#[test]
fn refused_forms() {
    let a = plan("aa", URL, Vec::new());
    let other = plan("bb", "http://127.0.0.2/api/v1", Vec::new());
    assert_eq!(
        union(&[a.clone(), other]),
        Err(UnionError::MixedApiUrls {
            index: 1,
            api_url: "http://127.0.0.2/api/v1".into(),
            first_url: URL.into(),
        })
    );
    let forged = plan("aa", URL, vec![record(Action::Create, None, Some("x"))]);
    assert_eq!(
        union(&[a, forged]),
        Err(UnionError::SharedPlanId {
            first: 0,
            index: 1,
            plan_id: "aa".into(),
        })
    );
    assert_eq!(union(&[]), Err(UnionError::Empty));
}

#[test]
fn the_limits_are_lifted_for_the_union_only_when_every_plan_lifted_them() {
    let lifted = |id: &str, on: bool| {
        let mut p = plan(id, URL, vec![record(Action::Create, None, Some(id))]);
        p.options.allow_mass_changes = on;
        p
    };
    let all = union(&[lifted("aa", true), lifted("bbb", true)]);
    assert_eq!(all.map(|u| u.options.allow_mass_changes), Ok(true));
    // Refused form: one reviewer saw the limits hold.
    let mixed = union(&[lifted("aa", true), lifted("bbb", false)]);
    assert_eq!(mixed.map(|u| u.options.allow_mass_changes), Ok(false));
}

#[test]
fn the_union_covers_every_scope_or_everything() {
    let scoped = |id: &str, zone: &str| {
        let mut p = plan(id, URL, vec![record(Action::Create, None, Some(id))]);
        p.scope = Some(crate::plan::Scope {
            since: "HEAD~1".into(),
            commit: "c".repeat(40),
            targets: vec![crate::plan::TargetRef {
                kind: crate::plan::TargetKind::Zone,
                name: zone.into(),
            }],
            removed: Vec::new(),
        });
        p
    };
    let both = union(&[scoped("aa", "a.example"), scoped("bbb", "b.example")]);
    let names = both.map(|u| {
        u.scope
            .map(|s| s.targets.into_iter().map(|t| t.name).collect::<Vec<_>>())
    });
    assert_eq!(
        names,
        Ok(Some(vec!["a.example".to_string(), "b.example".to_string()]))
    );
    // One plan that read everything: the union reads everything.
    let whole = plan("cccc", URL, vec![record(Action::Create, None, Some("c"))]);
    let mixed = union(&[scoped("aa", "a.example"), whole]);
    assert_eq!(mixed.map(|u| u.scope), Ok(None));
}
