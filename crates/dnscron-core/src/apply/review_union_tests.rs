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

fn finding(zone: &str, change_ids: Vec<usize>) -> crate::plan::Finding {
    let mut f = crate::plan::Finding::new(
        crate::plan::FindingCode::ALL[0],
        crate::plan::TargetRef {
            kind: crate::plan::TargetKind::Zone,
            name: zone.into(),
        },
        format!("about {zone}"),
    );
    f.change_ids = change_ids;
    f
}

fn target(name: &str) -> crate::plan::Target {
    crate::plan::Target {
        kind: crate::plan::TargetKind::Zone,
        name: name.into(),
        fingerprint: format!("sha256:{name}"),
        declared_at: format!("{name}.yaml:1:1"),
    }
}

#[test]
fn findings_follow_their_changes_and_each_target_is_held_once() {
    // Plan ids as a file may hold them: not 1..n in order. Renumbering goes by position.
    let mut first = plan(
        "aa",
        URL,
        vec![
            record(Action::Create, None, Some("a1")),
            record(Action::Create, None, Some("a2")),
        ],
    );
    first.changes[0].id = 7;
    first.changes[1].id = 3;
    first.findings = vec![finding("a.example", vec![3, 99])];
    first.targets = vec![target("a.example"), target("a.example")];
    let mut second = plan(
        "bbb",
        URL,
        vec![
            record(Action::Delete, Some("b1"), None),
            record(Action::Create, None, Some("b2")),
        ],
    );
    second.changes[0].id = 1;
    second.changes[1].id = 2;
    second.findings = vec![finding("b.example", vec![2]), finding("b.example", vec![2])];
    second.targets = vec![target("a.example"), target("b.example")];
    let u = union(&[first, second]).unwrap();
    assert_eq!(
        u.changes.iter().map(|c| c.id).collect::<Vec<_>>(),
        [1, 2, 3, 4]
    );
    assert_eq!(
        u.findings,
        vec![finding("a.example", vec![2]), finding("b.example", vec![4])],
        "a finding points at its change's new id, an id of no change is dropped, once each"
    );
    assert_eq!(u.targets, vec![target("a.example"), target("b.example")]);
    assert_eq!((u.summary.create, u.summary.delete), (3, 1));
}

fn desired(files: &[(&str, &str)]) -> crate::config::model::Desired {
    let files: Vec<_> = files
        .iter()
        .map(|(path, text)| ((*path).into(), (*text).to_string()))
        .collect();
    crate::config::load_texts(&files).unwrap_or_else(|d| panic!("{d:?}"))
}

#[test]
fn the_union_reviews_against_each_documents_latest_declaration() {
    let mut a = plan("aa", URL, vec![record(Action::Create, None, Some("a"))]);
    a.desired = desired(&[
        ("a.yaml", "zone: a.example\nprune: false\n"),
        ("s.yaml", "site: shop\n"),
    ]);
    let mut b = plan("bbb", URL, vec![record(Action::Create, None, Some("b"))]);
    b.desired = desired(&[
        ("b.yaml", "zone: b.example\n"),
        ("a.yaml", "zone: a.example\n"),
        ("s.yaml", "site: shop\ncron: []\n"),
        ("t.yaml", "site: blog\n"),
    ]);
    let u = union(&[a, b.clone()]).unwrap();
    let zones: Vec<_> = u
        .desired
        .zones
        .iter()
        .map(|z| (z.zone.to_string(), z.prune))
        .collect();
    assert_eq!(
        zones,
        [
            ("a.example".to_string(), true),
            ("b.example".to_string(), true)
        ],
        "each zone once, in first-declared order, as the later plan declares it"
    );
    let sites: Vec<_> = u
        .desired
        .sites
        .iter()
        .map(|s| (s.slug.as_str(), s.cron.clone()))
        .collect();
    assert_eq!(sites, [("shop", Some(Vec::new())), ("blog", None)]);
}

#[test]
fn the_api_url_is_compared_without_blanks_or_a_final_slash() {
    let a = plan("aa", URL, Vec::new());
    let b = plan("bbb", &format!(" {URL}/ \n"), Vec::new());
    assert!(union(&[a.clone(), b]).is_ok());
    let other = plan("bbb", "http://127.0.0.1/api/v2", Vec::new());
    assert!(union(&[a, other]).is_err());
}

#[test]
fn the_id_of_one_plan_is_its_own_however_often_it_is_given() {
    let a = plan("aa", URL, Vec::new());
    let b = plan("bbb", URL, Vec::new());
    assert_eq!(union_id(&[&a]), "aa");
    assert_eq!(union_id(&[&a, &a]), "aa");
    assert_eq!(union_id(&[&a, &b, &a]), union_id(&[&b, &a]));
    assert_ne!(union_id(&[&a, &b]), "aa");
}
