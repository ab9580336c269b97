//! Cron jobs of one site. When the site file has `cron`, it is the whole list. Jobs match on
//! (schedule, command) with whitespace collapsed; identical jobs count one by one. There is no
//! update endpoint, so a changed job is a delete plus a create.

use std::collections::HashMap;

use crate::config::model::{CronJobSpec, Desired, SiteSpec};
use dnscron_api::payload;

use chrono::{DateTime, SecondsFormat, Utc};

use super::in_effect;
use super::model::{Action, Change, Finding, Resource, Status, TargetKind, TargetRef, Value};
use super::norm::collapse_ws;
use super::order::Draft;
use crate::cron::{MAX_JOBS_PER_SITE, calendar, normalize_command, normalize_schedule};
use crate::finding::FindingCode;

/// How many run times a created job shows.
const NEXT_RUNS: usize = 3;

fn next_runs(schedule: &str, now: DateTime<Utc>) -> Vec<String> {
    calendar(schedule, now, NEXT_RUNS)
        .map(|c| c.next)
        .unwrap_or_default()
        .iter()
        .map(|t| t.to_rfc3339_opts(SecondsFormat::Secs, true))
        .collect()
}

/// A declared job that never runs (an error: the file promises work that never happens) or
/// that runs every minute (a warning: allowed, but rarely meant and heavy on a shared host).
pub(super) fn schedule_findings(
    site: &SiteSpec,
    want: &[CronJobSpec],
    now: DateTime<Utc>,
) -> Vec<Finding> {
    let finding = |job: &CronJobSpec, code, message: String| {
        let target = TargetRef {
            kind: TargetKind::Site,
            name: site.slug.clone(),
        };
        Finding::new(code, target, message).declared_at(&job.location)
    };
    want.iter()
        .filter_map(|job| {
            let c = calendar(&job.schedule, now, 1)?;
            let what = format!("cron job `{}` (`{}`)", job.command, job.schedule);
            if c.next.is_empty() {
                Some(finding(
                    job, FindingCode::CronNeverRuns,
                    format!("{what} never runs: no date matches its day and month fields; fix the schedule or remove the job"),
                ))
            } else if c.every_minute {
                Some(finding(
                    job, FindingCode::CronEveryMinute,
                    format!("{what} runs every minute; if that is not meant, give the minute field a value such as `*/5` or `0`"),
                ))
            } else {
                None
            }
        })
        .collect()
}

/// Every declared site's schedule findings at `now`, in file order: what a plan finds about the
/// schedules without reading the account (`validate` shows them).
pub fn schedule_findings_of(desired: &Desired, now: DateTime<Utc>) -> Vec<Finding> {
    desired
        .sites
        .iter()
        .filter_map(|site| Some((site, site.cron.as_deref()?)))
        .flat_map(|(site, jobs)| schedule_findings(site, jobs, now))
        .collect()
}

pub(super) fn diff_cron(
    site: &SiteSpec,
    want: &[CronJobSpec],
    state: Option<&str>,
    have: &[payload::CronJob],
    now: Option<DateTime<Utc>>,
) -> Vec<Draft> {
    let target = TargetRef {
        kind: TargetKind::Site,
        name: site.slug.clone(),
    };
    let mut have: Vec<&payload::CronJob> = have.iter().collect();
    have.sort_by_key(|j| j.index);
    let key = job_key;
    let mut unused: Vec<Option<&payload::CronJob>> = have.iter().copied().map(Some).collect();

    let mut creates = Vec::new();
    for job in want {
        let k = key(&job.schedule, &job.command);
        let found = unused.iter_mut().find(|slot| {
            slot.is_some_and(|j| in_effect::job_in_effect(&key(&j.schedule, &j.command), &k))
        });
        match found {
            Some(slot) => *slot = None,
            None => creates.push(job),
        }
    }
    let deletes: Vec<&payload::CronJob> = unused.into_iter().flatten().collect();

    // Deletes go after the creates unless the site would exceed the limit in between.
    let early = (have.len() + creates.len())
        .saturating_sub(MAX_JOBS_PER_SITE)
        .min(deletes.len());
    let mut occurrences: HashMap<(Action, String, String), u32> = HashMap::new();
    let mut next_occurrence = |action: Action, s: &str, c: &str| {
        let n = occurrences
            .entry((action, s.to_string(), c.to_string()))
            .or_insert(0);
        *n += 1;
        *n - 1
    };

    let mut drafts = Vec::new();
    for (i, job) in deletes.iter().enumerate() {
        let (schedule, command) = key(&job.schedule, &job.command);
        let occurrence = next_occurrence(Action::Delete, &schedule, &command);
        let resource = Resource::CronJob {
            schedule: schedule.clone(),
            command: command.clone(),
            occurrence,
        };
        let before = Some(Value::CronJob { schedule, command });
        let mut d = Draft::new(Change::new(
            Action::Delete,
            target.clone(),
            resource,
            before,
            None,
        ));
        d.early = i < early;
        drafts.push(d);
    }
    for job in creates {
        let (schedule, command) = key(&job.schedule, &job.command);
        let occurrence = next_occurrence(Action::Create, &schedule, &command);
        let next_runs = now.map(|now| next_runs(&schedule, now)).unwrap_or_default();
        let resource = Resource::CronJob {
            schedule: schedule.clone(),
            command: command.clone(),
            occurrence,
        };
        let after = Some(Value::CronJob { schedule, command });
        let change = Change::new(Action::Create, target.clone(), resource, None, after);
        drafts.push(Draft::new(
            change.declared(&job.location).with_next_runs(next_runs),
        ));
    }
    if !is_active(state) {
        let shown = state.unwrap_or("in an unknown state");
        for d in &mut drafts {
            d.change.status = Status::Blocked;
            d.change.reason = Some(format!(
                "site {} is {shown}: the API refuses cron changes on a site that is not active; reactivate it in the portal, then plan again",
                site.slug
            ));
        }
    }
    drafts
}

fn is_active(state: Option<&str>) -> bool {
    state.is_some_and(|s| s.trim().eq_ignore_ascii_case("active"))
}

/// The identity of a job: its normalized (schedule, command). Live jobs the normalizers refuse
/// (server data never fails the plan) fall back to collapsed whitespace. Apply uses this to find
/// a planned cron delete in a fresh listing: `job_key(live) == (resource.schedule, resource.command)`.
pub(crate) fn job_key(schedule: &str, command: &str) -> (String, String) {
    (
        normalize_schedule(schedule).unwrap_or_else(|_| collapse_ws(schedule)),
        normalize_command(command).unwrap_or_else(|_| collapse_ws(command)),
    )
}
