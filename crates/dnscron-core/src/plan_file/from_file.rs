//! The plan file → the planner's model, checked: a value that deserialized is not yet a plan
//! apply may run. Every change must have the data its request needs, and the desired state
//! goes through the YAML loader's rules again (derived values such as canonical contents are
//! recomputed, never trusted from the file).

use std::path::Path;
use std::sync::Arc;

use super::change::{Action, Change, Request, Resource, Status, Value};
use super::desired::{
    CronJobSpec, Desired, IgnoreRule, Location, NameserverMode, NameserversSpec, RecordSpec,
    RegistrarExpectations, SafetyLimits, SiteSpec, ZoneSpec,
};
use super::document::{
    Finding, PlanFileV3, PlanOptions, Scope, Severity, Summary, Target, TargetKind, TargetRef,
};
use super::{FORMAT_VERSION, checks};
use crate::config::{self, Diagnostics, model as cfg};
use crate::plan::model as plan;
use crate::plan::request::{self, RequestError};

/// Why a plan file's content is not a plan; `plan_file::load` words each for the user.
#[derive(Debug, thiserror::Error)]
pub enum FromFileError {
    #[error("format_version {found} is not {FORMAT_VERSION}")]
    UnsupportedFormat { found: u32 },
    #[error(transparent)]
    Request(#[from] RequestError),
    #[error("the `desired` section breaks the rules of the files: {0}")]
    Desired(Diagnostics),
    /// The `request` written for readers is not the one the change derives (an edited file).
    /// `index` is the change's position in `changes`.
    #[error(
        "change {id}'s request `{field}` differs from the request its change derives; apply sends only derived requests"
    )]
    RequestDiffers {
        id: usize,
        index: usize,
        field: &'static str,
    },
    #[error("`plan_id` {0}; it must be 1 to {max} ASCII letters, digits, `-` or `_`", max = checks::PLAN_ID_MAX)]
    PlanId(checks::PlanIdProblem),
    #[error("`api_url` {0}; it must be the http(s) URL of the API the plan was made against")]
    ApiUrl(checks::ApiUrlProblem),
    #[error("`scope` {0}; a plan writes the revision it was given and the commit it named")]
    Scope(checks::ScopeProblem),
    #[error("the file is larger than {limit} bytes, the most a plan file may have")]
    TooLarge { limit: usize },
}

impl TryFrom<PlanFileV3> for plan::Plan {
    type Error = FromFileError;

    fn try_from(file: PlanFileV3) -> Result<Self, Self::Error> {
        let PlanFileV3 {
            format_version,
            plan_id,
            created_at,
            api_url,
            options:
                PlanOptions {
                    hosted_mode_wire_value,
                    allow_mass_changes,
                },
            targets,
            summary,
            changes,
            findings,
            desired,
            scope,
        } = file;
        if format_version != FORMAT_VERSION {
            return Err(FromFileError::UnsupportedFormat {
                found: format_version,
            });
        }
        checks::plan_id(&plan_id).map_err(FromFileError::PlanId)?;
        checks::api_url(&api_url).map_err(FromFileError::ApiUrl)?;
        if let Some(s) = &scope {
            checks::scope(&s.since, &s.commit).map_err(FromFileError::Scope)?;
        }
        let options = plan::PlanOptions {
            hosted_mode_wire_value,
            allow_mass_changes,
        };
        let (changes, requests): (Vec<plan::Change>, Vec<Request>) =
            changes.into_iter().map(change).unzip();
        for (index, (c, written)) in changes.iter().zip(&requests).enumerate() {
            check_request(index, c, written, &options)?;
        }
        let desired = config::revalidate(&desired_of(desired)).map_err(FromFileError::Desired)?;
        Ok(plan::Plan {
            format_version,
            plan_id,
            created_at,
            api_url,
            options,
            targets: targets.into_iter().map(target).collect(),
            summary: summary_of(summary),
            changes,
            findings: findings.into_iter().map(finding).collect(),
            desired,
            scope: scope.map(scope_of),
        })
    }
}

/// The request a file shows must be the one apply derives (it is there for readers and tools;
/// what is sent is always derived again).
fn check_request(
    index: usize,
    c: &plan::Change,
    written: &Request,
    options: &plan::PlanOptions,
) -> Result<(), FromFileError> {
    let derived = super::to_file::request_of(&request::preview(c, options)?);
    let field = if written.method != derived.method {
        "method"
    } else if written.path != derived.path {
        "path"
    } else if written.body != derived.body {
        "body"
    } else {
        return Ok(());
    };
    Err(FromFileError::RequestDiffers {
        id: c.id,
        index,
        field,
    })
}

fn scope_of(s: Scope) -> crate::plan::Scope {
    let Scope {
        since,
        commit,
        targets,
    } = s;
    crate::plan::Scope {
        since,
        commit,
        targets: targets.into_iter().map(target_ref).collect(),
    }
}

fn target_kind(kind: TargetKind) -> plan::TargetKind {
    match kind {
        TargetKind::Zone => plan::TargetKind::Zone,
        TargetKind::Domain => plan::TargetKind::Domain,
        TargetKind::Site => plan::TargetKind::Site,
    }
}

fn target(t: Target) -> plan::Target {
    let Target {
        kind,
        name,
        fingerprint,
        declared_at,
    } = t;
    plan::Target {
        kind: target_kind(kind),
        name,
        fingerprint,
        declared_at,
    }
}

fn target_ref(t: TargetRef) -> plan::TargetRef {
    let TargetRef { kind, name } = t;
    plan::TargetRef {
        kind: target_kind(kind),
        name,
    }
}

