//! An apply's refusals (`apply::workflow::Refusal`) in words: the message, the hint, the kind.
//! The reviewed plan files are named by the binary, which read them.

use std::path::PathBuf;

use dnscron_api::untrusted::{Untrusted, escape};
use dnscron_core::apply::UnionError;
use dnscron_core::apply::workflow::{HeldIn, Refusal, ReviewedBy};
use dnscron_core::plan::Held;
use dnscron_core::plan::{Change, PlanError, Resource};

use super::{CommandError, ErrorKind};
use crate::render::finding;
use crate::render::plan::text::plain_change_lines;

/// A refusal, with the plan files the apply was bound to (`--reviewed` or `--plan`), in the
/// order given.
pub struct Refused<'a> {
    pub refusal: Refusal,
    pub files: &'a [PathBuf],
}

impl From<Refusal> for CommandError {
    fn from(refusal: Refusal) -> Self {
        Refused {
            refusal,
            files: &[],
        }
        .into()
    }
}

impl From<Refused<'_>> for CommandError {
    fn from(Refused { refusal, files }: Refused<'_>) -> Self {
        match refusal {
            Refusal::Union(error) => union_refused(files, error),
            Refusal::ApiUrl { plan_url, api_url } => CommandError::user(format!(
                "the plan was made against {} but the API URL is {api_url}",
                Untrusted(&plan_url),
            ))
            .with_hint(
                "pass the same --api-url / DNSCRON_API_URL as when the plan was made, or make a new plan",
            ),
            Refusal::Unreviewed {
                reviewed_by,
                changes,
            } => unreviewed(&label(reviewed_by, files), &changes, reviewed_by),
            Refusal::HeldByFinding { held, plan } => held_by_finding(&held, plan, files),
            Refusal::LimitsHeld { reviewed_by, error } => limits_held(reviewed_by, error),
            Refusal::Plan(error) => error.into(),
            Refusal::MakePlan(error) => (*error).into(),
        }
    }
}

/// Changes past the safety limits that no plan's approval covers: nothing was sent.
fn limits_held(reviewed_by: ReviewedBy, error: PlanError) -> CommandError {
    match reviewed_by {
        ReviewedBy::Saved => CommandError::from(error).with_hint(
            "the plan file does not record --allow-mass-changes, so its reviewer did not see the limits lifted: make the plan again with the flag and have it reviewed",
        ),
        // Not refused this way today (their plan is made with the limits the caller gives).
        ReviewedBy::Shown | ReviewedBy::Revision => CommandError::from(error),
        ReviewedBy::Files => {
            CommandError::from_error(ErrorKind::User, error).with_hint(
                "nothing was sent: no reviewed plan that holds these changes is approved for mass changes. If they are intended, approve that plan now with --allow-mass-changes-in PLAN_FILE (in the apply recipe: the label dnscron:allow-mass-changes on its pull request, added after its last push); leave the zone's `safety:` limits as they are, they guard every later plan",
            )
        }
    }
}

/// How messages name what the changes were bound to.
fn label(reviewed_by: ReviewedBy, files: &[PathBuf]) -> String {
    match reviewed_by {
        ReviewedBy::Shown => "the plan shown".into(),
        ReviewedBy::Revision => "the previous revision".into(),
        ReviewedBy::Files | ReviewedBy::Saved => files
            .iter()
            .map(|f| f.display().to_string())
            .collect::<Vec<_>>()
            .join(", "),
    }
}

/// Every change nobody reviewed, one line each.
fn unreviewed(label: &str, changes: &[Change], reviewed_by: ReviewedBy) -> CommandError {
    let lines: Vec<String> = changes
        .iter()
        .flat_map(|c| {
            plain_change_lines(c)
                .into_iter()
                .map(move |line| format!("\n  {}: {line}", Untrusted(&c.target.to_string())))
        })
        .collect();
    let hint = match reviewed_by {
        // The files may also hold other reviewed changes not applied yet.
        ReviewedBy::Files => {
            "the live account or the files changed since the plan was reviewed: make a new plan (`dnscron plan --out FILE`), have it reviewed, and apply that; if the files also hold other reviewed changes not applied yet (pull requests merged since the last apply), pass their plans too: --reviewed is repeatable"
        }
        ReviewedBy::Shown | ReviewedBy::Saved | ReviewedBy::Revision => {
            "the live account or the files changed since the plan was reviewed: make a new plan (`dnscron plan --out FILE`), have it reviewed, and apply that"
        }
    };
    CommandError::new(
        ErrorKind::Stale,
        format!(
            "{} change(s) needed now are not among the reviewed changes of {}; nothing was sent:{}",
            changes.len(),
            label,
            lines.concat()
        ),
    )
    .with_hint(hint)
}

