//! Cron deletes. The API deletes by index, and the spec leaves open where indexes start and how
//! they move after a delete, so an index from the plan (or from any earlier listing) is never
//! trusted: right before each delete the site's jobs are listed again, the job is found by its
//! normalized (schedule, command), and the delete goes to the index it has now.
//!
//! Identical jobs: a plan that removes `d` of `k` identical jobs (keeping `m = k - d`, what the
//! files declare) has deletes with occurrence 0 … d-1. After occurrence `o` is done,
//! `m + d - o - 1` copies remain. So a delete is already in effect when the listing holds no more than that
//! many: the retry of an interrupted apply then deletes nothing more, and never a job the files
//! want kept.

use std::time::Duration;

use crate::api::{ApiError, IdempotencyKey, WriteClient, WriteRequest, WriteResponse, payload};
use crate::config::model::Desired;
use crate::plan::request::RequestError;
use crate::plan::{Action, Change, Resource, job_key};

/// The same job as the planner sees it (`plan::job_key`: normalized schedule and command).
fn same(schedule_a: &str, command_a: &str, schedule_b: &str, command_b: &str) -> bool {
    job_key(schedule_a, command_a) == job_key(schedule_b, command_b)
}

/// What a cron delete did.
#[derive(Debug)]
pub(super) enum CronDelete {
    Sent(WriteResponse),
    /// No more copies than should remain: nothing to delete.
    AlreadyGone,
    /// Every listing, the last one after waiting this long, was exactly the one this run's
    /// previous fresh delete on the site was made from: a stale read, whose indexes may point
    /// at other jobs now. Nothing was sent.
    StaleListing {
        waited: Duration,
    },
}

/// How many copies of the job should remain once this delete is done.
pub(super) fn remaining_after(
    desired: &Desired,
    round_changes: &[Change],
    slug: &str,
    schedule: &str,
    command: &str,
    occurrence: u32,
) -> usize {
    let kept = desired
        .sites
        .iter()
        .filter(|s| s.slug == slug)
        .filter_map(|s| s.cron.as_ref())
        .flatten()
        .filter(|j| same(&j.schedule, &j.command, schedule, command))
        .count();
    let deletes = round_changes
        .iter()
        .filter(|c| c.action == Action::Delete && c.target.name == slug)
        .filter(|c| {
            matches!(&c.resource, Resource::CronJob { schedule: s, command: cmd, .. }
                if same(s, cmd, schedule, command))
        })
        .count();
    (kept + deletes).saturating_sub(occurrence as usize + 1)
}

/// The job a cron delete removes one copy of.
pub(super) struct Job<'a> {
    pub slug: &'a str,
    pub schedule: &'a str,
    pub command: &'a str,
    /// Copies that must remain once this delete is done (see [`remaining_after`]).
    pub remaining: usize,
    /// The listing this run's previous fresh delete on the site was made from: a listing equal
    /// to it has not seen that delete yet.
    pub stale: Option<&'a [payload::CronJob]>,
}

/// Re-lists the site's jobs and deletes one copy of the job at its current index, unless no
/// more than `job.remaining` copies are left. `request` is `plan::request::derive` at an index.
/// A listing that is still `job.stale` is read again after each of `waits`. Returns what was
/// done and the listing the delete was made from.
pub(super) async fn delete(
    client: &WriteClient,
    job: &Job<'_>,
    key: &IdempotencyKey,
    waits: &[Duration],
    request: impl Fn(i64) -> Result<WriteRequest, RequestError>,
) -> Result<(CronDelete, Vec<payload::CronJob>), ApiError> {
    let mut attempt = 1;
    loop {
        let jobs = match listing(client, job, waits).await? {
            Ok(jobs) => jobs,
            Err(waited) => return Ok((CronDelete::StaleListing { waited }, Vec::new())),
        };
        let Some(index) = index_to_delete(&jobs, job.schedule, job.command, job.remaining) else {
            return Ok((CronDelete::AlreadyGone, jobs));
        };
        let req = request(index).map_err(|e| ApiError::Client {
            message: e.to_string(),
        })?;
        match client.send(&req, key).await {
            // The index moved between the listing and the delete (someone else changed the
            // list): nothing was deleted, and a 404 is not stored under the key, so list again.
            Err(e) if e.is_not_found() && attempt < RELIST_ATTEMPTS => attempt += 1,
            other => return other.map(|resp| (CronDelete::Sent(resp), jobs)),
        }
    }
}

