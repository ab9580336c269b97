//! Mass-change protection against a wrong or truncated file. A zone's plan is refused, unless
//! the plan is made with the limits lifted, when it would
//! - delete more than `max_deletes` records;
//! - delete more than `delete_floor` records that are also more than `max_delete_percent` % of
//!   the zone's live records;
//! - change the content of more than `update_floor` records that are also more than
//!   `max_update_percent` %;
//! - change only the TTL of more than `ttl_update_floor` records that are also more than
//!   `max_ttl_update_percent` %;
//! - delete records and leave the zone with none at all (unless `allow_empty`).
//!
//! The floors keep everyday edits of small zones free of the limits (octoDNS only checks zones
//! of 10+ records), while the last rule still protects a small zone from being wiped. A
//! TTL-only update is counted apart because it can't break what a record points to: a
//! deliberate `defaults.ttl` change has a limit of its own instead of adding to the content
//! updates, while a mistyped default (every record at once) is still caught.
//!
//! A plan made with the limits lifted records what they would have refused (`OverLimits`),
//! so the reviewer sees what the approval covers; apply checks the changes of reviewed plans
//! without that approval with [`check_changes`].

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::config::model::{Desired, SafetyLimits};

use super::model::{Action, Change, TargetKind};
use super::snapshot::LiveSnapshot;

/// Record counts of one zone's plan. `live` counts the records the diff saw (system records
/// excluded, ignored records included).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ZoneStats {
    pub live: usize,
    pub creates: usize,
    /// Updates that change the content (whatever they do to the TTL).
    pub updates: usize,
    /// Updates that change only the TTL.
    pub ttl_updates: usize,
    pub deletes: usize,
}

impl ZoneStats {
    /// The counts of `changes` (one zone's record changes) against `live` live records.
    pub(crate) fn of<'a>(changes: impl IntoIterator<Item = &'a Change>, live: usize) -> ZoneStats {
        let mut stats = ZoneStats {
            live,
            ..ZoneStats::default()
        };
        for change in changes {
            match change.action {
                Action::Create => stats.creates += 1,
                Action::Update if change.is_ttl_only() => stats.ttl_updates += 1,
                Action::Update => stats.updates += 1,
                Action::Delete => stats.deletes += 1,
            }
        }
        stats
    }

    pub(crate) fn remaining(&self) -> usize {
        (self.live + self.creates).saturating_sub(self.deletes)
    }
}

/// One safety limit a zone's plan goes past, with the figures.
// Written in the plan file (`over_limits`) and in the refusal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "limit", rename_all = "snake_case")]
pub enum Exceeded {
    /// More deletes than `safety.max_deletes`.
    MaxDeletes { deletes: usize, max_deletes: usize },
    /// More deletes than `safety.delete_floor` that are also more than
    /// `safety.max_delete_percent` % of the live records.
    DeletePercent {
        deletes: usize,
        live: usize,
        floor: usize,
        max_percent: u8,
    },
    /// More content updates than `safety.update_floor` that are also more than
    /// `safety.max_update_percent` % of the live records.
    UpdatePercent {
        updates: usize,
        live: usize,
        floor: usize,
        max_percent: u8,
    },
    /// More TTL-only updates than `safety.ttl_update_floor` that are also more than
    /// `safety.max_ttl_update_percent` % of the live records.
    TtlUpdatePercent {
        ttl_updates: usize,
        live: usize,
        floor: usize,
        max_percent: u8,
    },
    /// Deletes that leave the zone with no records (`safety.allow_empty` is false).
    Empty { live: usize },
}

/// Which side a limit's counts are told from: the live account a plan would write (`Live`),
/// or the files an adoption would rewrite (`Declared`: a removed declaration is a delete).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counted {
    Live,
    Declared,
}

/// A side's words: (delete, rewrite, the records counted, the `max_deletes` scope).
fn words(counted: Counted) -> (&'static str, &'static str, &'static str, &'static str) {
    match counted {
        Counted::Live => ("delete", "change", "live records", " per plan"),
        Counted::Declared => ("remove", "rewrite", "declared records", ""),
    }
}

