//! What findings are named and measured by: the stable codes ([`FindingCode`], each with its
//! [`Severity`] and [`Basis`]) and the [`Figure`]s a finding measures. Both the files (`accept:`
//! entries, `config`) and the planner's findings (`plan`) speak this vocabulary, so it sits below
//! both: a stage only looks down.

mod code;
mod figure;

pub use code::{Basis, FindingCode, Severity};
pub(crate) use figure::FigureKind;
pub use figure::{DmarcPolicy, Figure};
