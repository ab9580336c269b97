//! Cron deletes. The API deletes by index, and the spec leaves open where indexes start and how
//! they move after a delete, so an index from the plan (or from any earlier listing) is never
//! trusted: right before each delete the site's jobs are listed again, the job is found by its
//! normalized (schedule, command), and the delete goes to the index it has now.
//!
//! Identical jobs: a plan that removes `d` of `k` identical jobs (keeping `m = k - d`, what the
//! files declare) has deletes with occurrence 0 … d-1. After occurrence `o` is done,
//! `m + d - o - 1` copies remain (`plan::in_effect::copies_after`). So a delete is already in
//! effect when the listing holds no more than that many (`plan::in_effect::effect_on_copies`):
//! the retry of an interrupted apply then deletes nothing more, and never a job the files want
//! kept.
//!
//! The index can still move between that listing and the DELETE (someone removes a job listed
//! before it): what the delete removed is then checked (`cron_removed`), and a job removed by
//! mistake is put back at once.

use std::time::Duration;

use sha2::{Digest, Sha256};

use super::cron_removed::{self, Took};
use super::executor::Stop;
use super::outcome::{ChangeOutcome, ChangeReport, CronMixUp, ErrorInfo, ListedJob, Recreate};
use crate::config::model::Desired;
use crate::plan::in_effect::{self, Effect};
use crate::plan::request::RequestError;
use crate::plan::{Action, Change, Resource, job_key};
use dnscron_api::{
    ApiError, IdempotencyKey, IdempotencyKeyError, WriteClient, WriteRequest, WriteResponse,
    payload,
};

/// The same job as the planner sees it (`plan::job_key`: normalized schedule and command).
fn same(schedule_a: &str, command_a: &str, schedule_b: &str, command_b: &str) -> bool {
    job_key(schedule_a, command_a) == job_key(schedule_b, command_b)
}

/// What a cron delete did.
#[derive(Debug)]
pub(super) enum CronDelete {
    Sent(Deleted),
    /// No more copies than should remain: nothing to delete.
    AlreadyGone,
    /// Every listing, the last one after waiting this long, was exactly the one this run's
    /// previous fresh delete on the site was made from: a stale read, whose indexes may point
    /// at other jobs now. Nothing was sent.
    StaleListing {
        waited: Duration,
    },
}

/// A cron delete the server answered 2xx, under `key` (the change's key bound to the listing
/// the delete was made from).
#[derive(Debug)]
pub(super) enum Deleted {
    /// The meant job was deleted.
    Meant {
        resp: WriteResponse,
        key: IdempotencyKey,
    },
    /// The index pointed at another job when the delete arrived: the meant job was not
    /// deleted by it; what was, and its re-create, are in `mixup`.
    IndexMoved {
        resp: WriteResponse,
        key: IdempotencyKey,
        mixup: Box<CronMixUp>,
    },
}

impl Deleted {
    /// The server ran the delete now (not a replay of a stored answer).
    pub(super) fn fresh(&self) -> bool {
        match self {
            Deleted::Meant { resp, .. } | Deleted::IndexMoved { resp, .. } => !resp.replayed,
        }
    }

    /// Words nothing: fills in `report` and says whether the round stops here.
    pub(super) fn report(self, change: &Change, report: &mut ChangeReport) -> Option<Stop> {
        let (resp, key, mixup) = match self {
            Deleted::Meant { resp, key } => (resp, key, None),
            Deleted::IndexMoved { resp, key, mixup } => (resp, key, Some(*mixup)),
        };
        report.idempotency_key = key.as_str().to_string();
        report.request_id = resp.request_id;
        report.replayed = resp.replayed;
        report.attempts = resp.attempts;
        report.outcome = match (&mixup, resp.replayed) {
            (Some(_), _) => ChangeOutcome::IndexMoved,
            (None, true) => ChangeOutcome::Replayed,
            (None, false) => ChangeOutcome::Done,
        };
        let stop = mixup.as_ref().map(|_| Stop::CronIndexMoved {
            change_id: change.id,
        });
        report.cron_mixup = mixup;
        stop
    }
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
    in_effect::copies_after(Action::Delete, kept, deletes, occurrence)
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
/// more than `job.remaining` copies are left; then checks what the delete removed. `request` is
/// `plan::request::derive` at an index. A listing that is still `job.stale` is read again after
/// each of `waits`. Returns what was done and the listing the delete was made from.
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
        let key = bound_key(key, &jobs).map_err(key_error)?;
        match client.send(&req, &key).await {
            // The index moved between the listing and the delete (someone else changed the
            // list): nothing was deleted, and a 404 is not stored under the key, so list again.
            Err(e) if e.is_not_found() && attempt < RELIST_ATTEMPTS => attempt += 1,
            Err(e) => return Err(e),
            Ok(resp) => {
                let done = check(client, job, index, &jobs, resp, key, waits).await?;
                return Ok((done, jobs));
            }
        }
    }
}