impl Exceeded {
    /// The limit passed, told from `counted`'s side.
    pub fn describe(&self, counted: Counted) -> String {
        let (delete, rewrite, records, per) = words(counted);
        let share = |count: usize, of: usize, floor: usize, max: u8, keys: &str| {
            format!(
                "{count} of {of} {records} ({} %; limit: more than {floor} records that are also more than {max} %, `{keys}`)",
                percent(count, of)
            )
        };
        match *self {
            Exceeded::MaxDeletes {
                deletes,
                max_deletes,
            } => {
                let what = match counted {
                    Counted::Live => "records",
                    Counted::Declared => "declared records",
                };
                format!(
                    "would {delete} {deletes} {what} (limit: {max_deletes}{per}, `safety.max_deletes`)"
                )
            }
            Exceeded::DeletePercent {
                deletes,
                live,
                floor,
                max_percent,
            } => format!(
                "would {delete} {}",
                share(
                    deletes,
                    live,
                    floor,
                    max_percent,
                    "safety.delete_floor`/`safety.max_delete_percent"
                )
            ),
            Exceeded::UpdatePercent {
                updates,
                live,
                floor,
                max_percent,
            } => format!(
                "would {rewrite} the content of {}",
                share(
                    updates,
                    live,
                    floor,
                    max_percent,
                    "safety.update_floor`/`safety.max_update_percent"
                )
            ),
            Exceeded::TtlUpdatePercent {
                ttl_updates,
                live,
                floor,
                max_percent,
            } => format!(
                "would {rewrite} the TTL of {}",
                share(
                    ttl_updates,
                    live,
                    floor,
                    max_percent,
                    "safety.ttl_update_floor`/`safety.max_ttl_update_percent"
                )
            ),
            Exceeded::Empty { live } => match counted {
                Counted::Live => format!(
                    "would leave the zone with no records (deletes all {live}; set `safety.allow_empty: true` to allow)"
                ),
                Counted::Declared => format!(
                    "would leave the zone with no records in the files (removes all {live} it declares; set `safety.allow_empty: true` to allow)"
                ),
            },
        }
    }
}

impl fmt::Display for Exceeded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe(Counted::Live))
    }
}

/// A zone whose plan goes past its safety limits, with every limit it passes.
// Written in the plan file (`over_limits`) and in the refusal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct OverLimits {
    pub zone: String,
    /// `file:line:col` of the zone's declaration.
    pub declared_at: String,
    pub exceeded: Vec<Exceeded>,
}

impl fmt::Display for OverLimits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "zone {} ({}): ", self.zone, self.declared_at)?;
        for (i, exceeded) in self.exceeded.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{exceeded}")?;
        }
        Ok(())
    }
}

/// `a` is more than `pct` % of `b`, in integers (no rounding surprises at the boundary).
fn above_percent(a: usize, b: usize, pct: u8) -> bool {
    a * 100 > usize::from(pct) * b
}

fn percent(a: usize, b: usize) -> usize {
    (a * 100).checked_div(b).unwrap_or(100)
}

/// A count over its floor that is also over its share of the live records.
fn over_share(count: usize, live: usize, floor: usize, max_percent: u8) -> bool {
    count > floor && above_percent(count, live, max_percent)
}

