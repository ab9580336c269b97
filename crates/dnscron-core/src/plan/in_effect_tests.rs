use super::*;
use crate::plan::model::record_change;
use crate::plan::snapshot::LiveSite;

fn record(content: &str) -> Value {
    Value::Record {
        ttl: 300,
        content: content.into(),
    }
}

fn moved(live: Option<Value>) -> Effect {
    Effect::Moved { live }
}

#[test]
fn a_record_create_is_in_effect_only_when_its_value_is_held() {
    let create = record_change(Action::Create, None, None, Some("b"));
    assert_eq!(
        effect(&create, &[record("a"), record("b")]),
        Effect::InEffect
    );
    // Refused: another value at the name (an RRset's other record) is not its after-state, and
    // a create expects nothing more than its value missing.
    assert_eq!(effect(&create, &[record("a")]), Effect::Pending);
    assert_eq!(effect(&create, &[]), Effect::Pending);
    let other_ttl = Value::Record {
        ttl: 60,
        content: "b".into(),
    };
    assert_eq!(effect(&create, &[other_ttl]), Effect::Pending);
}

#[test]
fn a_record_update_is_pending_from_its_before_and_moved_from_anything_else() {
    let update = record_change(Action::Update, Some(1), Some("a"), Some("b"));
    assert_eq!(effect(&update, &[record("b")]), Effect::InEffect);
    assert_eq!(effect(&update, &[record("a")]), Effect::Pending);
    // Refused: neither its before nor its after; the value held instead is named.
    assert_eq!(effect(&update, &[record("z")]), moved(Some(record("z"))));
    assert_eq!(effect(&update, &[]), moved(None));
}

#[test]
fn a_record_delete_is_in_effect_once_the_value_it_removes_is_gone() {
    let delete = record_change(Action::Delete, Some(1), Some("a"), None);
    assert_eq!(effect(&delete, &[]), Effect::InEffect);
    assert_eq!(effect(&delete, &[record("b")]), Effect::InEffect);
    // Refused: the value is still held, beside others or alone.
    assert_eq!(
        effect(&delete, &[record("b"), record("a")]),
        Effect::Pending
    );
    assert_eq!(effect(&delete, &[record("a")]), Effect::Pending);
}

#[test]
fn a_404_puts_only_a_delete_in_effect() {
    let delete = record_change(Action::Delete, Some(1), Some("a"), None);
    assert!(absent(&delete).is_in_effect());
    // Refused: an update whose record is gone moved; a create is still to be made.
    let update = record_change(Action::Update, Some(1), Some("a"), Some("b"));
    assert_eq!(absent(&update), moved(None));
    let create = record_change(Action::Create, None, None, Some("b"));
    assert_eq!(absent(&create), Effect::Pending);
}

#[test]
fn the_diffs_record_form_agrees_with_the_rule() {
    let create = record_change(Action::Create, None, None, Some("b"));
    for (ttl, content) in [(300, "b"), (60, "b"), (300, "a")] {
        let live = Value::Record {
            ttl,
            content: content.into(),
        };
        assert_eq!(
            record_in_effect((ttl, content), (300, "b")),
            effect(&create, &[live]).is_in_effect(),
            "{ttl} {content}"
        );
    }
    assert!(record_in_effect((300, "b"), (300, "b")));
    assert!(!record_in_effect((60, "b"), (300, "b")));
}

fn job() -> Value {
    Value::CronJob {
        schedule: "0 * * * *".into(),
        command: "wp cache flush".into(),
    }
}

fn cron_change(action: Action, occurrence: u32) -> Change {
    let site = TargetRef {
        kind: TargetKind::Site,
        name: "blog".into(),
    };
    let resource = crate::plan::Resource::CronJob {
        schedule: "0 * * * *".into(),
        command: "wp cache flush".into(),
        occurrence,
    };
    let (before, after) = match action {
        Action::Create => (None, Some(job())),
        Action::Update | Action::Delete => (Some(job()), None),
    };
    Change::new(action, site, resource, before, after)
}

