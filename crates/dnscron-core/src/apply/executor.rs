//! Sends the changes of one round, in order, each with its idempotency key, and stops at the
//! first one that fails or needs a human.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use crate::config::model::Desired;
use crate::plan::in_effect;
use crate::plan::request::{self, RequestError};
use crate::plan::{Action, Change, PlanOptions, Resource, Status};
use dnscron_api::{ApiError, IdempotencyKey, WriteClient, WriteResponse, payload};

use super::cron_delete::{self, CronDelete, Deleted};
use super::dns::{DnsOptions, ready};
use super::interrupt::Interrupt;
use super::outcome::{ChangeOutcome, ChangeReport, ErrorInfo};
use super::progress::{Note, Progress};

/// Why a round ended early.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Stop {
    NeedsPortalStep {
        change_id: usize,
        continue_url: String,
    },
    Failed {
        change_id: usize,
        error: ErrorInfo,
    },
    Interrupted,
    /// A cron delete took another job (re-created if it could be told which): someone is
    /// changing the site's jobs, so nothing more is sent.
    CronIndexMoved {
        change_id: usize,
    },
}

pub(super) struct Executor<'a> {
    pub(super) client: &'a WriteClient,
    /// The plan's id: every key of every round derives from it.
    pub(super) plan_id: &'a str,
    /// The plan's options: requests are derived with them, like the plan's keys.
    pub(super) options: &'a PlanOptions,
    pub(super) desired: &'a Desired,
    pub(super) progress: &'a dyn Progress,
    /// Raised by a signal: finish the change in flight, start no other.
    pub(super) interrupt: Option<&'a Interrupt>,
    /// Waits before listing a site's cron jobs again when a listing has not seen this run's
    /// previous delete there yet (`ApplyOptions::visibility_waits`).
    pub(super) visibility_waits: &'a [Duration],
    /// Per site, the listing this run's last fresh cron delete was made from.
    pub(super) cron_listings: Mutex<HashMap<String, Vec<payload::CronJob>>>,
    /// DNS checks: a switch to custom nameservers is sent only once they serve the zone.
    pub(super) dns: Option<&'a DnsOptions>,
}

/// Ready changes first, in plan order; then the ones the plan expects the server to refuse
/// (portal step, blocked): the server decides, and conditions may have changed since the plan.
/// Held changes go before all of them: the executor fails the first without sending it, so a
/// plan that holds a change sends nothing.
pub(super) fn execution_order(changes: &[Change]) -> Vec<Change> {
    let (held, sendable): (Vec<&Change>, Vec<&Change>) = changes.iter().partition(|c| c.is_held());
    let (ready, rest): (Vec<&Change>, Vec<&Change>) = sendable
        .into_iter()
        .partition(|c| c.status == Status::Ready);
    held.into_iter().chain(ready).chain(rest).cloned().collect()
}

/// The error of a held change that reached the executor: failed, not sent.
fn held(change: &Change) -> ErrorInfo {
    let mut error = ErrorInfo::internal(change.reason.clone().unwrap_or_default());
    error.kind = Some("held_by_finding".into());
    error
}

/// What sending one change gave.
enum Sent {
    Response(WriteResponse),
    AlreadyAbsent,
    /// A cron delete, under its listing-bound key (`cron_delete`).
    CronDelete(Deleted),
}

