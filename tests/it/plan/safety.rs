//! Safety limits through the diff: refused plans name every zone with its figures, place and
//! the way out; `allow_mass_changes` lets them through.

use dnscron::cli::error::{CommandError, exit_code};
use dnscron_core::config::model::{Desired, ZoneSpec};
use dnscron_core::plan::snapshot::{LiveSnapshot, LiveZone};
use dnscron_core::plan::{DiffOptions, PlanError, diff};

use super::fixtures::*;

/// A zone with `live` records of which the files keep the first `kept`.
fn shrinking(name: &str, live: usize, kept: usize) -> (ZoneSpec, LiveZone) {
    let records: Vec<(String, String)> = (0..live)
        .map(|i| (format!("h{i:03}"), format!("192.0.2.{}", i % 250)))
        .collect();
    let all: Vec<(&str, &str, u32, &str)> = records
        .iter()
        .map(|(n, c)| (n.as_str(), "A", 3600, c.as_str()))
        .collect();
    (zone(name, &all[..kept]), live_zone(name, &all))
}

fn run(
    zones: Vec<(ZoneSpec, LiveZone)>,
    allow: bool,
) -> Result<dnscron_core::plan::Plan, PlanError> {
    let (want, have): (Vec<_>, Vec<_>) = zones.into_iter().unzip();
    let desired = Desired {
        unmanaged: Default::default(),
        zones: want,
        sites: vec![],
    };
    let live = LiveSnapshot {
        zones: have,
        ..Default::default()
    };
    let opts = DiffOptions {
        allow_mass_changes: allow,
        ..opts()
    };
    diff(&desired, &live, &opts)
}

#[test]
fn thresholds_both_sides() {
    for (live, kept, refused) in [
        (6, 1, false),     // 5 deletes: at the floor
        (19, 13, true),    // 6 of 19: 31 %
        (20, 14, false),   // 6 of 20: exactly 30 %
        (300, 250, false), // 50 deletes: at max_deletes
        (300, 249, true),  // 51 deletes
        (1, 0, true),      // wiping a 1-record zone
    ] {
        let result = run(vec![shrinking("example.com", live, kept)], false);
        assert_eq!(
            result.is_err(),
            refused,
            "{} deletes of {live}",
            live - kept
        );
        assert!(run(vec![shrinking("example.com", live, kept)], true).is_ok());
    }
}

