//! Execution order: creates and updates before deletes, except CNAME replacements and the cron
//! 5-job limit; ready changes before blocked ones and portal steps; nameservers last.

use dnscron_core::config::model::Desired;
use dnscron_core::plan::snapshot::LiveSnapshot;
use dnscron_core::plan::{Action, Plan, Resource, Status};

use super::fixtures::*;

/// `"<action> <subject>"` per change, in plan order.
fn steps(plan: &Plan) -> Vec<String> {
    plan.changes
        .iter()
        .map(|c| {
            let what = match &c.resource {
                Resource::Record { name, rtype, .. } => format!("{} {name} {rtype}", c.target.name),
                Resource::CronJob {
                    schedule, command, ..
                } => format!("{} {schedule} {command}", c.target.name),
                Resource::Nameservers => format!("{} nameservers", c.target.name),
            };
            format!("{} {what}", c.action.as_str())
        })
        .collect()
}

fn zone_plan(want: &[(&str, &str, u32, &str)], have: &[(&str, &str, u32, &str)]) -> Plan {
    let desired = Desired {
        unmanaged: Default::default(),
        zones: vec![zone("example.com", want)],
        sites: vec![],
    };
    let live = LiveSnapshot {
        zones: vec![live_zone("example.com", have)],
        ..Default::default()
    };
    plan_of(&desired, &live)
}

#[test]
fn creates_and_updates_come_before_deletes() {
    let plan = zone_plan(
        &[
            ("b", "A", 3600, "192.0.2.2"),
            ("c", "A", 60, "192.0.2.3"),
            ("d", "A", 3600, "192.0.2.4"),
        ],
        &[
            ("a", "A", 3600, "192.0.2.1"),
            ("c", "A", 3600, "192.0.2.3"),
            ("e", "A", 3600, "192.0.2.5"),
        ],
    );
    assert_eq!(
        steps(&plan),
        vec![
            "create example.com b A",
            "update example.com c A",
            "create example.com d A",
            "delete example.com a A",
            "delete example.com e A",
        ]
    );
    let ids: Vec<usize> = plan.changes.iter().map(|c| c.id).collect();
    assert_eq!(ids, vec![1, 2, 3, 4, 5]);
}

#[test]
fn a_cname_replacing_records_deletes_them_first() {
    let plan = zone_plan(
        &[
            ("www", "CNAME", 300, "example.com."),
            ("zz", "A", 3600, "192.0.2.9"),
        ],
        &[
            ("www", "A", 3600, "192.0.2.1"),
            ("www", "AAAA", 3600, "2001:db8::1"),
            ("old", "A", 3600, "192.0.2.8"),
        ],
    );
    assert_eq!(
        steps(&plan),
        vec![
            "delete example.com www A",
            "delete example.com www AAAA",
            "create example.com www CNAME",
            "create example.com zz A",
            "delete example.com old A",
        ]
    );
}

#[test]
fn records_replacing_a_cname_delete_it_first() {
    let plan = zone_plan(
        &[
            ("www", "A", 3600, "192.0.2.1"),
            ("www", "AAAA", 3600, "2001:db8::1"),
        ],
        &[("www", "CNAME", 300, "example.com.")],
    );
    assert_eq!(
        steps(&plan),
        vec![
            "delete example.com www CNAME",
            "create example.com www A",
            "create example.com www AAAA",
        ]
    );
}

#[test]
fn a_changed_cname_target_is_a_plain_update() {
    let plan = zone_plan(
        &[("www", "CNAME", 300, "example.org.")],
        &[("www", "CNAME", 300, "example.com.")],
    );
    assert_eq!(steps(&plan), vec!["update example.com www CNAME"]);
}

fn cron_steps(want: &[(&str, &str)], have: &[(&str, &str)]) -> Vec<String> {
    let desired = Desired {
        unmanaged: Default::default(),
        zones: vec![],
        sites: vec![site("shop", want)],
    };
    let live = LiveSnapshot {
        sites: vec![live_site("shop", "active", 1, have)],
        ..Default::default()
    };
    steps(&plan_of(&desired, &live))
}

#[test]
fn cron_replacement_below_the_limit_creates_first() {
    assert_eq!(
        cron_steps(
            &[("30 2 * * 0", "php cleanup.php")],
            &[("30 3 * * 0", "php cleanup.php")]
        ),
        vec![
            "create shop 30 2 * * 0 php cleanup.php",
            "delete shop 30 3 * * 0 php cleanup.php"
        ]
    );
}

#[test]
fn cron_replacement_at_five_jobs_deletes_first() {
    let kept = [
        ("0 1 * * *", "php a.php"),
        ("0 2 * * *", "php b.php"),
        ("0 3 * * *", "php c.php"),
    ];
    let mut have = kept.to_vec();
    have.extend([("0 4 * * *", "php old1.php"), ("0 5 * * *", "php old2.php")]);
    let mut want = kept.to_vec();
    want.extend([("0 6 * * *", "php new1.php"), ("0 7 * * *", "php new2.php")]);
    assert_eq!(
        cron_steps(&want, &have),
        vec![
            "delete shop 0 4 * * * php old1.php",
            "delete shop 0 5 * * * php old2.php",
            "create shop 0 6 * * * php new1.php",
            "create shop 0 7 * * * php new2.php",
        ]
    );
    // At 4 jobs with two replacements, one delete must go first, the other can wait.
    have.remove(0);
    want.remove(0);
    assert_eq!(
        cron_steps(&want, &have),
        vec![
            "delete shop 0 4 * * * php old1.php",
            "create shop 0 6 * * * php new1.php",
            "create shop 0 7 * * * php new2.php",
            "delete shop 0 5 * * * php old2.php",
        ]
    );
}

#[test]
fn the_example_account_runs_ready_work_first_and_portal_steps_last() {
    let (desired, live) = example_account();
    let plan = plan_of(&desired, &live);
    let statuses: Vec<Status> = plan.changes.iter().map(|c| c.status).collect();
    let first_not_ready = statuses.iter().position(|s| *s != Status::Ready).unwrap();
    assert!(
        statuses[first_not_ready..]
            .iter()
            .all(|s| *s != Status::Ready)
    );
    assert_eq!(statuses.last(), Some(&Status::NeedsPortalStep));
    let ready_ns = plan
        .changes
        .iter()
        .position(|c| matches!(c.resource, Resource::Nameservers) && c.status == Status::Ready)
        .unwrap();
    assert!(
        plan.changes[..ready_ns]
            .iter()
            .all(|c| c.status == Status::Ready && !matches!(c.resource, Resource::Nameservers)),
        "the ready nameserver change follows every ready record and cron change"
    );
    assert_eq!(
        plan.changes
            .iter()
            .filter(|c| c.action == Action::Delete)
            .count(),
        4
    );
    // Same inputs, same order.
    let again = plan_of(&desired, &live);
    assert_eq!(steps(&plan), steps(&again));
}
