//! The two proofs every write passes: the edited files load, and their plan against the same
//! live state shows no change for what was adopted. A group that fails either is left (with
//! the loader's first problem, or as still differing), and the files are written without it.

use std::path::PathBuf;

use crate::config::model::Desired;
use crate::config::{Diagnostics, load_texts};
use crate::plan::snapshot::LiveSnapshot;
use crate::plan::{Action, DiffOptions, Plan, PlanStamp, Resource, Value, diff};

use super::edit::{Editor, Planned};
use super::group::Group;
use super::{Adopted, FileWrite, Left, LeftReason};

pub(super) struct Settled {
    pub writes: Vec<FileWrite>,
    pub adopted: Vec<Adopted>,
    pub left: Vec<Left>,
}

pub(super) fn settle(
    files: &[(PathBuf, String)],
    editor: &Editor<'_>,
    planned: Vec<Planned>,
    plan: &Plan,
    live: &LiveSnapshot,
) -> Settled {
    let mut left = Vec::new();
    let mut accepted = loadable(editor, planned, &mut left);
    // Twice at most: leaving a group that still differs can't make another one differ, but
    // should it, nothing is written rather than something unproven.
    for round in 0..2 {
        if accepted.is_empty() {
            break;
        }
        let refs: Vec<&Planned> = accepted.iter().collect();
        let failing: Vec<bool> = match load_texts(&editor.texts(&refs)) {
            Ok(desired) => match replan(&desired, plan, live) {
                Some(after) => accepted
                    .iter()
                    .map(|p| !ended(&p.group, plan, &after))
                    .collect(),
                None => vec![true; accepted.len()],
            },
            Err(_) => vec![true; accepted.len()],
        };
        if !failing.contains(&true) {
            break;
        }
        let last = round == 1;
        let mut kept = Vec::new();
        for (p, fails) in accepted.into_iter().zip(failing) {
            if fails || last {
                leave(&mut left, &p, LeftReason::StillDiffers);
            } else {
                kept.push(p);
            }
        }
        accepted = kept;
    }
    let refs: Vec<&Planned> = accepted.iter().collect();
    let writes = editor
        .texts(&refs)
        .into_iter()
        .zip(files)
        .filter(|((_, text), (_, original))| text != original)
        .map(|((path, text), (_, original))| FileWrite {
            path,
            original: original.clone(),
            text,
        })
        .collect();
    Settled {
        writes,
        adopted: accepted.into_iter().flat_map(|p| p.adopted).collect(),
        left,
    }
}

/// The groups whose edits load together. All at once first; when that fails, halves in turn,
/// so that a few groups the loader refuses cost a number of reloads in proportion to their
/// count times the halvings, not one reload per group.
fn loadable(editor: &Editor<'_>, planned: Vec<Planned>, left: &mut Vec<Left>) -> Vec<Planned> {
    let mut accepted: Vec<Planned> = Vec::new();
    bisect(editor, planned, &mut accepted, left);
    accepted
}

fn bisect(
    editor: &Editor<'_>,
    mut candidates: Vec<Planned>,
    accepted: &mut Vec<Planned>,
    left: &mut Vec<Left>,
) {
    if candidates.is_empty() {
        return;
    }
    let mut refs: Vec<&Planned> = accepted.iter().collect();
    refs.extend(candidates.iter());
    let diags = match load_texts(&editor.texts(&refs)) {
        Ok(_) => {
            accepted.extend(candidates);
            return;
        }
        Err(diags) => diags,
    };
    if let [one] = candidates.as_slice() {
        let problem = first_problem(&diags);
        leave(left, one, LeftReason::WouldNotLoad { problem });
        return;
    }
    let second = candidates.split_off(candidates.len() / 2);
    bisect(editor, candidates, accepted, left);
    bisect(editor, second, accepted, left);
}

fn leave(left: &mut Vec<Left>, p: &Planned, reason: LeftReason) {
    left.extend(p.group.members.iter().map(|m| m.left(reason.clone())));
}

fn first_problem(diags: &Diagnostics) -> String {
    match diags.items.first() {
        Some(d) => match &d.location {
            Some(at) => format!("{} (at {at})", d.message),
            None => d.message.clone(),
        },
        None => "the files would not load".into(),
    }
}

/// The plan of `desired` against the live state `plan` was made from, its safety limits
/// lifted (only what it still changes matters here).
fn replan(desired: &Desired, plan: &Plan, live: &LiveSnapshot) -> Option<Plan> {
    let opts = DiffOptions {
        api_url: plan.api_url.clone(),
        allow_mass_changes: true,
        hosted_mode_wire_value: plan.options.hosted_mode_wire_value.clone(),
        stamp: PlanStamp {
            id: plan.plan_id.clone(),
            created_at: plan.created_at.clone(),
        },
    };
    diff(desired, live, &opts).ok()
}

/// Whether the plan `after` changes nothing of `group`'s RRset but the undeclared records it
/// left on purpose.
fn ended(group: &Group, before: &Plan, after: &Plan) -> bool {
    let Some(zone) = before.desired.zones.get(group.zone) else {
        return false;
    };
    let mut allowed: Vec<&Value> = group.left_live.iter().collect();
    for change in &after.changes {
        let Resource::Record { name, rtype, .. } = &change.resource else {
            continue;
        };
        if change.target.name != zone.zone.as_str() || *name != group.name || *rtype != group.rtype
        {
            continue;
        }
        let expected = match (change.action, &change.before) {
            (Action::Delete, Some(before)) => allowed.iter().position(|v| *v == before),
            (Action::Create | Action::Update | Action::Delete, _) => None,
        };
        match expected {
            Some(i) => {
                allowed.swap_remove(i);
            }
            None => return false,
        }
    }
    true
}