#[test]
fn refusal_lists_every_zone_with_figures_place_and_hint() {
    let err = run(
        vec![
            shrinking("a.example", 19, 13),
            shrinking("ok.example", 6, 1),
            shrinking("b.example", 1, 0),
        ],
        false,
    )
    .unwrap_err();
    let text = err.to_string();
    insta::assert_snapshot!(text, @r"
    refusing to plan mass changes (protection against a wrong or truncated file):
      zone a.example (zones/a.example.yaml:1:3): would delete 6 of 19 live records (31 %; limit: more than 5 records that are also more than 30 %, `safety.delete_floor`/`safety.max_delete_percent`)
      zone b.example (zones/b.example.yaml:1:3): would leave the zone with no records (deletes all 1; set `safety.allow_empty: true` to allow)
    ");
    let cmd = CommandError::from(err);
    assert_eq!(
        cmd.hints(),
        [
            "if these changes are intended, approve them for this plan alone: run again with --allow-mass-changes (in a pull request planned by the dnscron plan recipe: add the label dnscron:allow-mass-changes after the last push); leave the zone's `safety:` limits as they are, they guard every later plan"
        ]
    );
    // docs/file-format.md advises against raising the limits for a deliberate change: the hint
    // never does.
    assert!(!cmd.hints()[0].contains("raise"), "{:?}", cmd.hints());
    insta::assert_snapshot!(cmd.to_string());
    assert_eq!(exit_code(&Err(cmd)), 1);
}

#[test]
fn mass_updates_are_refused_too() {
    // 11 of 30 updated: refused; 10 of 30: fine.
    let err = run(vec![retimed(30, 0, 11)], false).unwrap_err();
    insta::assert_snapshot!(err.to_string());
    assert!(run(vec![retimed(30, 0, 10)], false).is_ok());
}

/// A zone of `live` A records at TTL 3600, and files that give the first `ttl_changed` of them
/// TTL 300 and new content to the next `content_changed`.
fn retimed(live: usize, ttl_changed: usize, content_changed: usize) -> (ZoneSpec, LiveZone) {
    let records: Vec<(String, String, String)> = (0..live)
        .map(|i| {
            (
                format!("h{i:02}"),
                format!("192.0.2.{i}"),
                format!("198.51.100.{i}"),
            )
        })
        .collect();
    let old: Vec<(&str, &str, u32, &str)> = records
        .iter()
        .map(|(n, o, _)| (n.as_str(), "A", 3600, o.as_str()))
        .collect();
    let new: Vec<(&str, &str, u32, &str)> = records
        .iter()
        .enumerate()
        .map(|(i, (n, o, x))| match i {
            i if i < ttl_changed => (n.as_str(), "A", 300, o.as_str()),
            i if i < ttl_changed + content_changed => (n.as_str(), "A", 3600, x.as_str()),
            _ => (n.as_str(), "A", 3600, o.as_str()),
        })
        .collect();
    (zone("example.com", &new), live_zone("example.com", &old))
}

#[test]
fn ttl_only_updates_have_their_own_limit() {
    // Accepted: 13 of 26 is exactly 50 %; refused: 14 of 26, and a changed default (24 of 26).
    let plan = run(vec![retimed(26, 13, 0)], false).unwrap();
    assert_eq!(
        (plan.summary.update, plan.summary.update_ttl_only),
        (13, 13)
    );
    assert!(run(vec![retimed(26, 14, 0)], false).is_err());
    let err = run(vec![retimed(26, 24, 0)], false).unwrap_err();
    insta::assert_snapshot!(err.to_string(), @r"
    refusing to plan mass changes (protection against a wrong or truncated file):
      zone example.com (zones/example.com.yaml:1:3): would change the TTL of 24 of 26 live records (92 %; limit: more than 10 records that are also more than 50 %, `safety.ttl_update_floor`/`safety.max_ttl_update_percent`)
    ");
    // Lifted: planned, and the plan records what went past the limit.
    let plan = run(vec![retimed(26, 24, 0)], true).unwrap();
    assert_eq!(
        plan.over_limits,
        [dnscron_core::plan::OverLimits {
            zone: "example.com".into(),
            declared_at: "zones/example.com.yaml:1:3".into(),
            exceeded: vec![dnscron_core::plan::Exceeded::TtlUpdatePercent {
                ttl_updates: 24,
                live: 26,
                floor: 10,
                max_percent: 50,
            }],
        }]
    );
}

#[test]
fn ttl_only_and_content_updates_are_counted_apart() {
    // Accepted: 10 content updates (at the floor) and 13 TTL-only of 30; together, 23 updates
    // would have passed the content limit.
    let plan = run(vec![retimed(30, 13, 10)], false).unwrap();
    assert_eq!(
        (plan.summary.update, plan.summary.update_ttl_only),
        (23, 13)
    );
    assert!(plan.over_limits.is_empty());
    // Refused: 11 content updates, whatever the TTL-only ones; only the content limit is named.
    let err = run(vec![retimed(30, 5, 11)], false).unwrap_err();
    insta::assert_snapshot!(err.to_string(), @r"
    refusing to plan mass changes (protection against a wrong or truncated file):
      zone example.com (zones/example.com.yaml:1:3): would change the content of 11 of 30 live records (36 %; limit: more than 10 records that are also more than 30 %, `safety.update_floor`/`safety.max_update_percent`)
    ");
}

#[test]
fn an_update_of_content_and_ttl_counts_as_a_content_update() {
    let (mut spec, live) = retimed(30, 0, 11);
    for record in &mut spec.records[..11] {
        record.ttl = 300;
    }
    let err = run(vec![(spec, live)], false).unwrap_err();
    assert!(
        err.to_string()
            .contains("would change the content of 11 of 30"),
        "{err}"
    );
}

#[test]
fn a_plan_within_its_limits_records_none_even_when_they_are_lifted() {
    let plan = run(vec![retimed(26, 3, 0)], true).unwrap();
    assert!(plan.options.allow_mass_changes);
    assert!(plan.over_limits.is_empty());
}
