//! Mass-change protection against a wrong or truncated file. A zone's plan is refused, unless
//! `--allow-mass-changes`, when it would
//! - delete more than `max_deletes` records;
//! - delete more than `delete_floor` records that are also more than `max_delete_percent` % of
//!   the zone's live records;
//! - update more than `update_floor` records that are also more than `max_update_percent` %;
//! - delete records and leave the zone with none at all (unless `allow_empty`).
//!
//! The floors keep everyday edits of small zones free of the flag (octoDNS only checks zones
//! of 10+ records), while the last rule still protects a small zone from being wiped.

use std::fmt;

use crate::config::model::SafetyLimits;

/// Record counts of one zone's plan. `live` counts the records the diff saw (system records
/// excluded, ignored records included).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ZoneStats {
    pub live: usize,
    pub creates: usize,
    pub updates: usize,
    pub deletes: usize,
}

impl ZoneStats {
    pub(crate) fn remaining(&self) -> usize {
        (self.live + self.creates).saturating_sub(self.deletes)
    }
}

/// A zone whose plan was refused, with every limit it broke.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub zone: String,
    pub declared_at: String,
    pub reasons: Vec<String>,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "zone {} ({}): {}",
            self.zone,
            self.declared_at,
            self.reasons.join("; ")
        )
    }
}

/// `a` is more than `pct` % of `b`, in integers (no rounding surprises at the boundary).
fn above_percent(a: usize, b: usize, pct: u8) -> bool {
    a * 100 > usize::from(pct) * b
}

fn percent(a: usize, b: usize) -> usize {
    (a * 100).checked_div(b).unwrap_or(100)
}

/// Every limit of `limits` that `stats` breaks, as a sentence with the figures.
pub(crate) fn violations(stats: &ZoneStats, limits: &SafetyLimits) -> Vec<String> {
    let mut out = Vec::new();
    let ZoneStats {
        live,
        updates,
        deletes,
        ..
    } = *stats;
    if deletes > limits.max_deletes {
        out.push(format!(
            "would delete {deletes} records (limit: {} per plan, `safety.max_deletes`)",
            limits.max_deletes
        ));
    }
    if deletes > limits.delete_floor && above_percent(deletes, live, limits.max_delete_percent) {
        out.push(format!(
            "would delete {deletes} of {live} live records ({} %; limit: more than {} records that are also more than {} %, `safety.delete_floor`/`safety.max_delete_percent`)",
            percent(deletes, live),
            limits.delete_floor,
            limits.max_delete_percent
        ));
    }
    if updates > limits.update_floor && above_percent(updates, live, limits.max_update_percent) {
        out.push(format!(
            "would update {updates} of {live} live records ({} %; limit: more than {} records that are also more than {} %, `safety.update_floor`/`safety.max_update_percent`)",
            percent(updates, live),
            limits.update_floor,
            limits.max_update_percent
        ));
    }
    if deletes > 0 && stats.remaining() == 0 && !limits.allow_empty {
        out.push(format!(
            "would leave the zone with no records (deletes all {live}; set `safety.allow_empty: true` to allow)"
        ));
    }
    out
}

/// The refusal for one zone, if any.
pub(crate) fn check_zone(
    zone: &str,
    declared_at: &str,
    stats: &ZoneStats,
    limits: &SafetyLimits,
) -> Option<Refusal> {
    let reasons = violations(stats, limits);
    (!reasons.is_empty()).then(|| Refusal {
        zone: zone.to_string(),
        declared_at: declared_at.to_string(),
        reasons,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(live: usize, creates: usize, updates: usize, deletes: usize) -> ZoneStats {
        ZoneStats {
            live,
            creates,
            updates,
            deletes,
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
    }
}