/// The change's key bound to the listing its delete was made from. A delete made from another
/// listing is another request: after a delete that took another job (the meant one still
/// there), a re-run of the same plan must not get that delete's stored answer replayed. A
/// retry of the same request (same listing) keeps the key, so a lost answer is replayed.
fn bound_key(
    key: &IdempotencyKey,
    jobs: &[payload::CronJob],
) -> Result<IdempotencyKey, IdempotencyKeyError> {
    let mut hash = Sha256::new();
    for j in jobs {
        hash.update(format!("{}|{}|{}\n", j.index, j.schedule, j.command).as_bytes());
    }
    let digest = format!("{:x}", hash.finalize());
    IdempotencyKey::new(format!("{key}-l{}", &digest[..16]))
}

fn key_error(e: IdempotencyKeyError) -> ApiError {
    ApiError::Client {
        message: e.to_string(),
    }
}

/// What the delete sent to `index` of `before` removed: the meant job (its answer names it, or
/// the listing right after shows it alone gone where the delete could reach), or another one,
/// which is re-created at once.
async fn check(
    client: &WriteClient,
    job: &Job<'_>,
    index: i64,
    before: &[payload::CronJob],
    resp: WriteResponse,
    key: IdempotencyKey,
    waits: &[Duration],
) -> Result<CronDelete, ApiError> {
    let meant = (job.schedule, job.command);
    if cron_removed::names_meant(&resp.body, meant) {
        return Ok(CronDelete::Sent(Deleted::Meant { resp, key }));
    }
    let after = listing_after(client, job.slug, before, waits).await?;
    if after.as_slice() == before {
        // Still the listing the delete was made from after every wait: a read that has not
        // seen the delete (a cache), which can tell nothing. The 200 is taken as before; the
        // next delete on the site refuses that stale listing, and verification reads again.
        return Ok(CronDelete::Sent(Deleted::Meant { resp, key }));
    }
    let (took, vanished, candidates) =
        cron_removed::judge(meant, index, before, &after, &resp.body);
    let removed = match took {
        Took::Meant => return Ok(CronDelete::Sent(Deleted::Meant { resp, key })),
        Took::Other(removed) => Some(removed),
        Took::Unclear => None,
    };
    let recreate = match &removed {
        Some(removed) => Some(recreate(client, job.slug, removed, &key).await),
        None => None,
    };
    let mixup = CronMixUp {
        removed,
        vanished,
        candidates,
        meant_still_there: cron_removed::still_there(&after, meant, job.remaining),
        recreate,
    };
    Ok(CronDelete::Sent(Deleted::IndexMoved {
        resp,
        key,
        mixup: Box::new(mixup),
    }))
}

/// The site's jobs right after a delete; while they are still exactly `before` (a read that
/// has not seen the delete yet), read again after each of `waits`.
async fn listing_after(
    client: &WriteClient,
    slug: &str,
    before: &[payload::CronJob],
    waits: &[Duration],
) -> Result<Vec<payload::CronJob>, ApiError> {
    let mut jobs = client.read().list_cron(slug).await?;
    for wait in waits {
        if jobs.as_slice() != before {
            break;
        }
        tokio::time::sleep(*wait).await;
        jobs = client.read().list_cron(slug).await?;
    }
    Ok(jobs)
}

/// Puts back a job a delete removed by mistake, as it was listed, under a key derived from the
/// delete's (plan id, change, listing) and the job: a retry or a re-run after a lost answer
/// gets the stored answer instead of a second copy.
async fn recreate(
    client: &WriteClient,
    slug: &str,
    removed: &ListedJob,
    delete_key: &IdempotencyKey,
) -> Recreate {
    let digest = format!(
        "{:x}",
        Sha256::digest(format!("{}|{}", removed.schedule, removed.command).as_bytes())
    );
    let key_text = format!("{delete_key}-re{}", &digest[..12]);
    let mut done = Recreate {
        idempotency_key: key_text.clone(),
        path: format!("/sites/{slug}/cron"),
        request_id: None,
        replayed: false,
        error: None,
    };
    let body = payload::CronJobWrite {
        schedule: removed.schedule.clone(),
        command: removed.command.clone(),
    };
    let sent = match IdempotencyKey::new(key_text) {
        Ok(key) => client.create_cron(slug, &body, &key).await,
        Err(e) => Err(key_error(e)),
    };
    match sent {
        Ok(resp) => {
            done.request_id = resp.request_id;
            done.replayed = resp.replayed;
        }
        Err(e) => {
            done.request_id = e.request_id().map(str::to_string);
            done.error = Some(ErrorInfo::from_api(&e));
        }
    }
    done
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
    match in_effect::effect_on_copies(Action::Delete, matches.len(), remaining) {
        Effect::InEffect => None,
        Effect::Pending | Effect::Moved { .. } => matches.into_iter().max(),
    }
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
            unmanaged: Default::default(),
            zones: vec![],
            sites: vec![SiteSpec {
                accept: Vec::new(),
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
