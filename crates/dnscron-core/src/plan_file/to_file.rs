//! The planner's model → the plan file. Every model struct is taken apart field by field (no
//! `..`), so a field added to the model fails to compile here until someone decides whether
//! the file carries it (and bumps `FORMAT_VERSION` if so).

use std::path::PathBuf;

use super::FORMAT_VERSION;
use super::change::{Action, Change, Request, Resource, Status, Value};
use super::desired::{
    CronJobSpec, Desired, IgnoreRule, Location, NameserverMode, NameserversSpec, RecordSpec,
    RegistrarExpectations, SafetyLimits, SiteSpec, ZoneSpec,
};
use super::document::{
    Finding, PlanFileV3, PlanOptions, Scope, Severity, Summary, Target, TargetKind, TargetRef,
};
use crate::api::WriteRequest;
use crate::config::model as config;
use crate::plan::model as plan;
use crate::plan::request::{self, RequestError};

impl TryFrom<&plan::Plan> for PlanFileV3 {
    type Error = RequestError;

    /// Fails only for a change that names no request (which no planner makes).
    fn try_from(p: &plan::Plan) -> Result<Self, RequestError> {
        let plan::Plan {
            // The file states its own format: this type writes its version whatever the model holds.
            format_version: _,
            plan_id,
            created_at,
            api_url,
            options:
                options @ plan::PlanOptions {
                    hosted_mode_wire_value,
                    allow_mass_changes,
                },
            targets,
            summary,
            changes,
            findings,
            desired,
            scope,
        } = p;
        let changes = changes
            .iter()
            .map(|c| change(c, options))
            .collect::<Result<_, _>>()?;
        Ok(PlanFileV3 {
            format_version: FORMAT_VERSION,
            plan_id: plan_id.clone(),
            created_at: created_at.clone(),
            api_url: api_url.clone(),
            options: PlanOptions {
                hosted_mode_wire_value: hosted_mode_wire_value.clone(),
                allow_mass_changes: *allow_mass_changes,
            },
            targets: targets.iter().map(target).collect(),
            summary: summary_of(*summary),
            changes,
            findings: findings.iter().map(finding).collect(),
            desired: desired_of(desired),
            scope: scope.as_ref().map(scope_of),
        })
    }
}

fn scope_of(s: &crate::plan::Scope) -> Scope {
    let crate::plan::Scope {
        since,
        commit,
        targets,
    } = s;
    Scope {
        since: since.clone(),
        commit: commit.clone(),
        targets: targets.iter().map(target_ref).collect(),
    }
}

fn target_kind(kind: plan::TargetKind) -> TargetKind {
    match kind {
        plan::TargetKind::Zone => TargetKind::Zone,
        plan::TargetKind::Domain => TargetKind::Domain,
        plan::TargetKind::Site => TargetKind::Site,
    }
}

fn target(t: &plan::Target) -> Target {
    let plan::Target {
        kind,
        name,
        fingerprint,
        declared_at,
    } = t;
    Target {
        kind: target_kind(*kind),
        name: name.clone(),
        fingerprint: fingerprint.clone(),
        declared_at: declared_at.clone(),
    }
}

fn target_ref(t: &plan::TargetRef) -> TargetRef {
    let plan::TargetRef { kind, name } = t;
    TargetRef {
        kind: target_kind(*kind),
        name: name.clone(),
    }
}

fn summary_of(s: plan::Summary) -> Summary {
    let plan::Summary {
        create,
        update,
        delete,
        portal_step,
        blocked,
    } = s;
    Summary {
        create,
        update,
        delete,
        portal_step,
        blocked,
    }
}

fn change(c: &plan::Change, options: &plan::PlanOptions) -> Result<Change, RequestError> {
    let plan::Change {
        id,
        action,
        target,
        resource,
        before,
        after,
        status,
        reason,
        declared_at,
        next_runs,
        from_set,
    } = c;
    Ok(Change {
        id: *id,
        action: match action {
            plan::Action::Create => Action::Create,
            plan::Action::Update => Action::Update,
            plan::Action::Delete => Action::Delete,
        },
        target: target_ref(target),
        resource: resource_of(resource),
        before: before.as_ref().map(value),
        after: after.as_ref().map(value),
        status: match status {
            plan::Status::Ready => Status::Ready,
            plan::Status::NeedsPortalStep => Status::NeedsPortalStep,
            plan::Status::Blocked => Status::Blocked,
        },
        reason: reason.clone(),
        declared_at: declared_at.clone(),
        next_runs: next_runs.clone(),
        request: request_of(&request::preview(c, options)?),
        from_set: from_set.clone(),
    })
}

/// The request as the file shows it; `from_file::request_of` makes the same from a loaded
/// change, for the comparison.
pub(super) fn request_of(r: &WriteRequest) -> Request {
    Request {
        method: r.method.to_string(),
        path: r.path(),
        body: r.body.clone(),
    }
}