/// Every limit of `limits` that `stats` breaks.
pub(crate) fn violations(stats: &ZoneStats, limits: &SafetyLimits) -> Vec<Exceeded> {
    let mut out = Vec::new();
    let ZoneStats {
        live,
        updates,
        ttl_updates,
        deletes,
        ..
    } = *stats;
    if deletes > limits.max_deletes {
        out.push(Exceeded::MaxDeletes {
            deletes,
            max_deletes: limits.max_deletes,
        });
    }
    if over_share(
        deletes,
        live,
        limits.delete_floor,
        limits.max_delete_percent,
    ) {
        out.push(Exceeded::DeletePercent {
            deletes,
            live,
            floor: limits.delete_floor,
            max_percent: limits.max_delete_percent,
        });
    }
    if over_share(
        updates,
        live,
        limits.update_floor,
        limits.max_update_percent,
    ) {
        out.push(Exceeded::UpdatePercent {
            updates,
            live,
            floor: limits.update_floor,
            max_percent: limits.max_update_percent,
        });
    }
    if over_share(
        ttl_updates,
        live,
        limits.ttl_update_floor,
        limits.max_ttl_update_percent,
    ) {
        out.push(Exceeded::TtlUpdatePercent {
            ttl_updates,
            live,
            floor: limits.ttl_update_floor,
            max_percent: limits.max_ttl_update_percent,
        });
    }
    if deletes > 0 && stats.remaining() == 0 && !limits.allow_empty {
        out.push(Exceeded::Empty { live });
    }
    out
}

/// The limits one zone's plan goes past, if any.
pub(crate) fn check_zone(
    zone: &str,
    declared_at: &str,
    stats: &ZoneStats,
    limits: &SafetyLimits,
) -> Option<OverLimits> {
    let exceeded = violations(stats, limits);
    (!exceeded.is_empty()).then(|| OverLimits {
        zone: zone.to_string(),
        declared_at: declared_at.to_string(),
        exceeded,
    })
}

