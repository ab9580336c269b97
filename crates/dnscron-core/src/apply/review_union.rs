//! Several reviewed plans as one (docs/apply.md, "Several reviewed plans"): when pull requests
//! merge faster than their apply jobs run, the newest job applies the plans of every pull
//! request merged since the last successful apply. Their union is what may be applied; it is
//! then matched like a single reviewed plan (`review::check`, each reviewed change at most once)
//! and runs under its own id (`review::bound`).
//!
//! The union's `plan_id` is deterministic: one plan keeps its own id (so a single reviewed
//! file sends the same keys as before), several get one derived from their sorted, distinct
//! ids, so a re-run with the same set of plans, in any order, sends the same keys, and any
//! other set never reuses them.

use sha2::{Digest, Sha256};

use crate::config::model::Desired;
use crate::plan::{Plan, Scope, scope};

/// Why plans can't be combined. Indexes are positions in the slice given to `union`.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum UnionError {
    #[error("no reviewed plan given")]
    Empty,
    /// A union must be applied to one API: plans made against different URLs can't be one.
    #[error("plan {index} was made against {api_url}, plan 0 against {first_url}")]
    MixedApiUrls {
        index: usize,
        api_url: String,
        first_url: String,
    },
    /// Two different plans with one id would make their keys ambiguous.
    #[error("plans {first} and {index} share the plan_id {plan_id} but differ")]
    SharedPlanId {
        first: usize,
        index: usize,
        plan_id: String,
    },
}

/// The plans as one: every change of each (renumbered in order, findings following their
/// changes), the first plan's options (safety limits lifted only when every plan lifted them)
/// and its scope and desired state joined (`joint_scope`, `latest_declarations`), the latest `created_at`. The same plan
/// given twice counts once (it would otherwise allow its changes twice).
pub(crate) fn union(plans: &[Plan]) -> Result<Plan, UnionError> {
    let first = plans.first().ok_or(UnionError::Empty)?;
    let distinct = distinct(plans)?;
    for (index, plan) in plans.iter().enumerate() {
        if norm(&plan.api_url) != norm(&first.api_url) {
            return Err(UnionError::MixedApiUrls {
                index,
                api_url: plan.api_url.clone(),
                first_url: first.api_url.clone(),
            });
        }
    }
    if let [only] = distinct.as_slice() {
        return Ok((*only).clone());
    }
    let mut out = Plan {
        plan_id: union_id(&distinct),
        created_at: distinct
            .iter()
            .map(|p| p.created_at.clone())
            .max()
            .unwrap_or_default(),
        targets: Vec::new(),
        changes: Vec::new(),
        findings: Vec::new(),
        ..first.clone()
    };
    for plan in &distinct {
        append(&mut out, plan);
    }
    // Each reviewer saw only their own plan: the limits are lifted for the union only when
    // every plan in it was made (and shown) with them lifted.
    out.options.allow_mass_changes = distinct.iter().all(|p| p.options.allow_mass_changes);
    out.desired = latest_declarations(&distinct);
    out.scope = joint_scope(&distinct);
    out.summary = crate::plan::Summary::of(&out.changes);
    Ok(out)
}

/// Every document any plan declares, each as the last plan (in the order given: the order the
/// pull requests merged) declares it. A scoped plan holds only its own targets' documents, and a
/// later reviewer saw the later state of a document: the review checks use this state.
fn latest_declarations(plans: &[&Plan]) -> Desired {
    let mut out = Desired::default();
    for plan in plans {
        for zone in &plan.desired.zones {
            match out.zones.iter_mut().find(|z| z.zone == zone.zone) {
                Some(known) => *known = zone.clone(),
                None => out.zones.push(zone.clone()),
            }
        }
        for site in &plan.desired.sites {
            match out.sites.iter_mut().find(|s| s.slug == site.slug) {
                Some(known) => *known = site.clone(),
                None => out.sites.push(site.clone()),
            }
        }
    }
    out
}

/// The targets the union covers: every plan's scope, or everything when one plan covered
/// everything.
fn joint_scope(plans: &[&Plan]) -> Option<Scope> {
    scope::joint(plans.iter().map(|p| p.scope.as_ref()))
}

/// The id the union of plans with these ids runs under (see the module's note).
pub(crate) fn union_id(plans: &[&Plan]) -> String {
    let mut ids: Vec<&str> = plans.iter().map(|p| p.plan_id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    match ids.as_slice() {
        [one] => (*one).to_string(),
        _ => {
            let digest = Sha256::digest(ids.join("\n").as_bytes());
            digest[..16].iter().map(|b| format!("{b:02x}")).collect()
        }
    }
}

/// The plans with each id once, refusing two different plans under one id.
fn distinct(plans: &[Plan]) -> Result<Vec<&Plan>, UnionError> {
    let mut seen: Vec<(usize, &Plan)> = Vec::new();
    for (index, plan) in plans.iter().enumerate() {
        match seen.iter().find(|(_, p)| p.plan_id == plan.plan_id) {
            Some((_, p)) if *p == plan => {}
            Some((first, _)) => {
                return Err(UnionError::SharedPlanId {
                    first: *first,
                    index,
                    plan_id: plan.plan_id.clone(),
                });
            }
            None => seen.push((index, plan)),
        }
    }
    Ok(seen.into_iter().map(|(_, p)| p).collect())
}

/// Adds `plan`'s changes with ids after `out`'s, its findings pointing at them, its targets.
fn append(out: &mut Plan, plan: &Plan) {
    let offset = out.changes.len();
    let renumber = |id: usize| {
        plan.changes
            .iter()
            .position(|c| c.id == id)
            .map(|i| offset + i + 1)
    };
    for (i, change) in plan.changes.iter().enumerate() {
        let mut change = change.clone();
        change.id = offset + i + 1;
        out.changes.push(change);
    }
    for finding in &plan.findings {
        let mut finding = finding.clone();
        finding.change_ids = finding
            .change_ids
            .iter()
            .filter_map(|&id| renumber(id))
            .collect();
        if !out.findings.contains(&finding) {
            out.findings.push(finding);
        }
    }
    for target in &plan.targets {
        if !out.targets.contains(target) {
            out.targets.push(target.clone());
        }
    }
}

fn norm(url: &str) -> &str {
    url.trim().trim_end_matches('/')
}

#[cfg(test)]
#[path = "review_union_tests.rs"]
mod tests;