/// Whether copy `occurrence` of `planned` creates or deletes towards `declared` copies is in
/// effect with `held` copies listed.
fn copy_in_effect(
    action: Action,
    declared: usize,
    planned: usize,
    occurrence: u32,
    held: usize,
) -> bool {
    effect_on_copies(
        action,
        held,
        copies_after(action, declared, planned, occurrence),
    )
    .is_in_effect()
}

#[test]
fn a_cron_delete_of_identical_copies_is_in_effect_at_its_count() {
    // 3 live copies, the files keep 1: deletes 0 and 1, leaving 2 then 1.
    assert_eq!(copies_after(Action::Delete, 1, 2, 0), 2);
    assert_eq!(copies_after(Action::Delete, 1, 2, 1), 1);
    assert!(copy_in_effect(Action::Delete, 1, 2, 0, 2));
    assert!(copy_in_effect(Action::Delete, 1, 2, 0, 1));
    assert!(copy_in_effect(Action::Delete, 1, 2, 1, 1));
    // Refused: more copies than should remain (the copy the files keep is never in reach).
    assert!(!copy_in_effect(Action::Delete, 1, 2, 0, 3));
    assert!(!copy_in_effect(Action::Delete, 1, 2, 1, 2));
    assert_eq!(effect_on_copies(Action::Delete, 2, 1), Effect::Pending);
    // One copy, none kept: the value rule says the same as the count.
    let delete = cron_change(Action::Delete, 0);
    assert_eq!(effect(&delete, &[job()]), Effect::Pending);
    assert!(effect(&delete, &[]).is_in_effect());
}

#[test]
fn a_cron_create_of_identical_copies_is_in_effect_at_its_count() {
    // 1 live copy, the files declare 3: creates 0 and 1, reaching 2 then 3.
    assert_eq!(copies_after(Action::Create, 3, 2, 0), 2);
    assert_eq!(copies_after(Action::Create, 3, 2, 1), 3);
    assert!(copy_in_effect(Action::Create, 3, 2, 1, 3));
    // Refused: fewer copies than it ends with; one copy held is the value, not the count.
    assert!(!copy_in_effect(Action::Create, 3, 2, 1, 2));
    assert_eq!(effect_on_copies(Action::Create, 2, 3), Effect::Pending);
    let create = cron_change(Action::Create, 1);
    assert!(effect(&create, &[job()]).is_in_effect());
    assert!(!copy_in_effect(Action::Create, 3, 2, 1, 1));
    assert_eq!(effect(&create, &[]), Effect::Pending);
}

fn nameservers(mode: &str, hosts: &[&str]) -> Value {
    Value::Nameservers {
        mode: mode.into(),
        nameservers: hosts.iter().map(|h| h.to_string()).collect(),
    }
}

#[test]
fn a_nameserver_switch_is_in_effect_only_with_its_mode_and_hosts() {
    let domain = TargetRef {
        kind: TargetKind::Domain,
        name: "example.com".into(),
    };
    let hosted = nameservers("hosted", &["ns1.veldhost.net", "ns2.veldhost.net"]);
    let custom = nameservers("custom", &["ns1.example.net", "ns2.example.net"]);
    let switch = Change::new(
        Action::Update,
        domain,
        crate::plan::Resource::Nameservers,
        Some(hosted.clone()),
        Some(custom.clone()),
    );
    assert!(effect(&switch, std::slice::from_ref(&custom)).is_in_effect());
    assert_eq!(
        effect(&switch, std::slice::from_ref(&hosted)),
        Effect::Pending
    );
    // Refused: another set of hosts is someone else's.
    let other = nameservers("custom", &["ns.elsewhere.org"]);
    assert_eq!(
        effect(&switch, std::slice::from_ref(&other)),
        moved(Some(other))
    );
}

