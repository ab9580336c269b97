//! The validated desired state: what every later stage reads. Built by `config::load` from the
//! YAML files; every value here has already passed `config::validate`, so later stages never
//! re-check user input, and every item keeps the place it was declared for error messages.
//! A saved plan keeps the desired state in documents of its own (`plan_file::desired`: the
//! zone and site documents, re-checked on load), which hold the leaves below as they are: a
//! leaf's serde form is the plan file's, and its doc comments are the file schema's
//! descriptions, so notes for the code about a leaf are `//` comments.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::dns::{RecordType, ZoneName};
// The one thing of a later stage the files name: `accept:` entries are checked against the
// finding codes, which belong to the planner that raises them.
use crate::finding::FindingCode;

/// Where something was declared: `file:line:col`, 1-based.
#[derive(
    Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
pub struct Location {
    // One allocation per file, shared by everything declared in it. A path, not a string, so
    // that a file name that is not UTF-8 fails to serialize rather than being written mangled.
    pub file: Arc<Path>,
    pub line: usize,
    pub col: usize,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file.display(), self.line, self.col)
    }
}

/// Everything the files declare, in file order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Desired {
    pub zones: Vec<ZoneSpec>,
    pub sites: Vec<SiteSpec>,
    /// What the account holds that no file manages on purpose (`unmanaged:` documents).
    pub unmanaged: Unmanaged,
}

/// Zones, domains and sites of the account left unmanaged on purpose: a plan of a folder does
/// not report them as undeclared.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Unmanaged {
    /// DNS zones; each covers the registration of the domain of the same name too.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub zones: Vec<UnmanagedEntry>,
    /// Registered domains whose zone is not in the account.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub domains: Vec<UnmanagedEntry>,
    /// Sites, by slug.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sites: Vec<UnmanagedEntry>,
}

impl Unmanaged {
    pub fn is_empty(&self) -> bool {
        self.zones.is_empty() && self.domains.is_empty() && self.sites.is_empty()
    }
}

/// One zone, domain or site left unmanaged.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct UnmanagedEntry {
    /// A zone or domain name (lower case, no final dot) or a site's slug.
    pub name: String,
    /// Why it is left out, as the file says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub location: Location,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ZoneSpec {
    pub zone: ZoneName,
    pub location: Location,
    /// `None`: the file has no `nameservers` key and the registrar side is not managed.
    pub nameservers: Option<NameserversSpec>,
    /// Delete live records that are not declared (default true).
    pub prune: bool,
    pub ignore: Vec<IgnoreRule>,
    pub records: Vec<RecordSpec>,
    pub safety: SafetyLimits,
    /// `None`: the file has no `registrar` key (findings use the defaults).
    pub registrar: Option<RegistrarExpectations>,
    /// The zone's and its domain's findings the files accept (`accept:`), in file order.
    pub accept: Vec<AcceptSpec>,
    /// The record sets its `use:` lists, in that order. Kept apart from the records because a
    /// set may hold none: `--changed-since` finds the zones a changed set file reaches from
    /// here. Not kept in a plan file (its records name their set), so empty in a desired state
    /// read from one, and in a file read alone (`use:` is not resolved there).
    pub uses: Vec<SetUse>,
}

/// A record set a zone uses and the file that declares it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetUse {
    pub name: Arc<str>,
    pub file: Arc<Path>,
}

/// A finding the files accept: its code and what it is about, why, and until when.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AcceptSpec {
    pub finding: FindingCode,
    /// What the finding is about: in a zone, a record set's owner name relative to the zone
    /// (`@` also for the zone's and its domain's own findings); in a site, a cron job's
    /// command, or `@` for all of the site's findings of the code.
    // Normalized as the loader reads it: a zone's names as records' (`dns::record_name_to_relative`),
    // a site's commands with whitespace collapsed (`cron::normalize_command`).
    pub name: String,
    pub reason: String,
    /// The last day (`YYYY-MM-DD`, UTC) the acceptance holds; absent: no end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<String>")]
    pub until: Option<chrono::NaiveDate>,
    /// The figure accepted (`value`: the lookups, the DMARC policy, the key bits, the expiry
    /// day the finding named); absent: written before figures were recorded, covering the
    /// finding whatever it measures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub figure: Option<crate::finding::Figure>,
    pub location: Location,
}

/// What an `accept:` entry's `name` is when it names no record set or job: the zone's (or
/// domain's) own findings, or all of a site's findings of the code.
pub const ACCEPT_WHOLE: &str = "@";

// What the file expects of the domain's registration; `None` fields are not checked. Plan
// reports live values that differ; nothing here is ever written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RegistrarExpectations {
    pub auto_renew: Option<bool>,
    pub lock: Option<bool>,
    pub whois_privacy: Option<bool>,
    pub expiry_warning_days: Option<u32>,
    pub location: Location,
}

