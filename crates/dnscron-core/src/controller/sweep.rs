//! A round that reads the next part of the drift sweep (docs/controller.md, "Rounds"): as many
//! targets as the API budget has room for beside the reserve kept for a revision, the account's
//! listings when a sweep begins (their domain listing shared by every part); under heal the
//! part's drift is reverted within the safety limits.

use std::collections::BTreeSet;

use crate::apply::workflow::Binding;
use crate::apply::workflow::Workflow;
use crate::config::model::Desired;
use crate::plan::{
    AccountCheck, Change, DiffOptions, Finding, MakeOptions, TargetKind, TargetRef,
    account_findings, diff, make_plan,
};

use super::report::{RoundError, RoundOutcome, Work};
use super::round::{
    COST_PER_TARGET, Controller, Mode, REVISION_RESERVE, in_effect, push, refusal_outcome,
};
use super::targets;

/// Where the drift sweep is, apart from what a round reports: the targets in the order this
/// sweep reads them and how many of them it has read. A new revision does not start it over
/// ([`Cursor::retarget`]), so a repository that merges more often than a sweep takes still has
/// every target read.
#[derive(Debug, Default)]
pub(super) struct Cursor {
    order: Vec<TargetRef>,
    done: usize,
}

impl Cursor {
    /// The targets of a new revision: those this sweep has read (and the revision still
    /// declares) stay read; the others, new ones among them, are read next, in order.
    pub(super) fn retarget(&mut self, declared: Vec<TargetRef>) {
        let wanted: BTreeSet<&TargetRef> = declared.iter().collect();
        let read: Vec<TargetRef> = self.order[..self.done]
            .iter()
            .filter(|t| wanted.contains(t))
            .cloned()
            .collect();
        let seen: BTreeSet<&TargetRef> = read.iter().collect();
        let rest: Vec<TargetRef> = declared
            .iter()
            .filter(|t| !seen.contains(t))
            .cloned()
            .collect();
        self.done = read.len();
        self.order = read;
        self.order.extend(rest);
    }

    pub(super) fn declared(&self) -> &[TargetRef] {
        &self.order
    }

    pub(super) fn done(&self) -> usize {
        self.done
    }

    pub(super) fn total(&self) -> usize {
        self.order.len()
    }

    fn left(&self) -> &[TargetRef] {
        &self.order[self.done.min(self.order.len())..]
    }

    fn finished(&self) -> bool {
        self.done >= self.order.len()
    }
}

impl Controller {
    /// The next part of the drift sweep: as many targets as the API budget has room for (all
    /// of them without a budget), and the account's listings when a sweep begins.
    pub(super) async fn sweep_part(&mut self) -> (Work, RoundOutcome) {
        let Some(files) = &self.files else {
            return (Work::Nothing, RoundOutcome::Converged);
        };
        let desired = files.desired.clone();
        let revision = files.revision.id.clone();
        if self.cursor.finished() {
            self.cursor.done = 0;
        }
        if self.cursor.done == 0
            && let Err(error) = self.read_account(&desired).await
        {
            return (Work::Nothing, RoundOutcome::Failed(error));
        }
        let part = self.next_part();
        let scope = targets::scope("sweep", &revision, part.clone());
        let heal = match &self.mode {
            Mode::Heal(client) if !self.status.suspended => Some(client),
            Mode::Heal(_) | Mode::Observe(_) | Mode::ApplyMerged(_) => None,
        };
        let (read, healed, refusal) = match heal {
            Some(client) => {
                let mut workflow = Workflow::files(client, desired.clone(), Binding::Nothing);
                workflow.changed = Some(scope.clone());
                match self.execute(workflow).await {
                    Ok((report, _)) if in_effect(&report.result) => {
                        (None, Some(Box::new(report)), None)
                    }
                    Ok((report, _)) => {
                        let error = RoundError::NotConverged(Box::new(report));
                        return (Work::Nothing, RoundOutcome::Failed(error));
                    }
                    Err(refusal) => match self.read_part(&desired, &scope).await {
                        Ok(read) => (Some(read), None, Some(refusal)),
                        Err(error) => return (Work::Nothing, RoundOutcome::Failed(error)),
                    },
                }
            }
            None => match self.read_part(&desired, &scope).await {
                Ok(read) => (Some(read), None, None),
                Err(error) => return (Work::Nothing, RoundOutcome::Failed(error)),
            },
        };
        let read = read.unwrap_or(PartRead {
            changes: Vec::new(),
            findings: Vec::new(),
            base_changes: None,
        });
        self.record_part(&part, read);
        self.cursor.done += part.len();
        if self.cursor.finished() {
            self.status.sweeps += 1;
        }
        self.status.sweep_done = self.cursor.done;
        self.status.sweep_total = self.cursor.total();
        let work = Work::Swept {
            targets: part,
            healed,
        };
        let outcome = match refusal {
            Some(refusal) => refusal_outcome(refusal).1,
            None if self.status.drift.is_empty() && self.status.unapplied.is_empty() => {
                RoundOutcome::Converged
            }
            None => RoundOutcome::Drift,
        };
        (work, outcome)
    }