/// The limits `changes` go past, zone by zone, against the live records of `live` and the
/// limits `desired` declares: for a part of a plan's changes (apply: those of reviewed plans
/// made without the limits lifted), counted as the diff counts a whole plan.
pub(crate) fn check_changes(
    desired: &Desired,
    live: &LiveSnapshot,
    changes: &[&Change],
) -> Vec<OverLimits> {
    let mut out = Vec::new();
    for spec in &desired.zones {
        let name = spec.zone.to_string();
        let Some(live_zone) = live.zones.iter().find(|z| z.zone == spec.zone) else {
            continue;
        };
        let of_zone = changes
            .iter()
            .filter(|c| c.target.kind == TargetKind::Zone && c.target.name == name)
            .copied();
        let stats = ZoneStats::of(of_zone, super::records::plannable_count(live_zone));
        let declared_at = spec.location.to_string();
        out.extend(check_zone(&name, &declared_at, &stats, &spec.safety));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(live: usize, creates: usize, updates: usize, deletes: usize) -> ZoneStats {
        ZoneStats {
            live,
            creates,
            updates,
            ttl_updates: 0,
            deletes,
        }
    }

    fn ttl_stats(live: usize, ttl_updates: usize) -> ZoneStats {
        ZoneStats {
            live,
            ttl_updates,
            ..ZoneStats::default()
        }
    }

    fn refused(s: ZoneStats) -> bool {
        !violations(&s, &SafetyLimits::default()).is_empty()
    }

    #[test]
    fn delete_thresholds_both_sides() {
        assert!(!refused(stats(6, 0, 0, 5)), "5 of 6: at the floor");
        assert!(refused(stats(19, 0, 0, 6)), "6 of 19 is 31.6 %");
        assert!(!refused(stats(20, 0, 0, 6)), "6 of 20 is exactly 30 %");
        assert!(!refused(stats(1000, 0, 0, 50)), "50: at max_deletes");
        assert!(refused(stats(1000, 0, 0, 51)), "51: over max_deletes");
    }

    #[test]
    fn update_thresholds_both_sides() {
        assert!(!refused(stats(11, 0, 10, 0)), "10 of 11: at the floor");
        assert!(refused(stats(36, 0, 11, 0)), "11 of 36 is 30.6 %");
        assert!(!refused(stats(37, 0, 11, 0)), "11 of 37 is 29.7 %");
        assert!(
            !refused(stats(1000, 0, 300, 0)),
            "300 of 1000 is exactly 30 %"
        );
        assert!(refused(stats(1000, 0, 301, 0)));
    }

    #[test]
    fn ttl_update_thresholds_both_sides() {
        assert!(!refused(ttl_stats(11, 10)), "10 of 11: at the floor");
        assert!(!refused(ttl_stats(26, 13)), "13 of 26 is exactly 50 %");
        assert!(refused(ttl_stats(26, 14)), "14 of 26 is 53.8 %");
        assert!(refused(ttl_stats(26, 24)), "24 of 26: a changed default");
        let at_the_floor = SafetyLimits {
            ttl_update_floor: 30,
            ..SafetyLimits::default()
        };
        assert!(violations(&ttl_stats(26, 24), &at_the_floor).is_empty());
        let strict = SafetyLimits {
            max_ttl_update_percent: 10,
            ..SafetyLimits::default()
        };
        assert!(!violations(&ttl_stats(200, 21), &strict).is_empty());
        assert!(violations(&ttl_stats(210, 21), &strict).is_empty());
    }

    #[test]
    fn ttl_updates_and_content_updates_count_apart() {
        let both = ZoneStats {
            live: 30,
            updates: 9,
            ttl_updates: 9,
            ..ZoneStats::default()
        };
        assert!(
            !refused(both),
            "18 updates of 30 would pass neither limit if counted together"
        );
        let content = ZoneStats {
            updates: 11,
            ..both
        };
        assert_eq!(
            violations(&content, &SafetyLimits::default()),
            [Exceeded::UpdatePercent {
                updates: 11,
                live: 30,
                floor: 10,
                max_percent: 30
            }]
        );
    }

    #[test]
    fn wiping_a_zone_is_refused_even_when_tiny() {
        assert!(refused(stats(1, 0, 0, 1)));
        assert!(
            !refused(stats(1, 1, 0, 1)),
            "replacing the only record is fine"
        );
        assert!(
            !refused(stats(0, 0, 0, 0)),
            "an already empty zone stays empty"
        );
        let allow = SafetyLimits {
            allow_empty: true,
            ..SafetyLimits::default()
        };
        assert!(violations(&stats(1, 0, 0, 1), &allow).is_empty());
    }

    #[test]
    fn limits_are_per_zone_settings() {
        let strict = SafetyLimits {
            max_deletes: 2,
            ..SafetyLimits::default()
        };
        assert_eq!(violations(&stats(100, 0, 0, 3), &strict).len(), 1);
        assert!(violations(&stats(100, 0, 0, 2), &strict).is_empty());
    }

    #[test]
    fn refusal_names_zone_place_and_figures() {
        let r = check_zone(
            "example.com",
            "zones/example.com.yaml:1:1",
            &stats(19, 0, 0, 6),
            &SafetyLimits::default(),
        )
        .unwrap();
        let text = r.to_string();
        assert!(
            text.contains("zone example.com (zones/example.com.yaml:1:1)"),
            "{text}"
        );
        assert!(
            text.contains("would delete 6 of 19 live records (31 %"),
            "{text}"
        );
        let ttl = check_zone(
            "t.example",
            "t.yaml:1:1",
            &ttl_stats(26, 24),
            &SafetyLimits::default(),
        )
        .unwrap();
        assert_eq!(
            ttl.to_string(),
            "zone t.example (t.yaml:1:1): would change the TTL of 24 of 26 live records (92 %; limit: more than 10 records that are also more than 50 %, `safety.ttl_update_floor`/`safety.max_ttl_update_percent`)"
        );
    }

    #[test]
    fn stats_count_each_action_with_ttl_only_updates_apart() {
        use crate::plan::model::{Value, record_change};
        let ttl_only = Change {
            after: Some(Value::Record {
                ttl: 60,
                content: "a".into(),
            }),
            ..record_change(Action::Update, Some(4), Some("a"), Some("a"))
        };
        let changes = [
            record_change(Action::Create, None, None, Some("a")),
            record_change(Action::Create, None, None, Some("b")),
            record_change(Action::Update, Some(1), Some("a"), Some("b")),
            ttl_only,
            record_change(Action::Delete, Some(2), Some("c"), None),
            record_change(Action::Delete, Some(3), Some("d"), None),
            record_change(Action::Delete, Some(5), Some("e"), None),
        ];
        let counted = ZoneStats::of(&changes, 9);
        assert_eq!(
            counted,
            ZoneStats {
                live: 9,
                creates: 2,
                updates: 1,
                ttl_updates: 1,
                deletes: 3,
            }
        );
        assert_eq!(counted.remaining(), 8, "9 live + 2 created - 3 deleted");
        assert_eq!(stats(1, 0, 0, 3).remaining(), 0, "never below none");
    }

    #[test]
    fn a_refusal_lists_every_limit_passed() {
        let r = check_zone(
            "z.example",
            "z.yaml:2:1",
            &stats(100, 0, 0, 100),
            &SafetyLimits::default(),
        )
        .unwrap_or_else(|| panic!("100 deletes of 100 pass no limit"));
        assert_eq!(
            r.exceeded,
            [
                Exceeded::MaxDeletes {
                    deletes: 100,
                    max_deletes: 50
                },
                Exceeded::DeletePercent {
                    deletes: 100,
                    live: 100,
                    floor: 5,
                    max_percent: 30
                },
                Exceeded::Empty { live: 100 },
            ]
        );
        assert_eq!(
            r.to_string(),
            "zone z.example (z.yaml:2:1): would delete 100 records (limit: 50 per plan, `safety.max_deletes`); would delete 100 of 100 live records (100 %; limit: more than 5 records that are also more than 30 %, `safety.delete_floor`/`safety.max_delete_percent`); would leave the zone with no records (deletes all 100; set `safety.allow_empty: true` to allow)"
        );
    }

    #[test]
    fn changes_are_checked_zone_by_zone_against_their_own_live_records() {
        use crate::plan::model::{TargetRef, record_change};
        let desired = crate::config::load_texts(&[
            (
                "a.yaml".into(),
                "zone: example.com\nrecords:\n  - {name: www, type: A, content: 192.0.2.1}\n"
                    .into(),
            ),
            (
                "b.yaml".into(),
                "zone: other.example\nrecords:\n  - {name: a, type: A, content: 192.0.2.2}\n  - {name: b, type: A, content: 192.0.2.3}\n"
                    .into(),
            ),
        ])
        .unwrap_or_else(|d| panic!("{d:?}"));
        let live = crate::plan::snapshot::declared(&desired, &LiveSnapshot::default());
        let wipe = record_change(Action::Delete, Some(1), Some("192.0.2.1"), None);
        let other = Change {
            target: TargetRef {
                kind: TargetKind::Zone,
                name: "other.example".into(),
            },
            ..record_change(Action::Delete, Some(1), Some("192.0.2.2"), None)
        };
        // other.example also gets a create: counted in example.com, it would save its last record.
        let other_create = Change {
            target: other.target.clone(),
            ..record_change(Action::Create, None, None, Some("192.0.2.4"))
        };
        let out = check_changes(&desired, &live, &[&wipe, &other, &other_create]);
        assert_eq!(
            out,
            [OverLimits {
                zone: "example.com".into(),
                declared_at: desired.zones[0].location.to_string(),
                exceeded: vec![Exceeded::Empty { live: 1 }],
            }],
            "one of other.example's 2 records deleted passes no limit"
        );
        // A site's change of the same name is not the zone's.
        let site = Change {
            target: TargetRef {
                kind: TargetKind::Site,
                name: "example.com".into(),
            },
            ..wipe.clone()
        };
        assert!(check_changes(&desired, &live, &[&site]).is_empty());
        // A zone the snapshot did not read is not judged.
        assert!(check_changes(&desired, &LiveSnapshot::default(), &[&wipe]).is_empty());
    }
}
