//! The plan files an apply of several accounts is bound to: each account's part of the saved
//! plan (`--plan`) or of every reviewed file (`--reviewed`, repeatable), each part checked
//! against the accounts file (the account still declared, at the URL it was planned at) before
//! any request.

use std::path::{Path, PathBuf};

use crate::cli::apply::ApplyArgs;
use crate::cli::error::CommandError;
use dnscron_core::apply::workflow::ReviewedPlan;
use dnscron_core::config::accounts::{Account, Accounts};
use dnscron_core::plan::Plan;
use dnscron_core::plan_file::{AccountPlan, PlanFile};

/// What binds one account's apply.
pub(crate) enum Bind {
    /// The account's part of each reviewed file that holds one, with that file (the name a
    /// refusal gives); none: then any change is not reviewed.
    Reviewed(Vec<ReviewedPlan>, Vec<PathBuf>),
    /// The account's part of the saved plan (`--plan`), and that file.
    Saved(Box<Plan>, Vec<PathBuf>),
    /// `--yes`, or a person confirms every account's plan at once.
    Fresh { confirm: bool },
}

impl Bind {
    /// The plan files this account is bound to, as a refusal names them.
    pub(crate) fn files(&self) -> &[PathBuf] {
        match self {
            Bind::Reviewed(_, files) | Bind::Saved(_, files) => files,
            Bind::Fresh { .. } => &[],
        }
    }
}

/// Each account's binding: its part of the saved plan, or of every reviewed file (each
/// approved past the safety limits when `--allow-mass-changes-in` names that file), or none.
pub(crate) fn bindings(
    args: &ApplyArgs,
    accounts: &Accounts,
    chosen: &[&Account],
) -> Result<Vec<Bind>, CommandError> {
    let part = |plans: &[AccountPlan], name: &str| {
        plans
            .iter()
            .find(|p| p.name == name)
            .map(|p| p.plan.clone())
    };
    if let Some(file) = &args.plan {
        let saved = read_accounts(file, accounts)?;
        return chosen
            .iter()
            .map(|account| match part(&saved, &account.name) {
                Some(plan) => Ok(Bind::Saved(Box::new(plan), vec![file.clone()])),
                None => Err(CommandError::user(format!(
                    "the saved plan holds no plan of account `{}`",
                    account.name
                ))
                .with_hint("choose the accounts it holds with --account NAME")),
            })
            .collect();
    }
    if args.reviewed.is_empty() {
        let confirm = !args.yes;
        return Ok(chosen.iter().map(|_| Bind::Fresh { confirm }).collect());
    }
    let reviewed = args
        .reviewed
        .iter()
        .map(|file| read_accounts(file, accounts).map(|plans| (file, plans)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(chosen
        .iter()
        .map(|account| {
            let (plans, files) = reviewed
                .iter()
                .filter_map(|(file, plans)| {
                    let plan = part(plans, &account.name)?;
                    let mass_changes_approved = args.allow_mass_changes_in.contains(file);
                    let reviewed = ReviewedPlan {
                        plan,
                        mass_changes_approved,
                    };
                    Some((reviewed, (*file).clone()))
                })
                .unzip();
            Bind::Reviewed(plans, files)
        })
        .collect())
}

/// The reviewed or saved file of several accounts, each part matching an account of the
/// repository by name and API URL.
fn read_accounts(file: &Path, accounts: &Accounts) -> Result<Vec<AccountPlan>, CommandError> {
    let plans = match crate::cli::plan_file::read_any(file)? {
        PlanFile::Accounts(plans) => plans,
        PlanFile::One(_) => {
            return Err(CommandError::user(format!(
                "{} is the plan of one account, and {} holds several",
                file.display(),
                accounts.file.display()
            ))
            .with_hint(
                "plan the repository (`dnscron plan --out FILE PATH`) and apply that file",
            ));
        }
    };
    for part in &plans {
        match accounts.accounts.iter().find(|a| a.name == part.name) {
            None => {
                return Err(CommandError::user(format!(
                    "{} holds a plan of account `{}`, which {} does not declare",
                    file.display(),
                    part.name,
                    accounts.file.display()
                ))
                .with_hint(
                    "make a new plan of the repository as it is, have it reviewed, and apply that",
                ));
            }
            Some(a) if !same_url(&a.api_url, &part.api_url) => {
                return Err(CommandError::user(format!(
                    "{} planned account `{}` at {}, and {} now puts it at {}: nothing was sent",
                    file.display(),
                    part.name,
                    dnscron_api::untrusted::escape(&part.api_url),
                    accounts.file.display(),
                    a.api_url
                ))
                .with_hint(
                    "make a new plan of the repository as it is, have it reviewed, and apply that",
                ));
            }
            Some(_) => {}
        }
    }
    Ok(plans)
}

/// The accounts file's URL as the client normalizes it (what a plan records) against a plan's.
fn same_url(declared: &str, planned: &str) -> bool {
    dnscron_api::parse_base_url(declared).is_ok_and(|u| u.as_str() == planned)
}
