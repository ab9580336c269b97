//! A cron delete whose index moved to another job before it arrived (`ApplyResult::
//! CronIndexMoved`): what was meant, what was removed instead and whether it was put back.

use std::fmt::Write as _;

use dnscron_api::untrusted::Untrusted as U;
use dnscron_core::apply::{ApplyReport, ChangeReport, CronMixUp, ListedJob, Recreate};
use dnscron_core::plan::Resource;

use super::{error_kind, subject, summary, tally};
use crate::cli::error::CRON_INDEX_MOVED_HINT;

/// `cron "0 * * * *" php a.php`, as the plan shows a job.
fn job_text(schedule: &str, command: &str) -> String {
    format!("cron \"{}\" {}", U(schedule), U(command))
}

fn listed(job: &ListedJob) -> String {
    job_text(&job.schedule, &job.command)
}

/// The job the change meant to delete.
fn meant(r: &ChangeReport) -> String {
    match &r.resource {
        Resource::CronJob {
            schedule, command, ..
        } => job_text(schedule, command),
        Resource::Record { .. } | Resource::Nameservers => summary(&r.change),
    }
}

/// What became of the job the delete meant.
fn meant_words(mixup: &CronMixUp) -> &'static str {
    if mixup.meant_still_there {
        "not deleted, still there"
    } else {
        "gone, though not by this delete (someone else removed it)"
    }
}

fn recreate_words(recreate: &Recreate) -> String {
    match &recreate.error {
        None if recreate.replayed => format!(
            "re-created (POST {}, answered from an earlier identical request)",
            U(&recreate.path)
        ),
        None => format!("re-created (POST {})", U(&recreate.path)),
        Some(error) => format!(
            "NOT re-created: POST {} failed: {}: {}; add it back in the portal",
            U(&recreate.path),
            error_kind(error),
            U(&error.message)
        ),
    }
}

/// One line of the account: a label (empty under a list), the job it is about, and words.
struct Line {
    label: &'static str,
    job: Option<String>,
    words: &'static str,
    more: String,
}

impl Line {
    fn new(label: &'static str, job: Option<String>, words: &'static str) -> Line {
        Line {
            label,
            job,
            words,
            more: String::new(),
        }
    }
}

/// The meant job, then what the delete removed.
fn lines(r: &ChangeReport, mixup: &CronMixUp) -> Vec<Line> {
    let mut out = vec![Line::new("meant", Some(meant(r)), meant_words(mixup))];
    match (&mixup.removed, &mixup.recreate) {
        (Some(job), Some(recreate)) => out.push(Line {
            more: recreate_words(recreate),
            ..Line::new("removed", Some(listed(job)), "")
        }),
        (Some(job), None) => out.push(Line::new("removed", Some(listed(job)), "")),
        (None, _) if mixup.candidates.is_empty() => out.push(Line::new(
            "removed",
            None,
            "no job the listing right after the delete misses, though the server answered that it removed one; nothing was re-created",
        )),
        (None, _) => {
            out.push(Line::new(
                "removed",
                None,
                "one of these, which one cannot be told, so none was re-created; add back the one that should be there:",
            ));
            for job in &mixup.candidates {
                out.push(Line::new("", Some(listed(job)), ""));
            }
        }
    }
    out
}

/// `job: words`, `job`, or `words`.
fn joined(job: Option<String>, words: &str) -> String {
    match (job, words) {
        (Some(job), "") => job,
        (Some(job), words) => format!("{job}: {words}"),
        (None, words) => words.to_string(),
    }
}

fn mixup_of(report: &ApplyReport, change_id: usize) -> Option<(&ChangeReport, &CronMixUp)> {
    report
        .changes
        .iter()
        .rev()
        .find(|r| r.id == change_id && r.cron_mixup.is_some())
        .and_then(|r| Some((r, r.cron_mixup.as_ref()?)))
}

/// The text report's ending for `ApplyResult::CronIndexMoved`.
pub(super) fn text(out: &mut String, report: &ApplyReport, change_id: usize) {
    let _ = writeln!(
        out,
        "Stopped at {}: the site's cron jobs changed between the listing and this delete, and the API deletes by index, so the delete reached another job:",
        subject(report, change_id)
    );
    if let Some((r, mixup)) = mixup_of(report, change_id) {
        for line in lines(r, mixup) {
            let label = match line.label {
                "" => String::new(),
                label => format!("{label}:"),
            };
            let words = format!("{}{}", line.words, line.more);
            let _ = writeln!(out, "  {label:<9}{}", joined(line.job, &words));
        }
    }
    let _ = writeln!(
        out,
        "{}. Nothing after change {change_id} was attempted; {CRON_INDEX_MOVED_HINT}.",
        tally(report)
    );
}

