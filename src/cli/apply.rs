//! `dnscron apply [PATH]...` (plan, confirm, execute, verify) and `dnscron apply --plan FILE`
//! (execute a saved plan after the stale check). Flow, keys and exit codes: docs/apply.md.

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::cli::api_args::{ApiArgs, parse_duration};
use crate::cli::dns_args::DnsArgs;
use crate::cli::error::{CommandError, CommandResult, ErrorKind};
use crate::cli::logging::use_color_on_stdout;
use crate::cli::session;
use crate::cli::signals::Signals;
use crate::cli::write_stdout;
use crate::render::apply::{Bar, Lines};
use crate::render::plan::{self as render, text::plain_change_lines};
use dnscron_core::api::{ApiConfig, WriteClient};
use dnscron_core::apply::dns::DnsOptions;
use dnscron_core::apply::{self, ApplyOptions, ApplyReport, ApplyResult, Progress, review};
use dnscron_core::config::model::Desired;
use dnscron_core::plan::snapshot::LiveSnapshot;
use dnscron_core::plan::{Change, Plan, PlanError, Scope};
use dnscron_core::untrusted::Untrusted;

// `demo` (behind the emulator feature) and the exit-code tests read an apply's ending too.
#[cfg(any(feature = "emulator", test))]
pub use super::apply_end::ending;
use super::apply_end::finish;
use super::apply_reviewed::{self, Reviewed};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ApplyFormat {
    #[default]
    Text,
    Json,
    /// For a CI job summary: what was done, what was not, where to continue.
    Markdown,
}

#[derive(Debug, clap::Args)]
pub struct ApplyArgs {
    /// Files, or directories searched recursively for *.yaml and *.yml.
    #[arg(default_value = ".")]
    pub paths: Vec<PathBuf>,
    /// Execute this saved plan (from `plan --out`): its own desired state is planned again and
    /// runs only if every change is one of the plan's; never asks. Takes no PATH.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["paths", "reviewed"])]
    pub plan: Option<PathBuf>,
    /// Plan PATH now and apply only the changes this reviewed plan (from `plan --out`) holds;
    /// any other change refuses the whole apply, with nothing sent. Never asks. Repeatable:
    /// several reviewed plans (of one API URL) allow the changes of any of them.
    #[arg(long, value_name = "PLAN_FILE", action = clap::ArgAction::Append)]
    pub reviewed: Vec<PathBuf>,
    /// Don't ask for confirmation (required when stdin is not a terminal).
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Skip the per-zone safety limits against mass deletes and updates.
    #[arg(long)]
    pub allow_mass_changes: bool,
    /// Output of the outcome on stdout.
    #[arg(long, value_enum, default_value_t)]
    pub format: ApplyFormat,
    /// After writing records, ask the zone's nameservers until they serve the changes, for
    /// at most this long (e.g. 10s, 500ms); 0 turns the check off. A nameserver still behind
    /// is a warning, never a failure.
    #[arg(
        long,
        env = "DNSCRON_DNS_WAIT",
        value_name = "DURATION",
        default_value = "10s",
        value_parser = parse_duration
    )]
    pub dns_wait: Duration,
    /// Switch a domain to custom nameservers without first asking them whether they serve
    /// the zone as the files declare it.
    #[arg(
        long,
        env = "DNSCRON_ALLOW_UNREADY_NAMESERVERS",
        hide_env_values = true,
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    pub allow_unready_nameservers: bool,
    #[command(flatten)]
    pub dns: DnsArgs,
    /// `check`'s option, refused here (see [`refuse_resolver`]); taken as any text, and hidden,
    /// so that a user who carries it over from `check` learns why rather than "unexpected
    /// argument".
    #[arg(long, hide = true, value_name = "IP[:PORT]")]
    pub resolver: Option<String>,
    #[command(flatten)]
    pub api: ApiArgs,
    /// Apply only the zones, domains and sites declared (now or at REF) in files that differ
    /// from git revision REF, as `plan --changed-since` does; with --reviewed, added to the
    /// reviewed plan's own scope. Takes no --plan (a saved plan keeps its scope).
    #[arg(long, value_name = "REF", conflicts_with = "plan")]
    pub changed_since: Option<String>,
}

