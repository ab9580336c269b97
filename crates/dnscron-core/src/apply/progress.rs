//! What apply tells its caller while it runs. The `dnscron` binary shows it (a bar on a
//! terminal, lines on stderr otherwise); library callers may show nothing ([`Silent`]).

use std::time::Duration;

use crate::dns::ZoneName;
use crate::plan::Change;
use dnscron_api::WaitEvent;

use super::outcome::ChangeReport;

/// Receives apply's events. Implementations must be cheap: they run between requests.
pub trait Progress: Send + Sync {
    /// `total` changes are about to run in `round`.
    fn start(&self, round: u32, total: usize);
    /// Change number `position` (1-based) of the round starts.
    fn begin(&self, position: usize, change: &Change);
    fn finish(&self, report: &ChangeReport);
    /// A rate-limit wait is about to start (from the client's wait hook).
    fn wait(&self, event: &WaitEvent);
    /// A step worth showing (verification, repairs, DNS checks).
    fn note(&self, note: &Note);
    /// The apply is over; clear any bar.
    fn close(&self);
}

/// A step of apply between changes.
#[derive(Clone, Debug, PartialEq)]
pub enum Note {
    /// The changed targets are read again to verify the result.
    Verifying,
    /// `count` changes the server accepted (fresh 2xx) are not visible yet; the targets are
    /// read again after `wait`.
    NotVisibleYet { count: usize, wait: Duration },
    /// Verification found `count` changes not in effect; they run again as `round`.
    Repairing { count: usize, round: u32 },
    /// The zones' nameservers are asked for the changed records, for up to `wait`.
    CheckingDns { wait: Duration },
    /// The new nameservers of `zone` are asked whether they serve it before the switch.
    CheckingReadiness { zone: ZoneName },
}

/// Shows nothing (tests, library callers).
pub struct Silent;

impl Progress for Silent {
    fn start(&self, _: u32, _: usize) {}
    fn begin(&self, _: usize, _: &Change) {}
    fn finish(&self, _: &ChangeReport) {}
    fn wait(&self, _: &WaitEvent) {}
    fn note(&self, _: &Note) {}
    fn close(&self) {}
}