/// The site's jobs; while they are exactly `job.stale`, read again after each of `waits`.
/// `Err(waited)` when the last read is still stale.
async fn listing(
    client: &WriteClient,
    job: &Job<'_>,
    waits: &[Duration],
) -> Result<Result<Vec<payload::CronJob>, Duration>, ApiError> {
    let mut jobs = client.read().list_cron(job.slug).await?;
    let mut waited = Duration::ZERO;
    let mut waits = waits.iter();
    while job.stale == Some(jobs.as_slice()) {
        let Some(wait) = waits.next() else {
            return Ok(Err(waited));
        };
        tokio::time::sleep(*wait).await;
        waited += *wait;
        jobs = client.read().list_cron(job.slug).await?;
    }
    Ok(Ok(jobs))
}

/// Listings tried for one delete when the index keeps moving under it.
const RELIST_ATTEMPTS: u32 = 3;

/// The current index of a copy of the job to delete, or `None` when no more than `remaining`
/// copies are left. Identical jobs are interchangeable; the last is taken so that, where indexes
/// renumber, the jobs before it keep theirs.
fn index_to_delete(
    jobs: &[payload::CronJob],
    schedule: &str,
    command: &str,
    remaining: usize,
) -> Option<i64> {
    let matches: Vec<i64> = jobs
        .iter()
        .filter(|j| same(&j.schedule, &j.command, schedule, command))
        .map(|j| j.index)
        .collect();
    if matches.len() <= remaining {
        return None;
    }
    matches.into_iter().max()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::model::{CronJobSpec, Location, SiteSpec};
    use crate::plan::{TargetKind, TargetRef};

    fn loc() -> Location {
        Location {
            file: std::path::Path::new("s.yaml").into(),
            line: 1,
            col: 1,
        }
    }

    fn delete_change(occurrence: u32) -> Change {
        let site = TargetRef {
            kind: TargetKind::Site,
            name: "blog".into(),
        };
        let resource = Resource::CronJob {
            schedule: "0 * * * *".into(),
            command: "wp cache flush".into(),
            occurrence,
        };
        Change {
            id: 1,
            ..Change::new(Action::Delete, site, resource, None, None)
        }
    }

    #[test]
    fn remaining_counts_kept_and_later_deletes() {
        let job = CronJobSpec {
            schedule: "0 * * * *".into(),
            command: "wp cache flush".into(),
            location: loc(),
        };
        let desired = Desired {
            zones: vec![],
            sites: vec![SiteSpec {
                slug: "blog".into(),
                location: loc(),
                cron: Some(vec![job]),
            }],
        };
        // Live had 3 copies, the files keep 1: two deletes.
        let changes = [delete_change(0), delete_change(1)];
        let r = |o| {
            remaining_after(
                &desired,
                &changes,
                "blog",
                "0  * * * *",
                "wp cache flush",
                o,
            )
        };
        assert_eq!(r(0), 2);
        assert_eq!(r(1), 1);
        // Another site's jobs count nothing.
        assert_eq!(
            remaining_after(&desired, &changes, "shop", "0 * * * *", "wp cache flush", 0),
            0
        );
    }

    #[test]
    fn the_index_comes_from_the_listing_never_the_plan() {
        let job = |index, schedule: &str, command: &str| payload::CronJob {
            index,
            schedule: schedule.into(),
            command: command.into(),
        };
        let jobs = [
            job(1, "0 * * * *", "wp cache flush"),
            job(2, "*/5 * * * *", "php a.php"),
            job(3, "0  *  * * *", "wp  cache flush"),
        ];
        assert_eq!(
            index_to_delete(&jobs, "0 * * * *", "wp cache flush", 0),
            Some(3)
        );
        assert_eq!(
            index_to_delete(&jobs, "0 * * * *", "wp cache flush", 1),
            Some(3)
        );
        assert_eq!(
            index_to_delete(&jobs, "0 * * * *", "wp cache flush", 2),
            None
        );
        assert_eq!(
            index_to_delete(&jobs, "*/5 * * * *", "php a.php", 0),
            Some(2)
        );
        assert_eq!(index_to_delete(&jobs, "*/5 * * * *", "php b.php", 0), None);
    }

    #[test]
    fn jobs_match_as_the_planner_matches_them() {
        assert!(same(
            " */5  * * * * ",
            "php  a.php",
            "*/5 * * * *",
            "php a.php"
        ));
        assert!(!same(
            "*/5 * * * *",
            "php a.php",
            "*/5 * * * *",
            "php b.php"
        ));
        assert!(!same(
            "*/5 * * * *",
            "php a.php",
            "*/6 * * * *",
            "php a.php"
        ));
    }
}
