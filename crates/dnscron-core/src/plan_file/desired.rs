//! The desired state as the plan file keeps it: every zone and site document, each item with
//! the `file:line:col` it was declared at. A loaded plan puts it through the YAML loader's
//! rules again (`config::revalidate`), so these fields are declarations, not trusted results.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};

use crate::dns::{RecordType, ZoneName};

/// Where something was declared: `file:line:col`, 1-based.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Location {
    // A path, not a string, so that a file name that is not UTF-8 fails to serialize as it
    // always has rather than being written mangled.
    pub file: PathBuf,
    pub line: usize,
    pub col: usize,
}

/// Everything the files declared, in file order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Desired {
    pub zones: Vec<ZoneSpec>,
    pub sites: Vec<SiteSpec>,
}

/// A zone document.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ZoneSpec {
    /// The zone's domain name: lower case, no final dot.
    #[serde(deserialize_with = "zone_name")]
    #[schemars(with = "String")]
    pub zone: ZoneName,
    pub location: Location,
    /// `null`: the file has no `nameservers` key and the registrar side is not managed.
    pub nameservers: Option<NameserversSpec>,
    pub prune: bool,
    pub ignore: Vec<IgnoreRule>,
    pub records: Vec<RecordSpec>,
    pub safety: SafetyLimits,
    /// Absent: the file has no `registrar` key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registrar: Option<RegistrarExpectations>,
}

/// A saved plan's zone name is checked like one in a file, where it is read.
fn zone_name<'de, D: Deserializer<'de>>(deserializer: D) -> Result<ZoneName, D::Error> {
    let text = String::deserialize(deserializer)?;
    ZoneName::parse(&text).map_err(serde::de::Error::custom)
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RegistrarExpectations {
    pub auto_renew: Option<bool>,
    pub lock: Option<bool>,
    pub whois_privacy: Option<bool>,
    pub expiry_warning_days: Option<u32>,
    pub location: Location,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RecordSpec {
    /// Relative form (`@`, `*`, `www`, `a.b`).
    pub name: String,
    pub rtype: RecordType,
    pub ttl: u32,
    /// Exactly as the user wrote it (not trimmed: a TXT's surrounding spaces are content).
    pub content: String,
    /// Recomputed from `content` when the plan is loaded.
    pub canonical: String,
    pub location: Location,
    /// The record set it comes from (`content` has `{zone}` already replaced); absent for
    /// the zone's own records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set: Option<String>,
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
    Custom(Vec<String>),
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct IgnoreRule {
    /// Glob over the relative record name.
    pub name: String,
    /// `null`: every type.
    pub rtype: Option<RecordType>,
    /// Glob over the canonical content; `null`: any content.
    pub content: Option<String>,
    pub location: Location,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SafetyLimits {
    pub max_deletes: usize,
    pub delete_floor: usize,
    pub max_delete_percent: u8,
    pub update_floor: usize,
    pub max_update_percent: u8,
    pub allow_empty: bool,
}

/// A site document.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SiteSpec {
    pub slug: String,
    pub location: Location,
    /// `null`: cron not managed; `[]`: remove every job.
    pub cron: Option<Vec<CronJobSpec>>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CronJobSpec {
    pub schedule: String,
    pub command: String,
    pub location: Location,
}