impl Executor<'_> {
    /// Runs `changes` (already in execution order) as round `round`, appending one report per
    /// change (not-attempted ones included). Returns why it stopped early, if it did.
    pub(super) async fn run_round(
        &self,
        changes: &[Change],
        round: u32,
        reports: &mut Vec<ChangeReport>,
    ) -> Option<Stop> {
        self.progress.start(round, changes.len());
        let mut stop = None;
        for (i, change) in changes.iter().enumerate() {
            // A plan file is checked on load, so a change without a request is a bug here;
            // it still fails that one change with the reason rather than the whole process.
            let key = change.idempotency_key(self.plan_id, round, self.options);
            let key_text = key.clone().unwrap_or_default();
            let mut report = ChangeReport::new(change, round, key_text.clone());
            if stop.is_some() {
                reports.push(report);
                continue;
            }
            if self.interrupt.is_some_and(Interrupt::is_raised) {
                stop = Some(Stop::Interrupted);
                reports.push(report);
                continue;
            }
            self.progress.begin(i + 1, change);
            stop = match key {
                // `apply::workflow` refuses a plan that holds a change before anything is sent;
                // a caller of `apply::apply` that skips it still never sends one.
                Ok(_) if change.is_held() => Some(self.fail(change, &mut report, held(change))),
                Ok(_) => self.run_one(change, changes, &key_text, &mut report).await,
                Err(e) => Some(self.fail(change, &mut report, ErrorInfo::internal(e.to_string()))),
            };
            self.progress.finish(&report);
            reports.push(report);
        }
        stop
    }

    async fn run_one(
        &self,
        change: &Change,
        round_changes: &[Change],
        key_text: &str,
        report: &mut ChangeReport,
    ) -> Option<Stop> {
        let key = match IdempotencyKey::new(key_text) {
            Ok(k) => k,
            Err(e) => return Some(self.fail(change, report, ErrorInfo::internal(e.to_string()))),
        };
        if let Some(readiness) = self.readiness(change).await
            && !readiness.is_ready()
        {
            report.outcome = ChangeOutcome::NotReady;
            report.error = Some(ready::refusal(&readiness));
            report.readiness = Some(readiness);
            return None;
        }
        let sent = match self.interrupt {
            Some(interrupt) => tokio::select! {
                sent = self.send(change, round_changes, &key) => sent,
                // Nothing of this change is on the wire during a rate-limit wait.
                () = interrupt.during_pause() => return Some(Stop::Interrupted),
            },
            None => self.send(change, round_changes, &key).await,
        };
        match sent {
            Ok(Sent::Response(resp)) => {
                report.outcome = if resp.replayed {
                    ChangeOutcome::Replayed
                } else {
                    ChangeOutcome::Done
                };
                report.request_id = resp.request_id;
                report.replayed = resp.replayed;
                report.attempts = resp.attempts;
                None
            }
            Ok(Sent::AlreadyAbsent) => {
                report.outcome = ChangeOutcome::AlreadyAbsent;
                None
            }
            Ok(Sent::CronDelete(deleted)) => deleted.report(change, report),
            Err(SendError::Api(err)) => {
                report.request_id = err.request_id().map(str::to_string);
                report.attempts = attempts_of(&err);
                if let Some(url) = err.needs_portal_step() {
                    report.outcome = ChangeOutcome::NeedsPortalStep;
                    report.continue_url = Some(url.to_string());
                    report.error = Some(ErrorInfo::from_api(&err));
                    return Some(Stop::NeedsPortalStep {
                        change_id: change.id,
                        continue_url: url.to_string(),
                    });
                }
                Some(self.fail(change, report, ErrorInfo::from_api(&err)))
            }
            Err(SendError::Plan(message)) => {
                Some(self.fail(change, report, ErrorInfo::internal(message)))
            }
            Err(SendError::Stale(message)) => {
                let mut error = ErrorInfo::internal(message);
                error.kind = Some("stale_read".into());
                Some(self.fail(change, report, error))
            }
        }
    }

    fn fail(&self, change: &Change, report: &mut ChangeReport, error: ErrorInfo) -> Stop {
        report.outcome = ChangeOutcome::Failed;
        report.error = Some(error.clone());
        Stop::Failed {
            change_id: change.id,
            error,
        }
    }

    async fn send(
        &self,
        change: &Change,
        round_changes: &[Change],
        key: &IdempotencyKey,
    ) -> Result<Sent, SendError> {
        let c = self.client;
        let request_at = |index: Option<i64>| request::derive(change, self.options, index);
        if let (
            Resource::CronJob {
                schedule,
                command,
                occurrence,
            },
            Action::Delete,
        ) = (&change.resource, change.action)
        {
            // Well-formed but for the index, which only a fresh listing can tell.
            request_at(Some(0))?;
            let slug = change.target.name.as_str();
            let remaining = cron_delete::remaining_after(
                self.desired,
                round_changes,
                slug,
                schedule,
                command,
                *occurrence,
            );
            let stale = self.cron_deleted_from(slug);
            let job = cron_delete::Job {
                slug,
                schedule,
                command,
                remaining,
                stale: stale.as_deref(),
            };
            let waits = self.visibility_waits;
            let (done, listing) =
                cron_delete::delete(c, &job, key, waits, |i| request_at(Some(i))).await?;
            return match done {
                CronDelete::Sent(deleted) => {
                    if deleted.fresh() {
                        self.remember_cron_listing(slug, listing);
                    }
                    Ok(Sent::CronDelete(deleted))
                }
                CronDelete::AlreadyGone => Ok(Sent::AlreadyAbsent),
                CronDelete::StaleListing { waited } => Err(SendError::Stale(format!(
                    "the cron jobs of site {slug} read before this delete (the last after waiting {}s) were still the list an earlier delete of this run was made from, as if that delete had not happened: a stale read, whose indexes may point at other jobs now; nothing was deleted",
                    waited.as_secs_f64()
                ))),
            };
        }
        match c.send(&request_at(None)?, key).await {
            Ok(resp) => Ok(Sent::Response(resp)),
            // Someone (or an earlier interrupted run without this key) removed the record.
            Err(e) if e.is_not_found() && in_effect::absent(change).is_in_effect() => {
                Ok(Sent::AlreadyAbsent)
            }
            Err(e) => Err(e.into()),
        }
    }
}

