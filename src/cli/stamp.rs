//! The id and time a command stamps on a new plan: random and now, unless the test-only
//! variables fix them (docs/plan.md), so that CLI snapshots show real values without masks.

use dnscron_core::plan::PlanStamp;

/// Test-only: the plan id to use instead of a random one.
pub const PLAN_ID_ENV: &str = "DNSCRON_PLAN_ID";
/// Test-only: the `created_at` (RFC 3339) to use instead of the clock.
pub const TIMESTAMP_ENV: &str = "DNSCRON_TIMESTAMP";

pub fn plan_stamp() -> PlanStamp {
    let fresh = PlanStamp::fresh();
    let set = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    PlanStamp {
        id: set(PLAN_ID_ENV).unwrap_or(fresh.id),
        created_at: set(TIMESTAMP_ENV).unwrap_or(fresh.created_at),
    }
}