fn resource_of(r: &plan::Resource) -> Resource {
    match r {
        plan::Resource::Record {
            name,
            rtype,
            record_id,
        } => Resource::Record {
            name: name.clone(),
            rtype: *rtype,
            record_id: *record_id,
        },
        plan::Resource::CronJob {
            schedule,
            command,
            occurrence,
        } => Resource::CronJob {
            schedule: schedule.clone(),
            command: command.clone(),
            occurrence: *occurrence,
        },
        plan::Resource::Nameservers => Resource::Nameservers,
    }
}

fn value(v: &plan::Value) -> Value {
    match v {
        plan::Value::Record { ttl, content } => Value::Record {
            ttl: *ttl,
            content: content.clone(),
        },
        plan::Value::CronJob { schedule, command } => Value::CronJob {
            schedule: schedule.clone(),
            command: command.clone(),
        },
        plan::Value::Nameservers { mode, nameservers } => Value::Nameservers {
            mode: mode.clone(),
            nameservers: nameservers.clone(),
        },
    }
}

fn finding(f: &plan::Finding) -> Finding {
    let plan::Finding {
        target,
        severity,
        message,
        change_ids,
        declared_at,
    } = f;
    Finding {
        target: target_ref(target),
        severity: match severity {
            plan::Severity::Info => Severity::Info,
            plan::Severity::NeedsPortalStep => Severity::NeedsPortalStep,
            plan::Severity::Blocked => Severity::Blocked,
            plan::Severity::Warning => Severity::Warning,
            plan::Severity::Error => Severity::Error,
        },
        message: message.clone(),
        change_ids: change_ids.clone(),
        declared_at: declared_at.clone(),
    }
}

fn location(l: &config::Location) -> Location {
    let config::Location { file, line, col } = l;
    Location {
        file: PathBuf::from(&**file),
        line: *line,
        col: *col,
    }
}

fn desired_of(d: &config::Desired) -> Desired {
    let config::Desired { zones, sites } = d;
    Desired {
        zones: zones.iter().map(zone).collect(),
        sites: sites.iter().map(site).collect(),
    }
}

fn zone(z: &config::ZoneSpec) -> ZoneSpec {
    let config::ZoneSpec {
        zone,
        location: at,
        nameservers,
        prune,
        ignore,
        records,
        safety,
        registrar,
    } = z;
    ZoneSpec {
        zone: zone.clone(),
        location: location(at),
        nameservers: nameservers.as_ref().map(nameservers_of),
        prune: *prune,
        ignore: ignore.iter().map(ignore_rule).collect(),
        records: records.iter().map(record).collect(),
        safety: safety_of(safety),
        registrar: registrar.as_ref().map(registrar_of),
    }
}

fn nameservers_of(n: &config::NameserversSpec) -> NameserversSpec {
    let config::NameserversSpec { mode, location: at } = n;
    NameserversSpec {
        mode: match mode {
            config::NameserverMode::Hosted => NameserverMode::Hosted,
            config::NameserverMode::Custom(hosts) => NameserverMode::Custom(hosts.clone()),
        },
        location: location(at),
    }
}

fn ignore_rule(r: &config::IgnoreRule) -> IgnoreRule {
    let config::IgnoreRule {
        name,
        rtype,
        content,
        location: at,
    } = r;
    IgnoreRule {
        name: name.clone(),
        rtype: *rtype,
        content: content.clone(),
        location: location(at),
    }
}

fn record(r: &config::RecordSpec) -> RecordSpec {
    let config::RecordSpec {
        name,
        rtype,
        ttl,
        content,
        canonical,
        location: at,
        set,
    } = r;
    RecordSpec {
        name: name.clone(),
        rtype: *rtype,
        ttl: *ttl,
        content: content.clone(),
        canonical: canonical.clone(),
        location: location(at),
        set: set.as_deref().map(str::to_string),
    }
}

fn safety_of(s: &config::SafetyLimits) -> SafetyLimits {
    let config::SafetyLimits {
        max_deletes,
        delete_floor,
        max_delete_percent,
        update_floor,
        max_update_percent,
        allow_empty,
    } = *s;
    SafetyLimits {
        max_deletes,
        delete_floor,
        max_delete_percent,
        update_floor,
        max_update_percent,
        allow_empty,
    }
}

fn registrar_of(r: &config::RegistrarExpectations) -> RegistrarExpectations {
    let config::RegistrarExpectations {
        auto_renew,
        lock,
        whois_privacy,
        expiry_warning_days,
        location: at,
    } = r;
    RegistrarExpectations {
        auto_renew: *auto_renew,
        lock: *lock,
        whois_privacy: *whois_privacy,
        expiry_warning_days: *expiry_warning_days,
        location: location(at),
    }
}

fn site(s: &config::SiteSpec) -> SiteSpec {
    let config::SiteSpec {
        slug,
        location: at,
        cron,
    } = s;
    SiteSpec {
        slug: slug.clone(),
        location: location(at),
        cron: cron
            .as_ref()
            .map(|jobs| jobs.iter().map(cron_job).collect()),
    }
}

fn cron_job(j: &config::CronJobSpec) -> CronJobSpec {
    let config::CronJobSpec {
        schedule,
        command,
        location: at,
    } = j;
    CronJobSpec {
        schedule: schedule.clone(),
        command: command.clone(),
        location: location(at),
    }
}