impl Executor<'_> {
    /// Asks the new nameservers of a switch to custom nameservers whether they serve the zone;
    /// `None` for every other change, or when the check is off.
    async fn readiness(&self, change: &Change) -> Option<ready::Readiness> {
        let dns = self.dns.filter(|d| !d.allow_unready)?;
        let hosts = ready::switch_hosts(change)?;
        let zone = self
            .desired
            .zones
            .iter()
            .find(|z| z.zone.as_str() == change.target.name)?;
        self.progress.note(&Note::CheckingReadiness {
            zone: zone.zone.clone(),
        });
        Some(ready::check(zone, hosts, dns).await)
    }

    /// The listing this run's last fresh cron delete on `slug` was made from.
    fn cron_deleted_from(&self, slug: &str) -> Option<Vec<payload::CronJob>> {
        let listings = self.cron_listings.lock().ok()?;
        listings.get(slug).cloned()
    }

    fn remember_cron_listing(&self, slug: &str, listing: Vec<payload::CronJob>) {
        if let Ok(mut listings) = self.cron_listings.lock() {
            listings.insert(slug.to_string(), listing);
        }
    }
}

/// HTTP attempts behind an error (1 when the error says nothing: it came from one response).
fn attempts_of(err: &ApiError) -> u32 {
    match err {
        ApiError::Status { attempts, .. } | ApiError::Transport { attempts, .. } => *attempts,
        ApiError::NoAnswer { .. }
        | ApiError::Cut { .. }
        | ApiError::TooLarge { .. }
        | ApiError::NotJson { .. }
        | ApiError::Redirect { .. }
        | ApiError::NoEndpoint { .. }
        | ApiError::Decode { .. }
        | ApiError::WaitExceeded { .. }
        | ApiError::InsecureUrl { .. }
        | ApiError::InvalidUrl { .. }
        | ApiError::UrlWithCredentials
        | ApiError::Pagination { .. }
        | ApiError::Client { .. } => 1,
    }
}

enum SendError {
    Api(ApiError),
    /// A read that has not caught up with this run's own writes (`CronDelete::StaleListing`).
    Stale(String),
    /// The plan itself is unusable (a hand-edited or corrupted plan file).
    Plan(String),
}

impl From<ApiError> for SendError {
    fn from(err: ApiError) -> Self {
        SendError::Api(err)
    }
}

impl From<RequestError> for SendError {
    fn from(err: RequestError) -> Self {
        SendError::Plan(err.to_string())
    }
}
