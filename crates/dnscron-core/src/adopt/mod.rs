//! `adopt`: the reverse of apply. A plan's changes are drift; for each drifted record a file
//! declares, the live value is written into the file that declares it, in place: the item is
//! rewritten by the writer `fmt` and `import` use (`config::fmt::text`), every other byte of the
//! file stays as it was. Data in (the files as read, the plan, the live state it was made from),
//! edits out; the binary writes them.
//!
//! The unit is a record set of one name and type in one zone (an RRset: one TTL, one decision).
//! Per change of the plan:
//! - an update (declared, live differs): the declared item gets the live content and TTL;
//! - a create (declared, deleted live): the declaration is removed, its comments kept;
//! - a delete (live, declared nowhere): with `undeclared`, an item is added to the zone's file
//!   where `fmt` would put it; without, it is left.
//!
//! What is left, and why, is reported (`Left`): a record from a record set (adopting it into
//! one zone would split the set; the set is the users' to edit), cron jobs and nameservers (not
//! adopted: their drift is reported), a live value the loader would refuse, a file layout that
//! can't be edited in place. Two proofs hold every write, as `fmt`'s meaning check holds its
//! own: the edited files must load (else the RRset is left, with the loader's first problem),
//! and the plan of the edited files against the same live state must show no change for what
//! was adopted (else it is left).
//!
//! What is written is also judged by the zones' safety limits, from the files' side
//! (`limits`): an adoption that removes or rewrites more of a zone's declarations than its
//! limits allow, or leaves it none, is reported in `over_limits` for the caller to refuse.

mod edit;
mod group;
mod limits;
mod verify;

use std::path::PathBuf;

use serde::Serialize;

use crate::config::fmt::Reason;
use crate::dns::RecordType;
use crate::plan::snapshot::LiveSnapshot;
use crate::plan::{OverLimits, Plan, Resource, TargetRef, Value};

/// What to adopt besides the drift of declared records.
#[derive(Clone, Copy, Debug, Default)]
pub struct AdoptOptions {
    /// Also add the live records no file declares (that the plan would delete).
    pub undeclared: bool,
}

/// What `adopt` makes of a plan: the files to write, what they adopt, and what is left.
#[derive(Clone, Debug, Default)]
pub struct Adoption {
    /// Only files that change; `original` is the text they were read with.
    pub writes: Vec<FileWrite>,
    pub adopted: Vec<Adopted>,
    pub left: Vec<Left>,
    /// The zones whose declarations `adopted` removes or rewrites past their safety limits,
    /// counted against the records each declares (a removal as a delete): what a wrong token
    /// or a zone wiped live looks like from the files. Empty when within them.
    pub over_limits: Vec<OverLimits>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileWrite {
    pub path: PathBuf,
    pub original: String,
    pub text: String,
}

/// A record adopted into a file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Adopted {
    pub zone: String,
    pub name: String,
    #[serde(rename = "type")]
    pub rtype: RecordType,
    #[serde(flatten)]
    pub action: AdoptAction,
    /// The file written.
    pub file: PathBuf,
    /// The line of the declaration as read (an added record: none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum AdoptAction {
    /// The declaration now holds the live value.
    Updated { declared: Value, live: Value },
    /// Deleted live: the declaration is removed.
    Removed { declared: Value },
    /// Live, declared nowhere: added (`undeclared`).
    Added { live: Value },
}

/// A change of the plan `adopt` does not write, and why.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Left {
    pub target: TargetRef,
    pub resource: Resource,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub live: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declared: Option<Value>,
    /// `file:line:col` of the declaration, when a file declares it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declared_at: Option<String>,
    pub reason: LeftReason,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LeftReason {
    /// The record comes from a record set that `zones` zones use: copying the live value into
    /// one zone would split the set.
    RecordSet { set: String, zones: usize },
    /// Live, declared nowhere, and undeclared records were not asked for.
    Undeclared,
    /// The live value is one the files can't hold (the loader's words).
    LiveValueRefused { problem: String },
    /// Another record of its name and type could not be adopted: an RRset is adopted whole.
    WithItsRrset { problem: String },
    /// The file is written in a form `adopt` does not edit in place.
    Layout {
        file: PathBuf,
        line: usize,
        col: usize,
        why: LayoutWhy,
    },
    /// The files, edited, would not load: the loader's first problem.
    WouldNotLoad { problem: String },
    /// The files, edited, would still plan a change for it (a defect of `adopt`: the file is
    /// kept rather than written to no effect).
    StillDiffers,
    /// Cron jobs are not adopted.
    CronJob,
    /// Registrar nameservers are not adopted.
    Nameservers,
}

/// Why a file's layout is not edited in place.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LayoutWhy {
    /// Anchors and aliases: an edit would part an alias from what it copies.
    Anchor,
    /// An explicit tag (`!!str`).
    Tag,
    /// A document written as one flow mapping (`{zone: …, records: […]}`).
    FlowDocument,
    /// A `records: [ … ]` list that holds items (`fmt` writes it one item a line).
    FlowList,
    /// An item `fmt` reads no record in where YAML put it.
    ItemLayout,
    /// The YAML reader refused the file with its comments kept.
    Syntax(String),
}

impl LayoutWhy {
    fn of(reason: Reason) -> LayoutWhy {
        match reason {
            Reason::Anchor => LayoutWhy::Anchor,
            Reason::Tag => LayoutWhy::Tag,
            Reason::FlowDocument => LayoutWhy::FlowDocument,
            Reason::ItemLayout | Reason::MeaningWouldChange => LayoutWhy::ItemLayout,
            Reason::Syntax(message) => LayoutWhy::Syntax(message),
        }
    }
}

/// The adoption of `plan`'s drift into `files`, the texts the plan's desired state was loaded
/// from; `live` is the state the plan was made from.
pub fn adopt(
    files: &[(PathBuf, String)],
    plan: &Plan,
    live: &LiveSnapshot,
    opts: &AdoptOptions,
) -> Adoption {
    let (groups, mut left) = group::groups(plan, opts);
    let mut edits = edit::Editor::new(files);
    let (planned, layout_left) = edits.plan_groups(groups, &plan.desired);
    left.extend(layout_left);
    let outcome = verify::settle(files, &edits, planned, plan, live);
    left.extend(outcome.left);
    let over_limits = limits::over_limits(plan, &outcome.adopted);
    Adoption {
        writes: outcome.writes,
        adopted: outcome.adopted,
        left,
        over_limits,
    }
}

#[cfg(test)]
mod tests;
