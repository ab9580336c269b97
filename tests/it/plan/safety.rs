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
            "if these changes are intended, run again with --allow-mass-changes, or raise the limit in the zone's `safety:` section"
        ]
    );
    insta::assert_snapshot!(cmd.to_string());
    assert_eq!(exit_code(&Err(cmd)), 1);
}

#[test]
fn mass_updates_are_refused_too() {
    let records: Vec<(String, String, String)> = (0..30)
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
        .map(|(n, _, x)| (n.as_str(), "A", 3600, x.as_str()))
        .collect();
    // 11 of 30 updated: refused; 10 of 30: fine.
    let mut eleven = old.clone();
    eleven[..11].copy_from_slice(&new[..11]);
    let mut ten = old.clone();
    ten[..10].copy_from_slice(&new[..10]);
    let err = run(
        vec![(zone("example.com", &eleven), live_zone("example.com", &old))],
        false,
    )
    .unwrap_err();
    insta::assert_snapshot!(err.to_string());
    assert!(
        run(
            vec![(zone("example.com", &ten), live_zone("example.com", &old))],
            false
        )
        .is_ok()
    );
}
