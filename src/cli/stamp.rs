//! The id and time a command stamps on a new plan: random and now, unless the test-only
//! variables fix them (docs/plan.md), so that CLI snapshots show real values without masks.

use dnscron_core::plan::PlanStamp;

/// Test-only: the plan id to use instead of a random one.
pub(crate) const PLAN_ID_ENV: &str = "DNSCRON_PLAN_ID";
/// Test-only: the `created_at` (RFC 3339) to use instead of the clock.
pub(crate) const TIMESTAMP_ENV: &str = "DNSCRON_TIMESTAMP";

pub(crate) fn plan_stamp() -> PlanStamp {
    let fresh = PlanStamp::fresh();
    let set = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    PlanStamp {
        id: set(PLAN_ID_ENV).unwrap_or(fresh.id),
        created_at: set(TIMESTAMP_ENV).unwrap_or(fresh.created_at),
    }
}

/// The day (UTC) of the time a plan made now is stamped with: what `accept:` entries' `until` is
/// judged against by the commands that make no plan (`validate`, `check`). `None` when the
/// test-only time does not parse.
pub(crate) fn today() -> Option<chrono::NaiveDate> {
    now().map(|now| now.date_naive())
}

/// The time a plan made now is stamped with, as a time.
pub(crate) fn now() -> Option<chrono::DateTime<chrono::Utc>> {
    chrono::DateTime::parse_from_rfc3339(&plan_stamp().created_at)
        .ok()
        .map(|now| now.with_timezone(&chrono::Utc))
}
