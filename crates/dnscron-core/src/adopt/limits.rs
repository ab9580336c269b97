//! The files' side of the safety limits. An adoption removes the declarations of records
//! deleted live and rewrites those that changed: to the files, that is a plan's deletes and
//! updates, and a token or URL of another account (or a zone wiped in the portal) makes it a
//! mass change of the files, down to a zone with no records at all. So each zone's adopted
//! changes are counted against the records it declares and judged by its own `safety:` limits,
//! as `plan` judges its changes against the live records (`plan::safety`).

use crate::plan::safety::{self, ZoneStats};
use crate::plan::{OverLimits, Plan, Value};

use super::{AdoptAction, Adopted};

/// The zones whose declarations `adopted` would remove or rewrite past their safety limits:
/// a removal counts as a delete, an added record as a create, a rewrite as an update (of the
/// TTL alone when the content stays), out of the records the zone declares.
pub(super) fn over_limits(plan: &Plan, adopted: &[Adopted]) -> Vec<OverLimits> {
    let mut out = Vec::new();
    for spec in &plan.desired.zones {
        let name = spec.zone.to_string();
        let mut stats = ZoneStats {
            live: spec.records.len(),
            ..ZoneStats::default()
        };
        let mut any = false;
        for a in adopted.iter().filter(|a| a.zone == name) {
            any = true;
            match &a.action {
                AdoptAction::Removed { .. } => stats.deletes += 1,
                AdoptAction::Added { .. } => stats.creates += 1,
                AdoptAction::Updated { declared, live } if same_content(declared, live) => {
                    stats.ttl_updates += 1
                }
                AdoptAction::Updated { .. } => stats.updates += 1,
            }
        }
        if any {
            let declared_at = spec.location.to_string();
            out.extend(safety::check_zone(
                &name,
                &declared_at,
                &stats,
                &spec.safety,
            ));
        }
    }
    out
}

fn same_content(declared: &Value, live: &Value) -> bool {
    let content = |v: &Value| match v {
        Value::Record { content, .. } => Some(content.clone()),
        Value::CronJob { .. } | Value::Nameservers { .. } => None,
    };
    content(declared).is_some_and(|c| Some(c) == content(live))
}