/// Days before expiry from which a domain with auto-renew off is an error finding.
pub const DEFAULT_EXPIRY_WARNING_DAYS: u32 = 30;

impl ZoneSpec {
    pub fn expiry_warning_days(&self) -> u32 {
        self.registrar
            .as_ref()
            .and_then(|r| r.expiry_warning_days)
            .unwrap_or(DEFAULT_EXPIRY_WARNING_DAYS)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RecordSpec {
    /// Relative form (`@`, `*`, `www`, `a.b`).
    // See `dns::name`.
    pub name: String,
    pub rtype: RecordType,
    // Resolved: the record's own ttl, else `defaults.ttl`, else 3600.
    pub ttl: u32,
    /// Exactly as the user wrote it (not trimmed: a TXT's surrounding spaces are content).
    // `canonical` is made from this text, and a saved plan's desired state is re-checked from
    // it; kept for messages. To send it on create/update use
    // `dns::wire_content(rtype, &canonical)`, which reads back to the same canonical form.
    pub content: String,
    /// Recomputed from `content` when the plan is loaded.
    // `dns::canonical_content` of `content`; what the diff compares.
    pub canonical: String,
    // Where it is written: the zone's file, or for a record from a set, the set's file.
    pub location: Location,
    /// The record set it comes from (`content` has `{zone}` already replaced); absent for
    /// the zone's own records.
    // Named `record_set:` in the set's file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set: Option<Arc<str>>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct NameserversSpec {
    pub mode: NameserverMode,
    pub location: Location,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "mode", content = "hosts", rename_all = "lowercase")]
pub enum NameserverMode {
    /// The service's own nameservers.
    Hosted,
    /// The listed host names.
    // 2–6 distinct host names outside the zone, lower case, no final dot.
    Custom(Vec<String>),
}

// A live record matching any rule is never touched, even with `prune`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct IgnoreRule {
    /// Glob over the relative record name.
    // `*` any run of characters, `?` one character.
    pub name: String,
    /// `null`: every type.
    pub rtype: Option<RecordType>,
    /// Glob over the canonical content; `null`: any content.
    pub content: Option<String>,
    pub location: Location,
}

// Mass-change protection for one zone; see `plan::safety`. Defaults from the plan issue. The
// plan file describes none of these fields, so their notes are comments.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SafetyLimits {
    // Refuse when more than this many records would be deleted (default 50).
    pub max_deletes: usize,
    // Deletes above this count are also checked against `max_delete_percent` (default 5).
    pub delete_floor: usize,
    pub max_delete_percent: u8,
    // Content updates above this count are also checked against `max_update_percent`
    // (default 10).
    pub update_floor: usize,
    pub max_update_percent: u8,
    // Updates of the TTL alone, counted apart: above this count they are also checked
    // against `max_ttl_update_percent` (default 10, 50 %).
    pub ttl_update_floor: usize,
    pub max_ttl_update_percent: u8,
    // Allow a plan that leaves the zone with no records (default false).
    pub allow_empty: bool,
}

impl Default for SafetyLimits {
    fn default() -> Self {
        SafetyLimits {
            max_deletes: 50,
            delete_floor: 5,
            max_delete_percent: 30,
            update_floor: 10,
            max_update_percent: 30,
            ttl_update_floor: 10,
            max_ttl_update_percent: 50,
            allow_empty: false,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct SiteSpec {
    pub slug: String,
    pub location: Location,
    /// `None`: cron not managed. `Some(vec![])`: remove every job.
    pub cron: Option<Vec<CronJobSpec>>,
    /// The site's findings the files accept (`accept:`), in file order.
    pub accept: Vec<AcceptSpec>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CronJobSpec {
    // Whitespace-normalized (single spaces), exactly 5 fields.
    pub schedule: String,
    // Whitespace-normalized; starts with `php` or `wp`.
    pub command: String,
    pub location: Location,
}

impl IgnoreRule {
    /// Whether a record (relative name, type, canonical content) falls under this rule. The
    /// planner calls it on live records; the validator on declared ones.
    pub fn matches(&self, name: &str, rtype: RecordType, canonical: &str) -> bool {
        use super::glob::glob_match;
        glob_match(&self.name, name)
            && self.rtype.is_none_or(|t| t == rtype)
            && self
                .content
                .as_deref()
                .is_none_or(|c| glob_match(c, canonical))
    }
}

impl Desired {
    /// Totals for summaries: (zones, records, sites, cron jobs).
    pub fn counts(&self) -> (usize, usize, usize, usize) {
        let records = self.zones.iter().map(|z| z.records.len()).sum();
        let jobs = self
            .sites
            .iter()
            .filter_map(|s| s.cron.as_ref())
            .map(Vec::len)
            .sum();
        (self.zones.len(), records, self.sites.len(), jobs)
    }
}