/// Apply never discovers nameservers: the post-apply check asks the ones the API's record
/// listing names, the switch check a switch's new ones; only their addresses are looked up.
/// A resolver for NS discovery would be silently unused, so it is an error.
fn refuse_resolver(args: &ApplyArgs) -> Result<(), CommandError> {
    match &args.resolver {
        None => Ok(()),
        Some(_) => Err(CommandError::user(
            "apply does not take --resolver: it discovers no nameservers (it asks the ones the API names for each zone, and a switch's new ones), so a resolver would go unused",
        )
        .with_hint("drop --resolver (it is `dnscron check`'s, for zones without custom nameservers); to reach a nameserver at a given address, pass --nameserver-address HOST=IP[:PORT]")),
    }
}

pub fn run(args: ApplyArgs) -> CommandResult {
    refuse_resolver(&args)?;
    let asks = args.plan.is_none() && args.reviewed.is_empty();
    if asks && !args.yes && !std::io::stdin().is_terminal() {
        return Err(CommandError::user(
            "apply asks for confirmation, but stdin is not a terminal",
        )
        .with_hint("review the plan with `dnscron plan`, then run `dnscron apply --yes`; or save it with `dnscron plan --out FILE` and run `dnscron apply --reviewed FILE PATH...`"));
    }
    let bar = std::io::stderr().is_terminal()
        && args.format == ApplyFormat::Text
        && tracing::level_enabled!(tracing::Level::INFO);
    let progress: Arc<dyn Progress> = if bar {
        Arc::new(Bar::new())
    } else {
        Arc::new(Lines::new())
    };
    let signals = Signals::new();
    let mut config = args.api.clone().into_config()?;
    let hook_progress = Arc::clone(&progress);
    let hook_signals = Arc::clone(&signals);
    config.on_wait = Some(Arc::new(move |event| {
        hook_signals.interrupt.pausing(event.wait);
        hook_progress.wait(event);
    }));
    let runtime = session::runtime()?;
    signals.listen(&runtime);
    let report = match (&args.plan, args.reviewed.as_slice()) {
        (Some(file), _) => {
            let reviewed = apply_reviewed::load(std::slice::from_ref(file), read_plan_file)?;
            runtime.block_on(review_bound(
                &args, reviewed, None, config, &*progress, &signals,
            ))?
        }
        (None, [_, ..]) => {
            let reviewed = apply_reviewed::load(&args.reviewed, read_plan_file)?;
            let files = Some(args.paths.as_slice());
            runtime.block_on(review_bound(
                &args, reviewed, files, config, &*progress, &signals,
            ))?
        }
        (None, []) => fresh(&args, config, &runtime, &*progress, &signals)?,
    };
    progress.close();
    finish(&args, &report, signals.received())
}

struct Ctx<'a> {
    client: WriteClient,
    progress: &'a dyn Progress,
    signals: &'a Arc<Signals>,
    /// `None` when both DNS checks are off.
    dns: Option<DnsOptions>,
}

impl Ctx<'_> {
    fn new<'a>(
        args: &ApplyArgs,
        config: ApiConfig,
        progress: &'a dyn Progress,
        signals: &'a Arc<Signals>,
    ) -> Result<Ctx<'a>, CommandError> {
        let off = args.dns_wait.is_zero() && args.allow_unready_nameservers;
        let dns = (!off).then(|| {
            let mut dns = DnsOptions::new(args.dns.address_book());
            dns.query = args.dns.query_options();
            dns.wait = args.dns_wait;
            dns.allow_unready = args.allow_unready_nameservers;
            dns
        });
        Ok(Ctx {
            client: WriteClient::new(config)?,
            progress,
            signals,
            dns,
        })
    }
}

/// Runs `plan`; `live` is the state it was made from (the zones' nameservers for the DNS
/// checks).
async fn execute(ctx: &Ctx<'_>, plan: &Plan, live: &LiveSnapshot) -> ApplyReport {
    // Until now a signal ended apply at once, nothing having been sent (planning, the
    // confirmation prompt). From here on it finishes the change in flight and stops.
    ctx.signals.writing();
    let mut opts = ApplyOptions::new(plan, ctx.progress);
    opts.interrupt = Some(&ctx.signals.interrupt);
    opts.dns = ctx.dns.clone().map(|d| d.with_nameservers_of(live));
    apply::apply(&ctx.client, plan, &opts).await
}