/// Every held change with the findings that hold it (code, record, `file:line:col`), and what
/// to do about each kind of thing held.
fn held_by_finding(held: &[Held], plan: HeldIn, files: &[PathBuf]) -> CommandError {
    let mut lines = String::new();
    for Held { change, findings } in held {
        // The target heads the change's first line; the lines under it keep their indent.
        for (i, line) in plain_change_lines(change).into_iter().enumerate() {
            match i {
                0 => lines.push_str(&format!(
                    "\n  {}: {line}",
                    Untrusted(&change.target.to_string())
                )),
                _ => lines.push_str(&format!("\n  {line}")),
            }
        }
        for f in findings {
            lines.push('\n');
            lines.push_str(finding::text_lines(f, "    ", |_, label| label.to_string()).trim_end());
        }
    }
    let what = match plan {
        HeldIn::Now => format!(
            "{} change(s) would write what an error finding is about, and no `accept:` accepts it; nothing was sent:",
            held.len()
        ),
        HeldIn::Reviewed => format!(
            "{} holds {} change(s) for an error finding, and a plan that holds a change is never applied; nothing was sent:",
            files
                .iter()
                .map(|f| f.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            held.len()
        ),
    };
    let mut error = CommandError::new(ErrorKind::HeldByFinding, format!("{what}{lines}"));
    for hint in held_hints(held) {
        error = error.with_hint(hint);
    }
    match plan {
        HeldIn::Now => error,
        HeldIn::Reviewed => error.with_hint(
            "then make a new plan (`dnscron plan --out FILE`), have it reviewed, and apply that",
        ),
    }
}

/// One hint per finding that holds a record (with the `accept:` entry that would accept it),
/// and one for cron jobs.
fn held_hints(held: &[Held]) -> Vec<String> {
    let mut hints: Vec<String> = Vec::new();
    let mut cron = false;
    for Held { change, findings } in held {
        match &change.resource {
            Resource::Record { .. } => {
                for f in findings {
                    let Some(record) = &f.record else { continue };
                    let at = f.declared_at.as_deref().unwrap_or("its zone file");
                    // The entry covers what the finding measures now, and nothing worse.
                    let value = f
                        .figure
                        .map(|figure| format!(", value: {}", figure.value()))
                        .unwrap_or_default();
                    let hint = format!(
                        "fix {} {} at {}, or accept the finding in the zone file of {}: `accept: [{{ finding: {}, name: {}, reason: \"…\"{value} }}]`",
                        Untrusted(&record.name),
                        record.rtype,
                        Untrusted(at),
                        Untrusted(&f.target.name),
                        f.code,
                        Untrusted(&record.name),
                    );
                    if !hints.contains(&hint) {
                        hints.push(hint);
                    }
                }
            }
            Resource::CronJob { .. } => cron = true,
            Resource::Nameservers => {}
        }
    }
    if cron {
        hints.push(
            "fix the schedule of each cron job named above (at the place given), or remove the job"
                .into(),
        );
    }
    hints
}

fn union_refused(files: &[PathBuf], error: UnionError) -> CommandError {
    let name = |i: usize| {
        files
            .get(i)
            .map(|f| f.display().to_string())
            .unwrap_or_default()
    };
    match error {
        UnionError::Empty => CommandError::user("no reviewed plan file given")
            .with_hint("pass --reviewed FILE (repeatable) with the plan files that were reviewed"),
        UnionError::MixedApiUrls {
            index,
            api_url,
            first_url,
        } => CommandError::user(format!(
            "the reviewed plans were made against different APIs: {} against {}, {} against {}; nothing was sent",
            name(0),
            escape(&first_url),
            name(index),
            escape(&api_url)
        ))
        .with_hint("apply the plans of one account together; run apply once per API URL with that URL's plans"),
        UnionError::SharedPlanId {
            first,
            index,
            plan_id,
        } => CommandError::user(format!(
            "{} and {} have the same plan_id {} but different contents; nothing was sent",
            name(first),
            name(index),
            escape(&plan_id)
        ))
        .with_hint("a plan_id belongs to one plan: pass the plan files as `dnscron plan --out` wrote them"),
    }
}