/// The Markdown report's paragraph for `ApplyResult::CronIndexMoved`.
pub(super) fn markdown(out: &mut String, report: &ApplyReport, change_id: usize) {
    let _ = writeln!(
        out,
        "**The site's cron jobs changed between the listing and a delete, and the API deletes by index: the delete reached another job.** Nothing after it was attempted; {CRON_INDEX_MOVED_HINT}.\n"
    );
    if let Some((r, mixup)) = mixup_of(report, change_id) {
        for line in lines(r, mixup) {
            let job = line
                .job
                .map(|job| format!("`{}`", super::markdown::cell(&job)));
            let words = format!("{}{}", line.words, super::markdown::cell(&line.more));
            match line.label {
                "" => {
                    let _ = writeln!(out, "  - {}", joined(job, &words));
                }
                label => {
                    let _ = writeln!(out, "- {label}: {}", joined(job, &words));
                }
            }
        }
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use dnscron_core::apply::{ApplyResult, ChangeOutcome, Counts, ErrorInfo};
    use dnscron_core::plan::{Action, Change, TargetKind, TargetRef, Value};

    use super::*;

    fn job(schedule: &str, command: &str) -> ListedJob {
        ListedJob {
            schedule: schedule.into(),
            command: command.into(),
        }
    }

    fn report(mixup: CronMixUp) -> ApplyReport {
        let site = TargetRef {
            kind: TargetKind::Site,
            name: "blog".into(),
        };
        let resource = Resource::CronJob {
            schedule: "1 * * * *".into(),
            command: "php two.php".into(),
            occurrence: 0,
        };
        let before = Value::CronJob {
            schedule: "1 * * * *".into(),
            command: "php two.php".into(),
        };
        let change = Change {
            id: 1,
            ..Change::new(Action::Delete, site, resource, Some(before), None)
        };
        let mut r = ChangeReport::new(&change, 0, "k".into());
        r.outcome = ChangeOutcome::IndexMoved;
        r.cron_mixup = Some(mixup);
        let changes = vec![r];
        ApplyReport {
            plan_id: "p1".into(),
            api_url: "http://127.0.0.1:8080/v1".into(),
            counts: Counts::of(&changes),
            result: ApplyResult::CronIndexMoved { change_id: 1 },
            rounds: 1,
            changes,
            dns_check: None,
            changed_during_apply: Vec::new(),
            read_whole_account: false,
        }
    }

    fn ending(report: &ApplyReport) -> String {
        let mut out = String::new();
        text(&mut out, report, 1);
        out
    }

    const HINT_LINE: &str = "0 done, 1 index moved. Nothing after change 1 was attempted; someone is changing this site's cron jobs: check them in the portal, then run apply again (it lists the jobs right before each delete; docs/apply.md, \"Cron deletes\").\n";

    #[test]
    fn which_job_went_cannot_be_told_so_none_is_recreated() {
        let out = ending(&report(CronMixUp {
            removed: None,
            candidates: vec![
                job("1 * * * *", "php two.php"),
                job("3 * * * *", "php\u{1b}[2J three.php"),
            ],
            vanished: vec![],
            meant_still_there: false,
            recreate: None,
        }));
        assert_eq!(
            out,
            format!("Stopped at change 1 (site blog: - cron \"1 * * * *\" php two.php): the site's cron jobs changed between the listing and this delete, and the API deletes by index, so the delete reached another job:
  meant:   cron \"1 * * * *\" php two.php: gone, though not by this delete (someone else removed it)
  removed: one of these, which one cannot be told, so none was re-created; add back the one that should be there:
           cron \"1 * * * *\" php two.php
           cron \"3 * * * *\" php\\u{{1b}}[2J three.php
{HINT_LINE}")
        );
    }

    #[test]
    fn nothing_gone_although_the_server_said_removed() {
        let out = ending(&report(CronMixUp {
            removed: None,
            vanished: vec![],
            candidates: vec![],
            meant_still_there: true,
            recreate: None,
        }));
        assert_eq!(
            out,
            format!("Stopped at change 1 (site blog: - cron \"1 * * * *\" php two.php): the site's cron jobs changed between the listing and this delete, and the API deletes by index, so the delete reached another job:
  meant:   cron \"1 * * * *\" php two.php: not deleted, still there
  removed: no job the listing right after the delete misses, though the server answered that it removed one; nothing was re-created
{HINT_LINE}")
        );
    }

    #[test]
    fn a_failed_recreate_says_to_add_the_job_back() {
        let mut error = ErrorInfo::internal("a site has at most 5 cron jobs\n\u{1b}[31m");
        error.kind = Some("validation_error".into());
        error.status = Some(422);
        let out = ending(&report(CronMixUp {
            removed: Some(job("3 * * * *", "php three.php")),
            vanished: vec![job("3 * * * *", "php three.php")],
            candidates: vec![job("3 * * * *", "php three.php")],
            meant_still_there: true,
            recreate: Some(Recreate {
                idempotency_key: "k-re1".into(),
                path: "/sites/blog/cron".into(),
                request_id: None,
                replayed: false,
                error: Some(error),
            }),
        }));
        assert_eq!(
            out,
            format!("Stopped at change 1 (site blog: - cron \"1 * * * *\" php two.php): the site's cron jobs changed between the listing and this delete, and the API deletes by index, so the delete reached another job:
  meant:   cron \"1 * * * *\" php two.php: not deleted, still there
  removed: cron \"3 * * * *\" php three.php: NOT re-created: POST /sites/blog/cron failed: validation_error (HTTP 422): a site has at most 5 cron jobs\\u{{a}}\\u{{1b}}[31m; add it back in the portal
{HINT_LINE}")
        );
    }
}