fn fresh(
    args: &ApplyArgs,
    config: ApiConfig,
    runtime: &tokio::runtime::Runtime,
    progress: &dyn Progress,
    signals: &Arc<Signals>,
) -> Result<ApplyReport, CommandError> {
    let desired = session::load_desired(&args.paths)?;
    let scope = changed_scope(args, &desired)?;
    let ctx = Ctx::new(args, config, progress, signals)?;
    let planned = runtime.block_on(session::planned(
        ctx.client.read(),
        &desired,
        args.allow_mass_changes,
        scope,
        true,
    ))?;
    let plan = planned.plan;
    if args.format == ApplyFormat::Text {
        write_stdout(&render::text(&plan, use_color_on_stdout()))?;
    }
    if plan.is_empty() || args.yes {
        return Ok(runtime.block_on(execute(&ctx, &plan, &planned.live)));
    }
    signals.asking();
    if !confirm(&plan)? {
        return Err(CommandError::user("apply cancelled; nothing was changed"));
    }
    signals.planning();
    runtime.block_on(as_confirmed(&ctx, args, &desired, plan))
}

/// The plan shown and confirmed is the contract (docs/apply.md, "The contract"): the account is
/// read again after the answer, which may have taken minutes, and the plan made then runs only
/// if it is the shown plan's changes from the values shown.
async fn as_confirmed(
    ctx: &Ctx<'_>,
    args: &ApplyArgs,
    desired: &dnscron_core::config::model::Desired,
    shown: Plan,
) -> Result<ApplyReport, CommandError> {
    let scope = shown.scope.clone();
    let again = session::planned(
        ctx.client.read(),
        desired,
        args.allow_mass_changes,
        scope,
        false,
    )
    .await?;
    let review = review::check_live(&shown, &again.plan, &again.live)?;
    if !review.is_reviewed() {
        return Err(unreviewed("the plan shown", &review.unreviewed, false));
    }
    let plan = review::bound(&shown, again.plan);
    if !review.holds() {
        return Ok(changed_since_review(&plan, review));
    }
    Ok(execute(ctx, &plan, &again.live)
        .await
        .with_already_live(&review.already_live))
}

/// The scope `--changed-since` names, if given.
fn changed_scope(args: &ApplyArgs, desired: &Desired) -> Result<Option<Scope>, CommandError> {
    args.changed_since
        .as_deref()
        .map(|since| super::changed::scope(&args.paths, desired, since))
        .transpose()
}

/// Asks on the terminal; only `yes` goes ahead.
fn confirm(plan: &Plan) -> Result<bool, CommandError> {
    let mut err = std::io::stderr().lock();
    write!(
        err,
        "\nApply these {} change(s) to the live account at {}? Only `yes` is accepted: ",
        plan.changes.len(),
        plan.api_url
    )?;
    err.flush()?;
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    Ok(line.trim() == "yes")
}

fn read_plan_file(file: &Path) -> Result<Plan, CommandError> {
    super::plan_file::read(file, None)
}

/// `apply --plan FILE` (`files`: None) plans the file's own desired state again;
/// `apply --reviewed FILE... PATH...` plans the (merged) files. Either way the plan made now is
/// bound to the reviewed one (the union of several: `apply_reviewed`).
async fn review_bound(
    args: &ApplyArgs,
    Reviewed {
        plan: mut reviewed,
        label: file,
    }: Reviewed,
    files: Option<&[PathBuf]>,
    config: ApiConfig,
    progress: &dyn Progress,
    signals: &Arc<Signals>,
) -> Result<ApplyReport, CommandError> {
    check_api_url(&reviewed, &config)?;
    // The limits are lifted only by what the reviewer saw ("mass changes allowed" in the
    // plan) or by the flag given now; a plan that records neither keeps them (docs/apply.md).
    reviewed.options.allow_mass_changes |= args.allow_mass_changes;
    let desired = files.map(session::load_desired).transpose()?;
    let ctx = Ctx::new(args, config, progress, signals)?;
    let (now, live) = match &desired {
        Some(desired) => {
            // The reviewed plan's scope, and what changed since the flag's revision: reading
            // only those is what makes an apply on merge cost the change, not the account.
            let scope = match (reviewed.scope.clone(), changed_scope(args, desired)?) {
                (Some(a), Some(b)) => Some(a.union(&b)),
                (a, b) => a.or(b),
            };
            let planned = session::planned(
                ctx.client.read(),
                desired,
                reviewed.options.allow_mass_changes,
                scope,
                false,
            )
            .await?;
            (planned.plan, planned.live)
        }
        None => {
            let live =
                dnscron_core::plan::snapshot::fetch(ctx.client.read(), &reviewed.desired).await?;
            let mut now = apply::saved::replan(&reviewed, &live).map_err(limits_held)?;
            // The saved desired state is the scope's already; the plan shown says so.
            now.scope = reviewed.scope.clone();
            (now, live)
        }
    };
    bound_apply(&ctx, args, &reviewed, &file, now, &live).await
}

