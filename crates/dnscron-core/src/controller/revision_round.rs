//! A round that applies a new revision (docs/controller.md, "Rounds"): its difference from the
//! last converged revision through `apply::workflow` (bound to that revision under the default
//! policy, `Binding::Merged`; as the files say under heal), or on a first start the revision
//! taken as the base. A revision converges only when every change is in effect; a portal step
//! leaves it pending, a finding or the safety limits keep it out.

use sha2::{Digest, Sha256};

use crate::apply::workflow::{Binding, LeftAlone, Refusal, Workflow};
use crate::apply::{ApplyReport, ApplyResult, Moved};
use crate::plan::{PlanStamp, TargetRef};

use super::report::{KeptOut, KeptOutReason, Pending, RoundError, RoundOutcome, Work};
use super::revision::Revision;
use super::round::{Controller, Mode, Until, Waiting, now_rfc3339, push, refusal_outcome};
use super::state::Converged;
use super::targets;

impl Controller {
    /// A new revision under apply or heal.
    pub(super) async fn apply_revision(&mut self) -> (Work, RoundOutcome) {
        let Some(files) = &self.files else {
            return (Work::Nothing, RoundOutcome::Converged);
        };
        let desired = files.desired.clone();
        let revision = files.revision.clone();
        // What kept a revision out or made it wait is decided again by this try.
        self.status.kept_out = None;
        self.status.conflicts.clear();
        self.status.pending = None;
        let (binding, targets) = match (&self.mode, &self.converged) {
            (Mode::Observe(_), _) => return self.sweep_part().await,
            // Adopted (`Phase` chose it): someone named this revision to apply whole.
            (Mode::ApplyMerged(_) | Mode::Heal(_), None) => {
                (Binding::Nothing, targets::declared(&desired))
            }
            (Mode::ApplyMerged(_), Some(base)) => (
                Binding::Merged(base.desired.clone()),
                targets::changed(&base.desired, &desired),
            ),
            (Mode::Heal(_), Some(base)) => {
                (Binding::Nothing, targets::changed(&base.desired, &desired))
            }
        };
        let client = match &self.mode {
            Mode::ApplyMerged(client) | Mode::Heal(client) => client,
            Mode::Observe(_) => return self.sweep_part().await,
        };
        let stamp = stamp_of(self.converged.as_ref(), &revision.id);
        let mut workflow = Workflow::files(client, desired, binding);
        workflow.changed = Some(targets::scope("revision", &revision.id, targets.clone()));
        workflow.stamp = stamp;
        let executed = self.execute(workflow).await;
        self.after_revision(revision, targets, executed)
    }

    /// First start: the files' revision is the base the next one is applied from; nothing is
    /// written (the next sweep reports what differs as drift).
    pub(super) fn take_as_base(&mut self) -> (Work, RoundOutcome) {
        let outcome = match self.converge() {
            Ok(()) => RoundOutcome::Baseline,
            Err(error) => RoundOutcome::Failed(error),
        };
        (Work::Adopted, outcome)
    }

    /// The files' revision is the converged one from now on.
    fn converge(&mut self) -> Result<(), RoundError> {
        let Some(files) = &self.files else {
            return Ok(());
        };
        let converged = Converged {
            revision: files.revision.clone(),
            at: converged_at(),
            files: files.files.clone(),
            desired: files.desired.clone(),
        };
        self.status.converged = Some(converged.revision.clone());
        self.status.unapplied.clear();
        self.waiting = None;
        self.status.pending = None;
        self.status.kept_out = None;
        self.status.conflicts.clear();
        let saved = self.store.save(&converged);
        self.converged = Some(converged);
        saved.map_err(RoundError::from)
    }

