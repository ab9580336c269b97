//! The hosts an SPF record's `a` and `mx` terms name (RFC 7208 §4.6.4): a name without an
//! address (or without MX) is a void lookup, and an `mx` whose name has more than 10 MX hosts
//! is a permerror. Hosts in the account are read from the files; others from the resolver, or
//! named as not checked.

use crate::dns::RecordType;

use super::super::account::Held;
use super::super::mx::is_null;
use super::lookup::{Answered, resolve};
use super::parse::{HostTerm, Parsed, Target};
use super::tree::{MAX_NODES, Unfollowed, Walker};

/// §4.6.4: address records one `mx` term may query.
pub(super) const MX_HOST_LIMIT: usize = 10;

/// What the check of one `a`/`mx` term found worth a word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum HostVerdict {
    Void,
    TooManyMx(usize),
    Unchecked(Unfollowed),
}

/// One term's verdict, and whether DNS answered it (else the files hold it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct HostNote {
    /// The term as the record writes it.
    pub(super) word: String,
    pub(super) verdict: HostVerdict,
    pub(super) from_dns: bool,
}

impl HostNote {
    pub(super) fn unchecked(&self) -> Option<&Unfollowed> {
        match &self.verdict {
            HostVerdict::Unchecked(why) => Some(why),
            HostVerdict::Void | HostVerdict::TooManyMx(_) => None,
        }
    }
}

/// A host's check: nothing to say, or a verdict and whether DNS gave it.
pub(super) type HostCheck = Option<(HostVerdict, bool)>;

impl Walker<'_> {
    /// The notes on the `a`/`mx` terms of the record at `domain` (its own name for a bare term).
    pub(super) async fn host_notes(&mut self, parsed: &Parsed, domain: &str) -> Vec<HostNote> {
        let mut notes = Vec::new();
        for term in &parsed.hosts {
            let checked = match &term.target {
                None => self.check(domain, term).await,
                Some(Target { host: Some(h), .. }) => self.check(h, term).await,
                Some(Target { host: None, .. }) => {
                    Some((HostVerdict::Unchecked(Unfollowed::Macro), false))
                }
            };
            if let Some((verdict, from_dns)) = checked {
                notes.push(HostNote {
                    word: term.word.clone(),
                    verdict,
                    from_dns,
                });
            }
        }
        notes
    }

    async fn check(&mut self, host: &str, term: &HostTerm) -> HostCheck {
        let key = (host.to_string(), term.mx);
        if let Some(hit) = self.host_cache.get(&key) {
            return hit.clone();
        }
        let types: &[RecordType] = if term.mx {
            &[RecordType::MX]
        } else {
            &[RecordType::A, RecordType::AAAA, RecordType::CNAME]
        };
        let checked = match self.in_files(host, term.mx, types) {
            FromFiles::Judged(verdict) => verdict.map(|v| (v, false)),
            FromFiles::Unknown(why) => match self.dns {
                Some(dns) => {
                    self.nodes += 1;
                    if self.nodes > MAX_NODES {
                        // Not cached: another record's walk has its own budget.
                        return Some((HostVerdict::Unchecked(Unfollowed::TooMany), false));
                    }
                    ask(dns, host, term.mx).await
                }
                // A host of the account whose zone keeps records the files don't show is the
                // user's own: it is asked when a resolver is there, and not named otherwise
                // (every imported zone has `ignore` rules; naming each would be noise).
                None if why == Unfollowed::Undeclared => None,
                None => Some((HostVerdict::Unchecked(why), false)),
            },
        };
        self.host_cache.insert(key, checked.clone());
        checked
    }

    /// What the files say about `host`'s addresses (or MX hosts).
    fn in_files(&self, host: &str, mx: bool, types: &[RecordType]) -> FromFiles {
        let mut complete = true;
        let mut found = Vec::new();
        for rtype in types {
            match self.account.records(host, *rtype) {
                Held::Outside => return FromFiles::Unknown(Unfollowed::NoResolver),
                Held::Files {
                    records,
                    complete: c,
                } => {
                    complete &= c;
                    found.extend(records.into_iter().map(|r| r.canonical.as_str()));
                }
            }
        }
        let crowded = mx_verdict(found.iter().copied());
        match (found.is_empty(), complete) {
            (false, _) if mx => FromFiles::Judged(crowded),
            (false, _) => FromFiles::Judged(None),
            (true, true) => FromFiles::Judged(Some(HostVerdict::Void)),
            (true, false) => FromFiles::Unknown(Unfollowed::Undeclared),
        }
    }
}

enum FromFiles {
    /// The files decide: nothing to say, or the verdict.
    Judged(Option<HostVerdict>),
    /// The files can't say; why, should no resolver be there to ask.
    Unknown(Unfollowed),
}

/// More than [`MX_HOST_LIMIT`] MX hosts (a null MX names none).
fn mx_verdict<'t>(values: impl Iterator<Item = &'t str>) -> Option<HostVerdict> {
    let hosts = values.filter(|v| !is_null(v)).count();
    (hosts > MX_HOST_LIMIT).then_some(HostVerdict::TooManyMx(hosts))
}

/// The resolver's view of an `a` (A, then AAAA) or `mx` host.
async fn ask(dns: &super::super::MailDns, host: &str, mx: bool) -> HostCheck {
    let types: &[RecordType] = if mx {
        &[RecordType::MX]
    } else {
        &[RecordType::A, RecordType::AAAA]
    };
    for rtype in types {
        match resolve(dns, host, *rtype).await {
            Answered::Values(values) if mx => {
                return mx_verdict(values.iter().map(String::as_str)).map(|v| (v, true));
            }
            Answered::Values(_) => return None,
            Answered::Void => {}
            Answered::Failed(why) => {
                return Some((HostVerdict::Unchecked(Unfollowed::Failed(why)), true));
            }
        }
    }
    Some((HostVerdict::Void, true))
}
