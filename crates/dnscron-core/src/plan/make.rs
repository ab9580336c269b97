//! The whole planning stage for commands: read the live state the files name, then diff.
//! `plan`, `apply`, `demo` and the benchmarks all go through here, so what apply executes is
//! made exactly like what plan showed.

use std::sync::Arc;

use crate::config::model::{Desired, NameserverMode};
use dnscron_api::{ApiError, ReadClient, openapi, payload};

use super::accept::{Looked, judge_acceptances};
use super::account::{self, AccountCheck, Listings};
use super::diff::diff_lent;
use super::health::DomainsRead;
use super::health::mail::{MailDns, mail_findings_of};
use super::progress::ReadProgressHook;
use super::removal;
use super::scope::Scope;
use super::snapshot::{self, LiveSnapshot, SnapshotError};
use super::{DiffOptions, Finding, Plan, PlanError, PlanStamp, Resource, health, held};

#[derive(Clone, Debug)]
pub struct MakeOptions {
    pub allow_mass_changes: bool,
    /// The plan's id and time: the CLI passes random + now (or the test-only overrides).
    pub stamp: PlanStamp,
    /// Plan only these targets (the files changed since a commit); the plan records it.
    pub scope: Option<Scope>,
    /// Read each declared domain's registration and judge the mail records for the health
    /// findings. Apply turns it off: those findings change nothing it sends, and the reviewed
    /// plan's are kept (`apply::review`); of the mail findings it keeps only those that hold a
    /// change (`plan::held`), which refuse the apply.
    pub health: bool,
    /// The resolver SPF includes outside the account are read from; `None`: not followed (the
    /// mail findings say which). Used only with `health`.
    pub mail_dns: Option<MailDns>,
    /// Told of every read of a target as it is queued and as it comes in.
    pub progress: Option<ReadProgressHook>,
    /// `Some`: the files are every file of these folders, so the plan reads the account's zone,
    /// domain and site listings and reports what no file declares (`plan::account`). Not
    /// read in a plan with a `scope` or without `health`; a plan with a `scope` reads only
    /// whether the account still has what the change stops declaring (`plan::removal`).
    pub account: Option<AccountCheck>,
    /// The account's domain listing (`GET /domains`, every page), already read: used instead
    /// of reading it again. A controller's drift sweep reads it once per sweep
    /// (`account_findings`) for all its parts.
    pub domains: Option<Arc<Vec<payload::Domain>>>,
}

impl Default for MakeOptions {
    fn default() -> Self {
        MakeOptions {
            allow_mass_changes: false,
            stamp: PlanStamp::fresh(),
            scope: None,
            health: true,
            mail_dns: None,
            progress: None,
            account: None,
            domains: None,
        }
    }
}

/// A plan and the live state it was made from.
#[derive(Clone, Debug)]
pub struct Planned {
    pub plan: Plan,
    pub live: LiveSnapshot,
}

