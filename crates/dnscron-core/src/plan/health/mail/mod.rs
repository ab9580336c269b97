//! Email-authentication findings (docs/health.md#mail-findings): SPF, DMARC, DKIM and MX judged
//! from the records the files declare, as receivers will judge them once they are live. Judged from
//! the files, not from what nameservers serve: a plan shows what applying it makes live, and
//! `check` already reports served records that differ from the files.
//!
//! Only SPF needs DNS: an `include:` or `redirect=`, and the host of an `a` or `mx` term, outside
//! the account's zones is read from a recursive resolver when one is given ([`MailDns`]);
//! without one the finding names what it could not follow or check.
//!
//! A message's first line is one sentence; the lines after it, when there are any, are drawn
//! as they are (the SPF lookup tree). Text from a record (a file's or one DNS served) is escaped
//! where it enters a message, so its line breaks are never taken for the message's own.

mod account;
mod dkim;
mod dmarc;
#[cfg(test)]
mod dmarc_tests;
#[cfg(test)]
mod dns_tests;
mod key;
mod mx;
mod spf;
pub use spf::not_followed_terms;
#[cfg(test)]
mod spf_tests;
mod tags;
#[cfg(test)]
mod tests;

use std::net::SocketAddr;

use crate::config::model::{Desired, RecordSpec, ZoneSpec};
use crate::dnscheck::QueryOptions;
use crate::finding::Figure;
use crate::finding::FindingCode;
use crate::plan::model::{Finding, TargetKind, TargetRef};

use account::Account;

/// Where SPF includes outside the account are looked up: a recursive resolver (the RD bit set).
#[derive(Clone, Debug)]
pub struct MailDns {
    pub resolver: SocketAddr,
    pub query: QueryOptions,
}

impl MailDns {
    pub fn new(resolver: SocketAddr, query: QueryOptions) -> MailDns {
        MailDns {
            resolver,
            query: QueryOptions {
                recursion_desired: true,
                ..query
            },
        }
    }
}

/// Every declared zone's mail findings, zone by zone in file order.
pub async fn mail_findings(desired: &Desired, dns: Option<&MailDns>) -> Vec<Finding> {
    let mut out = Vec::new();
    mail_findings_of(desired, &desired.zones, dns, &mut out).await;
    out
}

/// Appends the mail findings of `zones` (some of `files`' zones) to `out`, judged as a plan of
/// all of `files` judges them: an SPF `include:` or a DMARC report address in another zone of
/// the files is followed into that zone's records, whether or not its findings are asked for.
/// Only `zones`' own records are looked up over DNS.
// Appended in place: a large zone has a finding per SPF record (20,000 in a 100,000-record
// zone), and a copy of them into the plan's list was the plan's peak memory.
pub(crate) async fn mail_findings_of(
    files: &Desired,
    zones: &[ZoneSpec],
    dns: Option<&MailDns>,
    out: &mut Vec<Finding>,
) {
    let account = Account::new(&files.zones);
    let mut spf = spf::Walker::new(&account, dns);
    for spec in zones {
        let mut zone = Out::new(spec, out);
        spf::findings(&mut spf, spec, &mut zone).await;
        let before = zone.findings.len();
        dmarc::findings(&account, spec, &mut zone);
        dmarc::measure(spec, &mut zone.findings[before..]);
        dkim::findings(spec, &mut zone);
        mx::findings(&account, spec, &mut zone);
    }
}

/// Where one zone's findings go, each about a record the zone declares.
pub(super) struct Out<'a> {
    spec: &'a ZoneSpec,
    findings: &'a mut Vec<Finding>,
}

impl<'a> Out<'a> {
    fn new(spec: &'a ZoneSpec, findings: &'a mut Vec<Finding>) -> Out<'a> {
        Out { spec, findings }
    }

    /// The last finding pushed measures `figure`.
    fn measure_last(&mut self, figure: Figure) {
        if let Some(last) = self.findings.pop() {
            self.findings.push(last.measured(figure));
        }
    }

    /// A finding about `record`'s record set, placed where `record` is declared.
    fn push(&mut self, code: FindingCode, record: &RecordSpec, mut message: String) {
        // Held until the plan is written, one per SPF record of a large zone: without the
        // room a message grew into while it was worded.
        message.shrink_to_fit();
        let target = TargetRef {
            kind: TargetKind::Zone,
            name: self.spec.zone.to_string(),
        };
        self.findings.push(
            Finding::new(code, target, message)
                .declared_at(&record.location)
                .about_record(&record.name, record.rtype),
        );
    }
}