    async fn read_account(&mut self, desired: &Desired) -> Result<(), RoundError> {
        let check = AccountCheck {
            folders: vec![self.settings.dir.display().to_string()],
        };
        let today = Some(chrono::Utc::now().date_naive());
        let findings = account_findings(self.mode.read(), desired, &check, today)
            .await
            .map_err(|e| RoundError::Account(Box::new(e)))?;
        self.status.account_findings = findings.findings;
        self.sweep_domains = Some(findings.domains);
        Ok(())
    }

    /// The targets of the next part: at least one, at most what the budget has room for
    /// beside the reserve for a new revision.
    fn next_part(&self) -> Vec<TargetRef> {
        let left = self.cursor.left();
        let fits = match self.mode.read().budget_room() {
            None => left.len(),
            Some(room) => (room.saturating_sub(REVISION_RESERVE) / COST_PER_TARGET) as usize,
        };
        left[..fits.clamp(1, left.len().max(1)).min(left.len())].to_vec()
    }

    /// Whether the budget has room for a worthwhile next part of a sweep under way: half the
    /// share beyond the reserve (or all that is left to read), so the sweep goes in a few big
    /// parts rather than many one-target ones, each of which costs its round; else the loop
    /// waits for room rather than spend the reserve.
    pub(super) fn room_for_part(&self) -> bool {
        let read = self.mode.read();
        let (Some(room), Some(budget)) = (read.budget_room(), read.budget()) else {
            return true;
        };
        let left = self.cursor.left().len();
        let left_cost = u32::try_from(left)
            .unwrap_or(u32::MAX)
            .saturating_mul(COST_PER_TARGET);
        let half_share = budget.per_minute.saturating_sub(REVISION_RESERVE) / 2;
        let wanted = half_share.min(left_cost).max(COST_PER_TARGET);
        room >= REVISION_RESERVE + wanted
    }

    /// A sweep is under way (begun, not finished).
    pub(super) fn sweeping(&self) -> bool {
        self.cursor.done > 0 && !self.cursor.finished()
    }

    /// What a part of the sweep found, replacing what earlier sweeps knew of its targets. A
    /// change of the revision not yet converged (suspended, pending, kept out) is unapplied,
    /// not drift; anything else that differs stays drift, even on a target it changes.
    fn record_part(&mut self, part: &[TargetRef], read: PartRead) {
        let PartRead {
            changes,
            findings,
            base_changes,
        } = read;
        for target in part {
            self.status.drift.remove(target);
            self.status.unapplied.remove(target);
            self.status.findings.remove(target);
        }
        for change in changes {
            let drifted = match &base_changes {
                // The live value is not what the converged revision declares: drift.
                Some(base) => base.iter().any(|b| {
                    b.target == change.target && b.resource.same_subject(&change.resource)
                }),
                None => true,
            };
            let map = match drifted {
                true => &mut self.status.drift,
                false => &mut self.status.unapplied,
            };
            let target = change.target.clone();
            push(map, &target, change);
        }
        for finding in findings {
            let target = finding.target.clone();
            self.status
                .findings
                .entry(target)
                .or_default()
                .push(finding);
        }
    }

    /// A part's differences and findings, read only, with the sweep's domain listing; while
    /// a revision is not converged, also what the converged one would change in the same live
    /// state (what differs from it is drift; the rest is the new revision's).
    async fn read_part(
        &self,
        desired: &Desired,
        scope: &crate::plan::Scope,
    ) -> Result<PartRead, RoundError> {
        let options = MakeOptions {
            // Drift is reported whatever its size; only writes keep to the limits.
            allow_mass_changes: true,
            scope: Some(scope.clone()),
            domains: self.sweep_domains.clone(),
            ..MakeOptions::default()
        };
        let planned = make_plan(self.mode.read(), desired, &options)
            .await
            .map_err(|e| RoundError::Read(Box::new(e)))?;
        let base_changes = match (&self.converged, &self.files) {
            (Some(base), Some(files)) if base.revision != files.revision && self.mode.writes() => {
                let base = of_targets(&base.desired, &scope.targets);
                let opts = DiffOptions {
                    allow_mass_changes: true,
                    ..crate::apply::diff_options_for(&planned.plan)
                };
                let made = diff(&base, &planned.live, &opts)
                    .map_err(|e| RoundError::Read(Box::new(e.into())))?;
                Some(made.changes)
            }
            _ => None,
        };
        Ok(PartRead {
            changes: planned.plan.changes,
            findings: planned.plan.findings,
            base_changes,
        })
    }
}

/// What a part of the sweep read.
struct PartRead {
    changes: Vec<Change>,
    findings: Vec<Finding>,
    /// What the converged revision would change in the same live state, while a newer one is
    /// not converged.
    base_changes: Option<Vec<Change>>,
}

/// `desired` narrowed to `targets` (the live state a part read holds only them).
fn of_targets(desired: &Desired, targets: &[TargetRef]) -> Desired {
    let has =
        |kind: TargetKind, name: &str| targets.iter().any(|t| t.kind == kind && t.name == name);
    let mut out = desired.clone();
    out.zones.retain(|z| {
        has(TargetKind::Zone, z.zone.as_str()) || has(TargetKind::Domain, z.zone.as_str())
    });
    out.sites.retain(|s| has(TargetKind::Site, &s.slug));
    out
}