#[test]
fn a_re_read_shows_a_write_unless_it_asks_for_it_again_from_its_before() {
    let sent = record_change(Action::Update, Some(7), Some("a"), Some("b"));
    assert!(unchanged_by(&sent.clone(), &sent));
    assert!(asks_again(&sent.clone(), &sent));
    // Refused by `unchanged_by`, still asked again: someone set another value meanwhile.
    let moved_since = record_change(Action::Update, Some(7), Some("z"), Some("b"));
    assert!(!unchanged_by(&moved_since, &sent));
    assert!(asks_again(&moved_since, &sent));
    // Refused by both: another value is another write, another record another thing.
    let other_value = record_change(Action::Update, Some(7), Some("a"), Some("c"));
    assert!(!unchanged_by(&other_value, &sent) && !asks_again(&other_value, &sent));
    let mut other_name = sent.clone();
    other_name.resource = crate::plan::Resource::Record {
        name: "mail".into(),
        rtype: crate::dns::RecordType::A,
        record_id: Some(7),
    };
    assert!(!unchanged_by(&other_name, &sent) && !asks_again(&other_name, &sent));
    // A delete is asked again only as a delete of the value it removed.
    let delete = record_change(Action::Delete, Some(7), Some("a"), None);
    assert!(unchanged_by(&delete.clone(), &delete));
    let update_of_it = record_change(Action::Update, Some(7), Some("a"), Some("b"));
    assert!(!asks_again(&update_of_it, &delete));
    assert_eq!(held_per(&delete), &[record("a")]);
}

#[test]
fn a_site_is_read_for_its_cron_jobs_only_with_them() {
    let site = TargetRef {
        kind: TargetKind::Site,
        name: "blog".into(),
    };
    let with_cron = |cron| LiveSnapshot {
        sites: vec![LiveSite {
            slug: "blog".into(),
            state: Some("active".into()),
            cron,
        }],
        ..LiveSnapshot::default()
    };
    assert!(was_read(&with_cron(Some(Vec::new())), &site));
    // Refused: read without its cron jobs, or not read at all.
    assert!(!was_read(&with_cron(None), &site));
    assert!(!was_read(&LiveSnapshot::default(), &site));
}

#[test]
fn a_delegation_is_in_effect_by_its_hosts_whatever_mode_names_them() {
    let set = |hosts: &[&str]| hosts.iter().map(|h| h.to_string()).collect();
    let service = set(&["ns1.veldhost.net", "ns2.veldhost.net"]);
    // Custom hosts that are the service's own: the registry listing them is the switch done.
    assert!(delegation_in_effect(&service, &service));
    let domain = TargetRef {
        kind: TargetKind::Domain,
        name: "example.com".into(),
    };
    let to_custom_service = Change::new(
        Action::Update,
        domain,
        crate::plan::Resource::Nameservers,
        Some(nameservers(
            "custom",
            &["ns.elsewhere.org", "ns2.elsewhere.org"],
        )),
        Some(nameservers(
            "custom",
            &["ns1.veldhost.net", "ns2.veldhost.net"],
        )),
    );
    let hosted = nameservers("hosted", &["ns1.veldhost.net", "ns2.veldhost.net"]);
    assert!(effect(&to_custom_service, &[hosted]).is_in_effect());
    // Refused forms: other hosts, a subset, and an empty registry (delegated nowhere).
    assert!(!delegation_in_effect(&set(&["ns1.veldhost.net"]), &service));
    assert!(!delegation_in_effect(&set(&["ns.elsewhere.org"]), &service));
    assert!(!delegation_in_effect(&BTreeSet::new(), &BTreeSet::new()));
}

#[test]
fn a_cron_copy_is_in_effect_only_with_its_normalized_schedule_and_command() {
    let job = |s: &str, c: &str| crate::plan::job_key(s, c);
    assert!(job_in_effect(
        &job("0  3 * * *", "php  run.php"),
        &job("0 3 * * *", "php run.php")
    ));
    assert!(!job_in_effect(
        &job("0 4 * * *", "php run.php"),
        &job("0 3 * * *", "php run.php")
    ));
}