/// A saved plan's re-plan refused by the safety limits: the file did not record them lifted
/// (`reviewed.options.allow_mass_changes` is or-ed with the flag before the re-plan).
fn limits_held(err: PlanError) -> CommandError {
    let held = matches!(err, PlanError::Unsafe(_));
    let err = CommandError::from(err);
    if held {
        err.with_hint("the plan file does not record --allow-mass-changes, so its reviewer did not see the limits lifted: make the plan again with the flag and have it reviewed")
    } else {
        err
    }
}

/// Runs `now` only if every change of it is one of `reviewed`'s (docs/apply.md,
/// "Review-bound apply"); reviewed changes `now` no longer needs are reported as in effect.
async fn bound_apply(
    ctx: &Ctx<'_>,
    args: &ApplyArgs,
    reviewed: &Plan,
    file: &str,
    now: Plan,
    live: &LiveSnapshot,
) -> Result<ApplyReport, CommandError> {
    let review = review::check_live(reviewed, &now, live)?;
    if !review.is_reviewed() {
        return Err(unreviewed(file, &review.unreviewed, args.plan.is_none()));
    }
    let plan = review::bound(reviewed, now);
    if !review.holds() {
        return Ok(changed_since_review(&plan, review));
    }
    if plan.is_empty() {
        let result = if reviewed.is_empty() {
            ApplyResult::NoChanges
        } else {
            ApplyResult::AlreadyApplied
        };
        return Ok(
            ApplyReport::new(&plan, result, 0, Vec::new()).with_already_live(&review.already_live)
        );
    }
    if args.format == ApplyFormat::Text {
        write_stdout(&render::text(&plan, use_color_on_stdout()))?;
    }
    Ok(execute(ctx, &plan, live)
        .await
        .with_already_live(&review.already_live))
}

/// The report of a reviewed plan whose preconditions no longer hold: nothing sent.
fn changed_since_review(plan: &Plan, review: review::Review) -> ApplyReport {
    let result = ApplyResult::ChangedSinceReview {
        changed: review.changed,
        not_made: review.not_made,
    };
    ApplyReport::new(plan, result, 0, Vec::new()).with_already_live(&review.already_live)
}

/// Every change nobody reviewed, one line each.
/// `files`: the plan made now is of files (`--reviewed`), which may hold other reviewed plans'.
fn unreviewed(file: &str, changes: &[Change], files: bool) -> CommandError {
    let lines: Vec<String> = changes
        .iter()
        .flat_map(|c| {
            plain_change_lines(c)
                .into_iter()
                .map(move |line| format!("\n  {}: {line}", Untrusted(&c.target.to_string())))
        })
        .collect();
    CommandError::new(
        ErrorKind::Stale,
        format!(
            "{} change(s) needed now are not among the reviewed changes of {}; nothing was sent:{}",
            changes.len(),
            file,
            lines.concat()
        ),
    )
    .with_hint(match files {
        true => "the live account or the files changed since the plan was reviewed: make a new plan (`dnscron plan --out FILE`), have it reviewed, and apply that; if the files also hold other reviewed changes not applied yet (pull requests merged since the last apply), pass their plans too: --reviewed is repeatable",
        false => "the live account or the files changed since the plan was reviewed: make a new plan (`dnscron plan --out FILE`), have it reviewed, and apply that",
    })
}

/// A plan made against one API must not be applied to another.
fn check_api_url(plan: &Plan, config: &ApiConfig) -> Result<(), CommandError> {
    let norm = |u: &str| u.trim().trim_end_matches('/').to_string();
    // A loaded plan always has an API URL (`plan_file::load` refuses an empty one).
    if norm(&plan.api_url) == norm(config.base_url.as_str()) {
        return Ok(());
    }
    Err(CommandError::user(format!(
        "the plan was made against {} but the API URL is {}",
        Untrusted(&plan.api_url),
        config.base_url
    ))
    .with_hint(
        "pass the same --api-url / DNSCRON_API_URL as when the plan was made, or make a new plan",
    ))
}
