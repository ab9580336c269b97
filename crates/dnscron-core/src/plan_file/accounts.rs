//! The plan file of several accounts (format_version 6): one review covers them all, and each
//! account's plan is a whole format-5 plan under the account's name and API URL, so an apply
//! binds each account to its own plan and never sends one account's reviewed change to another.
//! A plan of one account keeps format 5, so files written before accounts existed still load.

use std::collections::HashSet;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::document::PlanFileV5;
use super::{FORMAT_VERSION, FromFileError, PlanFileError, from_document, shape_error};
use crate::plan::Plan;

/// The format of a plan file of several accounts.
pub const ACCOUNTS_FORMAT_VERSION: u32 = 6;

/// The file: every account planned, in the order of `dnscron-accounts.yaml`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename = "AccountsPlan")]
pub(crate) struct AccountsPlanFileV6 {
    /// The plan file's format: 6 for several accounts. A reader refuses any other value.
    #[schemars(extend("const" = ACCOUNTS_FORMAT_VERSION))]
    pub(crate) format_version: u32,
    /// Each account planned, with its plan; no name twice (a reader refuses a file that names
    /// one twice, which JSON Schema can't say).
    #[schemars(length(min = 1))]
    pub(crate) accounts: Vec<AccountPlanDocument>,
}

/// One account's part of the file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub(crate) struct AccountPlanDocument {
    /// The account's name in `dnscron-accounts.yaml`.
    pub(crate) name: String,
    /// The account's API base URL in `dnscron-accounts.yaml`; its plan's `api_url` is the same.
    pub(crate) api_url: String,
    /// The account's plan: a whole format-5 plan.
    pub(crate) plan: PlanFileV5,
}

/// One account's plan, read from or written to the file.
#[derive(Clone, Debug)]
pub struct AccountPlan {
    pub name: String,
    pub api_url: String,
    pub plan: Plan,
}

/// What a plan file holds: one plan (format 5) or the plans of several accounts (format 6).
#[derive(Clone, Debug)]
pub enum PlanFile {
    One(Box<Plan>),
    Accounts(Vec<AccountPlan>),
}

/// Why a file of several accounts' plans is refused beyond each plan's own checks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AccountsProblem {
    #[error("lists no account")]
    Empty,
    #[error("names account `{0}` twice")]
    Twice(String),
    #[error("account `{name}` is listed at `{listed}` but its plan was made against `{planned}`")]
    UrlDiffers {
        name: String,
        listed: String,
        planned: String,
    },
}

/// Pretty JSON with a final newline, as [`super::to_json`] writes one plan.
pub fn accounts_to_json(plans: &[AccountPlan]) -> Result<String, PlanFileError> {
    let accounts = plans
        .iter()
        .map(|a| {
            Ok(AccountPlanDocument {
                name: a.name.clone(),
                api_url: a.api_url.clone(),
                plan: PlanFileV5::of(&a.plan).map_err(|e| PlanFileError::BadPlanFile {
                    message: format!("cannot write the plan of account `{}`: {e}", a.name),
                })?,
            })
        })
        .collect::<Result<Vec<_>, PlanFileError>>()?;
    let file = AccountsPlanFileV6 {
        format_version: ACCOUNTS_FORMAT_VERSION,
        accounts,
    };
    let mut text = serde_json::to_string_pretty(&file).map_err(|e| PlanFileError::BadPlanFile {
        message: format!("cannot serialize the plan: {e}"),
    })?;
    text.push('\n');
    Ok(dnscron_api::untrusted::json_text(text))
}

/// Reads a plan file of either format; `origin` names it in messages.
pub fn load_any(text: &str, origin: &str) -> Result<PlanFile, PlanFileError> {
    super::check_size(text.len() as u64, origin)?;
    match super::format_version(text, origin)? {
        FORMAT_VERSION => super::load(text, origin).map(|p| PlanFile::One(Box::new(p))),
        ACCOUNTS_FORMAT_VERSION => load_accounts(text, origin).map(PlanFile::Accounts),
        other => Err(PlanFileError::UnsupportedFormat {
            found: other.to_string(),
        }),
    }
}

fn load_accounts(text: &str, origin: &str) -> Result<Vec<AccountPlan>, PlanFileError> {
    let file: AccountsPlanFileV6 =
        serde_json::from_str(text).map_err(|e| shape_error(origin, &e))?;
    let refused = |problem| PlanFileError::PlanFile {
        at: origin.to_string(),
        problem: FromFileError::Accounts(problem),
    };
    if file.accounts.is_empty() {
        return Err(refused(AccountsProblem::Empty));
    }
    let mut seen = HashSet::new();
    let mut plans = Vec::with_capacity(file.accounts.len());
    for doc in file.accounts {
        if !seen.insert(doc.name.clone()) {
            return Err(refused(AccountsProblem::Twice(doc.name)));
        }
        if doc.plan.api_url != doc.api_url {
            return Err(refused(AccountsProblem::UrlDiffers {
                name: doc.name,
                listed: doc.api_url,
                planned: doc.plan.api_url,
            }));
        }
        // Positions inside one account's plan are not the file's: name the account instead.
        let within = format!("{origin} (account `{}`)", doc.name);
        let plan = from_document(doc.plan, None, &within)?;
        plans.push(AccountPlan {
            name: doc.name,
            api_url: doc.api_url,
            plan,
        });
    }
    Ok(plans)
}