fn summary_of(s: Summary) -> plan::Summary {
    let Summary {
        create,
        update,
        delete,
        portal_step,
        blocked,
    } = s;
    plan::Summary {
        create,
        update,
        delete,
        portal_step,
        blocked,
    }
}

fn change(c: Change) -> (plan::Change, Request) {
    let Change {
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
        request,
        from_set,
    } = c;
    let change = plan::Change {
        id,
        action: match action {
            Action::Create => plan::Action::Create,
            Action::Update => plan::Action::Update,
            Action::Delete => plan::Action::Delete,
        },
        target: target_ref(target),
        resource: match resource {
            Resource::Record {
                name,
                rtype,
                record_id,
            } => plan::Resource::Record {
                name,
                rtype,
                record_id,
            },
            Resource::CronJob {
                schedule,
                command,
                occurrence,
            } => plan::Resource::CronJob {
                schedule,
                command,
                occurrence,
            },
            Resource::Nameservers => plan::Resource::Nameservers,
        },
        before: before.map(value),
        after: after.map(value),
        status: match status {
            Status::Ready => plan::Status::Ready,
            Status::NeedsPortalStep => plan::Status::NeedsPortalStep,
            Status::Blocked => plan::Status::Blocked,
        },
        reason,
        declared_at,
        next_runs,
        from_set,
    };
    (change, request)
}

fn value(v: Value) -> plan::Value {
    match v {
        Value::Record { ttl, content } => plan::Value::Record { ttl, content },
        Value::CronJob { schedule, command } => plan::Value::CronJob { schedule, command },
        Value::Nameservers { mode, nameservers } => plan::Value::Nameservers { mode, nameservers },
    }
}

fn finding(f: Finding) -> plan::Finding {
    let Finding {
        target,
        severity,
        message,
        change_ids,
        declared_at,
    } = f;
    plan::Finding {
        target: target_ref(target),
        severity: match severity {
            Severity::Info => plan::Severity::Info,
            Severity::NeedsPortalStep => plan::Severity::NeedsPortalStep,
            Severity::Blocked => plan::Severity::Blocked,
            Severity::Warning => plan::Severity::Warning,
            Severity::Error => plan::Severity::Error,
        },
        message,
        change_ids,
        declared_at,
    }
}

fn location(l: Location) -> cfg::Location {
    let Location { file, line, col } = l;
    cfg::Location {
        file: Arc::<Path>::from(file),
        line,
        col,
    }
}

/// Unchecked: `config::revalidate` checks the result before anyone uses it.
fn desired_of(d: Desired) -> cfg::Desired {
    let Desired { zones, sites } = d;
    cfg::Desired {
        zones: zones.into_iter().map(zone).collect(),
        sites: sites.into_iter().map(site).collect(),
    }
}

fn zone(z: ZoneSpec) -> cfg::ZoneSpec {
    let ZoneSpec {
        zone,
        location: at,
        nameservers,
        prune,
        ignore,
        records,
        safety,
        registrar,
    } = z;
    cfg::ZoneSpec {
        zone,
        location: location(at),
        nameservers: nameservers.map(nameservers_of),
        prune,
        ignore: ignore.into_iter().map(ignore_rule).collect(),
        records: records.into_iter().map(record).collect(),
        safety: safety_of(safety),
        registrar: registrar.map(registrar_of),
    }
}

fn nameservers_of(n: NameserversSpec) -> cfg::NameserversSpec {
    let NameserversSpec { mode, location: at } = n;
    cfg::NameserversSpec {
        mode: match mode {
            NameserverMode::Hosted => cfg::NameserverMode::Hosted,
            NameserverMode::Custom(hosts) => cfg::NameserverMode::Custom(hosts),
        },
        location: location(at),
    }
}

fn ignore_rule(r: IgnoreRule) -> cfg::IgnoreRule {
    let IgnoreRule {
        name,
        rtype,
        content,
        location: at,
    } = r;
    cfg::IgnoreRule {
        name,
        rtype,
        content,
        location: location(at),
    }
}

fn record(r: RecordSpec) -> cfg::RecordSpec {
    let RecordSpec {
        name,
        rtype,
        ttl,
        content,
        canonical,
        location: at,
        set,
    } = r;
    cfg::RecordSpec {
        name,
        rtype,
        ttl,
        content,
        canonical,
        location: location(at),
        set: set.map(Into::into),
    }
}

fn safety_of(s: SafetyLimits) -> cfg::SafetyLimits {
    let SafetyLimits {
        max_deletes,
        delete_floor,
        max_delete_percent,
        update_floor,
        max_update_percent,
        allow_empty,
    } = s;
    cfg::SafetyLimits {
        max_deletes,
        delete_floor,
        max_delete_percent,
        update_floor,
        max_update_percent,
        allow_empty,
    }
}

fn registrar_of(r: RegistrarExpectations) -> cfg::RegistrarExpectations {
    let RegistrarExpectations {
        auto_renew,
        lock,
        whois_privacy,
        expiry_warning_days,
        location: at,
    } = r;
    cfg::RegistrarExpectations {
        auto_renew,
        lock,
        whois_privacy,
        expiry_warning_days,
        location: location(at),
    }
}

fn site(s: SiteSpec) -> cfg::SiteSpec {
    let SiteSpec {
        slug,
        location: at,
        cron,
    } = s;
    cfg::SiteSpec {
        slug,
        location: location(at),
        cron: cron.map(|jobs| jobs.into_iter().map(cron_job).collect()),
    }
}

fn cron_job(j: CronJobSpec) -> cfg::CronJobSpec {
    let CronJobSpec {
        schedule,
        command,
        location: at,
    } = j;
    cfg::CronJobSpec {
        schedule,
        command,
        location: location(at),
    }
}
