//! The apply measurements: requests of apply on workload W, an apply of 300 changes under the
//! real 120/min limit, and an apply of 500 changes under injected faults.
//!
//! The apply executor (`src/apply/`) is not on this branch yet: until it is merged these
//! figures are reported as not measured.

use crate::api::{StatsSnapshot, WriteClient};
use crate::config::model::Desired;
use crate::emulator::BackgroundEmulator;
use crate::plan::Plan;

use super::BenchError;
use super::efficiency::Routes;
use super::report::{Figure, Section, Verdict};
use super::workload::Account;

const NOT_MERGED: &str = "the apply executor (src/apply/, branch `apply`) was not merged into \
                          the bench branch when this ran";

fn not_measured(section: &mut Section, name: &str) {
    section.push(Figure::new(name, "—", "", "", Verdict::NotMeasured));
}

#[allow(clippy::too_many_arguments)]
pub async fn efficiency(
    section: &mut Section,
    _emu: &BackgroundEmulator,
    _client: &WriteClient,
    _plan: &Plan,
    _desired: &Desired,
    account: &Account,
    _plan_stats: &StatsSnapshot,
    _plan_server: &Routes,
) -> Result<(), BenchError> {
    let min: u64 = super::efficiency::apply_minimum(account).values().sum();
    section.push(Figure::new(
        "apply: all requests",
        "—",
        "1.00 × minimum",
        min.to_string(),
        Verdict::NotMeasured,
    ));
    section.note(format!("apply: not measured: {NOT_MERGED}."));
    Ok(())
}

pub async fn real_limit(section: &mut Section) -> Result<(), BenchError> {
    not_measured(section, "apply of 300 changes at 120/min: wall / bound");
    section.note(format!("real-limit apply: not measured: {NOT_MERGED}."));
    Ok(())
}

pub async fn faults(_smoke: bool) -> Result<Section, BenchError> {
    let mut section = Section::new(
        "5. Apply under faults",
        "Apply of 500 changes with 10 % of writes answered 502 and 5 % committed then dropped.",
    );
    not_measured(&mut section, "apply of 500 changes under faults");
    section.note(format!("not measured: {NOT_MERGED}."));
    Ok(section)
}