    fn after_revision(
        &mut self,
        revision: Revision,
        targets: Vec<TargetRef>,
        executed: Result<(ApplyReport, LeftAlone), Refusal>,
    ) -> (Work, RoundOutcome) {
        let (report, left_alone) = match executed {
            Ok(done) => done,
            Err(refusal) => return self.refused(revision, targets, refusal),
        };
        for target in &targets {
            self.status.drift.remove(target);
        }
        for change in &left_alone.changes {
            push(&mut self.status.drift, &change.target, change.clone());
        }
        let outcome = match &report.result {
            // A change of the revision was not made: the value it changes moved since the
            // previous revision. The revision is not in effect; it is kept out, and looked at
            // again each interval (a portal fix or a heal may settle it), and the next
            // revision replaces it.
            ApplyResult::Converged | ApplyResult::NoChanges | ApplyResult::AlreadyApplied
                if !left_alone.moved.is_empty() =>
            {
                self.conflicted(revision, left_alone.moved.clone())
            }
            // Someone changed a written value again during the apply: the revision's writes
            // were made; what moved is drift, which the next sweep reads.
            ApplyResult::Converged
            | ApplyResult::NoChanges
            | ApplyResult::AlreadyApplied
            | ApplyResult::ChangedDuringApply { .. } => match self.converge() {
                Ok(()) if left_alone.changes.is_empty() => RoundOutcome::Converged,
                Ok(()) => RoundOutcome::Drift,
                Err(error) => RoundOutcome::Failed(error),
            },
            ApplyResult::NeedsPortalStep { continue_url, .. } => self.pending(
                revision,
                Pending::PortalStep {
                    continue_url: continue_url.clone(),
                },
            ),
            ApplyResult::NameserversNotReady { .. } => self.pending(revision, Pending::Nameservers),
            ApplyResult::Failed { .. }
            | ApplyResult::Differs { .. }
            | ApplyResult::VerifyFailed { .. }
            | ApplyResult::NotVisible { .. }
            | ApplyResult::Interrupted
            | ApplyResult::CronIndexMoved { .. }
            | ApplyResult::ChangedSinceReview { .. } => {
                self.retry_later(revision.id);
                RoundOutcome::Failed(RoundError::NotConverged(Box::new(report.clone())))
            }
        };
        let work = Work::Applied {
            targets,
            report: Some(Box::new(report)),
            left_alone,
        };
        (work, outcome)
    }

    fn conflicted(&mut self, revision: Revision, moved: Vec<Moved>) -> RoundOutcome {
        self.waiting = Some(Waiting {
            id: revision.id.clone(),
            until: Until::Due(tokio::time::Instant::now() + self.settings.interval),
            failures: 0,
        });
        self.status.conflicts = moved;
        self.status.kept_out = Some(KeptOut {
            revision,
            reason: KeptOutReason::Conflicted,
        });
        RoundOutcome::Conflicted
    }

    fn pending(&mut self, revision: Revision, pending: Pending) -> RoundOutcome {
        // Tried again at the next interval (or on SIGHUP), never in a loop: a portal step
        // takes a person, new nameservers take their operator.
        self.waiting = Some(Waiting {
            id: revision.id,
            until: Until::Due(tokio::time::Instant::now() + self.settings.interval),
            failures: 0,
        });
        self.status.pending = Some(pending.clone());
        RoundOutcome::Pending(pending)
    }

    /// A revision the apply refused: held or past the limits (kept out until the next
    /// revision), or a failure to read (tried again after the backoff).
    fn refused(
        &mut self,
        revision: Revision,
        targets: Vec<TargetRef>,
        refusal: Refusal,
    ) -> (Work, RoundOutcome) {
        let work = Work::Applied {
            targets,
            report: None,
            left_alone: LeftAlone::default(),
        };
        let (kept_out, outcome) = refusal_outcome(refusal);
        match kept_out {
            Some(reason) => {
                self.waiting = Some(Waiting {
                    id: revision.id.clone(),
                    until: Until::Asked,
                    failures: 0,
                });
                self.status.kept_out = Some(KeptOut { revision, reason });
            }
            None => self.retry_later(revision.id),
        }
        (work, outcome)
    }
}

/// The plan id of the apply from revision `from` to `to`: the same for every try of the same
/// step, so a write retried after a crash or a restart sends the key it sent before (the
/// server answers it from its record instead of writing twice).
fn stamp_of(from: Option<&Converged>, to: &str) -> PlanStamp {
    let mut hash = Sha256::new();
    hash.update(b"dnscron controller\0");
    // The converged revision with the moment it converged: a folder's digest repeats when its
    // files return to earlier content (A, B, A, B), and a key derived from the two ids alone
    // would then be one the API already answered, so the write would be replayed, not made.
    // The moment is kept in the state file, so a restart sends the same keys again.
    if let Some(from) = from {
        hash.update(from.revision.id.as_bytes());
        hash.update([0]);
        hash.update(from.at.as_bytes());
    }
    hash.update([0]);
    hash.update(to.as_bytes());
    let digest = hash.finalize();
    let id: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
    PlanStamp {
        id,
        created_at: now_rfc3339(),
    }
}

/// When a revision converged, to the nanosecond: part of the next revision's keys (see
/// [`stamp_of`]), so two converges of the same revision never share them.
fn converged_at() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Nanos, true)
}