#[derive(Debug, thiserror::Error)]
pub enum MakePlanError {
    #[error(transparent)]
    Snapshot(#[from] SnapshotError),
    #[error(transparent)]
    Plan(#[from] PlanError),
}

pub async fn make_plan(
    client: &ReadClient,
    desired: &Desired,
    opts: &MakeOptions,
) -> Result<Planned, MakePlanError> {
    let scoped = match &opts.scope {
        Some(scope) => scope.restricted(desired),
        None => desired.clone(),
    };
    let mut planned = plan_lent(client, &scoped, desired, opts).await?;
    planned.plan.desired = scoped;
    Ok(planned)
}

/// [`make_plan`] moving `desired` into the plan instead of copying it: `dnscron plan` has no
/// other use for it, and a copy of 100,000 declared records is a tenth of its peak memory.
pub async fn make_plan_owned(
    client: &ReadClient,
    desired: Desired,
    opts: &MakeOptions,
) -> Result<Planned, MakePlanError> {
    Ok(match &opts.scope {
        Some(scope) => {
            let scoped = scope.restricted(&desired);
            let mut planned = plan_lent(client, &scoped, &desired, opts).await?;
            planned.plan.desired = scoped;
            planned
        }
        None => {
            let mut planned = plan_lent(client, &desired, &desired, opts).await?;
            planned.plan.desired = desired;
            planned
        }
    })
}

/// The plan with an empty `desired`, for the caller to fill. `desired` is what the plan reads
/// and diffs (the scope's part of the files); `files` is every declaration the files make, which
/// the findings judged from the files are judged over (`plan::scope`).
async fn plan_lent(
    client: &ReadClient,
    desired: &Desired,
    files: &Desired,
    opts: &MakeOptions,
) -> Result<Planned, MakePlanError> {
    let no_zones = Desired::default();
    let health_of = if opts.health { desired } else { &no_zones };
    let account_check = opts
        .account
        .as_ref()
        .filter(|_| opts.health && opts.scope.is_none());
    let domains_read = match (account_check, &opts.scope) {
        (Some(_), _) => DomainsRead::All,
        (None, Some(_)) => DomainsRead::Scoped,
        (None, None) => DomainsRead::Declared,
    };
    let domains = async {
        match &opts.domains {
            Some(listed) => Ok(listed.as_ref().clone()),
            None => health::list(client, health_of, domains_read).await,
        }
    };
    let (live, listed, zones) = tokio::join!(
        snapshot::fetch_listing_sites(
            client,
            desired,
            account_check.is_some(),
            opts.progress.as_ref()
        ),
        domains,
        list_zones(client, account_check.is_some()),
    );
    let (live, sites) = live?;
    let (listed, zones) = (listed?, zones?);
    let registrations =
        health::fetch(client, health_of, &live, &listed, opts.progress.as_ref()).await?;
    let diff_opts = DiffOptions {
        api_url: client.base_url().to_string(),
        allow_mass_changes: opts.allow_mass_changes,
        stamp: opts.stamp.clone(),
        ..DiffOptions::default()
    };
    let mut plan = diff_lent(desired, &live, &diff_opts)?;
    let now = chrono::DateTime::parse_from_rfc3339(&plan.created_at)
        .ok()
        .map(|now| now.with_timezone(&chrono::Utc));
    if let Some(now) = now {
        plan.findings
            .extend(health::findings(health_of, &registrations, now));
    }
    if let (Some(check), Some(zones), Some(sites)) = (account_check, zones, sites) {
        let listings = Listings::of(&zones, &listed, &sites);
        plan.findings
            .extend(account::findings(desired, &listings, check));
    }
    // A plan of what changed says of a removed declaration what the full plan will say.
    if let (Some(scope), Some(check), true) = (&opts.scope, &opts.account, opts.health)
        && !scope.removed.is_empty()
    {
        plan.findings
            .extend(removal::findings(client, files, scope, check).await?);
    }
    let looked = if opts.health {
        mail_findings_of(
            files,
            &desired.zones,
            opts.mail_dns.as_ref(),
            &mut plan.findings,
        )
        .await;
        Looked::Everything {
            dns: opts.mail_dns.is_some(),
        }
    } else {
        held::add_findings_of_files(&mut plan, desired, files).await;
        Looked::Partly
    };
    // Every finding this plan holds is in by now: acceptances are judged first, so that only
    // the unaccepted ones hold a change.
    judge_acceptances(
        &mut plan.findings,
        desired,
        now.map(|now| now.date_naive()),
        looked,
    );
    held::hold(&mut plan);
    plan.scope = opts.scope.clone();
    // The hosted mode's wire value is server-specific; /openapi.json is read only when a plan
    // actually switches a domain to hosted, so plans without one cost no extra request. The
    // value only shapes requests (`plan::request`), never the diff, so no re-diff is needed.
    if switches_to_hosted(&plan, desired) {
        plan.options.hosted_mode_wire_value = hosted_mode_value(client).await;
    }
    Ok(Planned { plan, live })
}

/// The account as a whole and nothing else (`plan::account`): the zone, domain and site
/// listings against `desired`, every file of the folders, without reading a zone. A controller
/// reads the zones a part at a time across rounds and the listings once per sweep. The
/// acceptances of the files are judged on `today`.
pub(crate) async fn account_findings(
    client: &ReadClient,
    desired: &Desired,
    check: &AccountCheck,
    today: Option<chrono::NaiveDate>,
) -> Result<AccountRead, SnapshotError> {
    let listing = |what: &str| {
        let what = what.to_string();
        move |source| SnapshotError::Listing { what, source }
    };
    let (zones, domains, sites) = tokio::join!(
        list_zones(client, true),
        client.list_domains(),
        client.list_sites(),
    );
    let zones = zones?.unwrap_or_default();
    let domains = domains.map_err(listing("the domain list (GET /domains)"))?;
    let sites = sites.map_err(listing("the site list (GET /sites)"))?;
    let listings = Listings::of(&zones, &domains, &sites);
    let mut findings = account::findings(desired, &listings, check);
    judge_acceptances(&mut findings, desired, today, Looked::Partly);
    Ok(AccountRead {
        findings,
        domains: Arc::new(domains),
    })
}

/// What [`account_findings`] read: its findings, and the domain listing a plan can be given
/// instead of reading it again (`MakeOptions::domains`).
#[derive(Clone, Debug)]
pub(crate) struct AccountRead {
    pub findings: Vec<Finding>,
    pub domains: Arc<Vec<payload::Domain>>,
}

/// `GET /dns`, every page, when the account as a whole is read.
async fn list_zones(
    client: &ReadClient,
    read: bool,
) -> Result<Option<Vec<payload::Zone>>, SnapshotError> {
    if !read {
        return Ok(None);
    }
    client
        .list_zones()
        .await
        .map(Some)
        .map_err(|source| SnapshotError::Listing {
            what: "the zone list (GET /dns)".into(),
            source,
        })
}

fn switches_to_hosted(plan: &Plan, desired: &Desired) -> bool {
    plan.changes.iter().any(|change| {
        matches!(change.resource, Resource::Nameservers)
            && desired.zones.iter().any(|z| {
                z.zone.as_str() == change.target.name
                    && matches!(
                        z.nameservers.as_ref().map(|n| &n.mode),
                        Some(NameserverMode::Hosted)
                    )
            })
    })
}

/// The server's hosted-mode value, or the documented default with a warning.
pub(crate) async fn hosted_mode_value(client: &ReadClient) -> String {
    match client.openapi().await {
        Ok(doc) => openapi::hosted_mode_value(&doc).unwrap_or_else(|| {
            tracing::warn!(
                "/openapi.json has no nameserver `mode` enum; sending `{}` for hosted mode",
                openapi::DEFAULT_HOSTED_MODE
            );
            openapi::DEFAULT_HOSTED_MODE.to_string()
        }),
        Err(err) => {
            warn_openapi_unreadable(&err);
            openapi::DEFAULT_HOSTED_MODE.to_string()
        }
    }
}

fn warn_openapi_unreadable(err: &ApiError) {
    tracing::warn!(
        "could not read /openapi.json ({err}); sending `{}` for hosted nameserver mode",
        openapi::DEFAULT_HOSTED_MODE
    );
}
