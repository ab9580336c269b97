//! The desired state as the plan file keeps it: every zone and site document, each item with
//! the `file:line:col` it was declared at. A loaded plan puts it through the YAML loader's
//! rules again (`config::revalidate`), so these fields are declarations, not trusted results.
//! The documents are the file's own types, so that nothing reaches the planner unchecked; the
//! items in them (records, cron jobs, ignore rules, limits, locations) are `config::model`'s.

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};

use crate::config::model::{
    self as config, AcceptSpec, CronJobSpec, IgnoreRule, Location, NameserversSpec, RecordSpec,
    RegistrarExpectations, SafetyLimits, Unmanaged,
};
use crate::dns::ZoneName;

/// Everything the files declared, in file order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub(crate) struct Desired {
    pub(crate) zones: Vec<ZoneSpec>,
    pub(crate) sites: Vec<SiteSpec>,
    /// What the files list as left unmanaged on purpose (`unmanaged:`); absent when nothing.
    #[serde(default, skip_serializing_if = "Unmanaged::is_empty")]
    pub(crate) unmanaged: Unmanaged,
}

/// A zone document.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub(crate) struct ZoneSpec {
    /// The zone's domain name: lower case, no final dot.
    #[serde(deserialize_with = "zone_name")]
    #[schemars(with = "String")]
    pub(crate) zone: ZoneName,
    pub(crate) location: Location,
    /// `null`: the file has no `nameservers` key and the registrar side is not managed.
    pub(crate) nameservers: Option<NameserversSpec>,
    pub(crate) prune: bool,
    pub(crate) ignore: Vec<IgnoreRule>,
    pub(crate) records: Vec<RecordSpec>,
    pub(crate) safety: SafetyLimits,
    /// Absent: the file has no `registrar` key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) registrar: Option<RegistrarExpectations>,
    /// The zone's `accept:` entries (docs/health.md#accepting-a-finding); absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) accept: Vec<AcceptSpec>,
}

/// A saved plan's zone name is checked like one in a file, where it is read.
fn zone_name<'de, D: Deserializer<'de>>(deserializer: D) -> Result<ZoneName, D::Error> {
    let text = String::deserialize(deserializer)?;
    ZoneName::parse(&text).map_err(serde::de::Error::custom)
}

/// A site document.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub(crate) struct SiteSpec {
    pub(crate) slug: String,
    pub(crate) location: Location,
    /// `null`: cron not managed; `[]`: remove every job.
    pub(crate) cron: Option<Vec<CronJobSpec>>,
    /// The site's `accept:` entries; absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) accept: Vec<AcceptSpec>,
}

/// The desired state as the file writes it, and back, unchecked: `config::revalidate` checks
/// the result before anyone uses it.
impl Desired {
    pub(super) fn of(d: &config::Desired) -> Desired {
        let config::Desired {
            zones,
            sites,
            unmanaged,
        } = d;
        Desired {
            zones: zones.iter().map(ZoneSpec::of).collect(),
            sites: sites.iter().map(SiteSpec::of).collect(),
            unmanaged: unmanaged.clone(),
        }
    }

    pub(super) fn into_unchecked(self) -> config::Desired {
        let Desired {
            zones,
            sites,
            unmanaged,
        } = self;
        config::Desired {
            zones: zones.into_iter().map(ZoneSpec::into_unchecked).collect(),
            sites: sites.into_iter().map(SiteSpec::into_unchecked).collect(),
            unmanaged,
        }
    }
}

/// A document's conversions both ways, from one list of its fields. Each side is taken apart
/// field by field (no `..`), so a field added to the desired state fails to compile here until
/// someone decides whether the file carries it; one it does not (`not_kept`) is left empty on
/// load.
macro_rules! same_fields {
    ($file:ident, $model:path, { $($field:ident),+ $(,)? } $(, not_kept { $($skip:ident),+ })?) => {
        impl $file {
            fn of(document: &$model) -> $file {
                let $model { $($field,)+ $($($skip: _,)+)? } = document;
                $file { $($field: Clone::clone($field)),+ }
            }

            fn into_unchecked(self) -> $model {
                let $file { $($field),+ } = self;
                $model { $($field,)+ $($($skip: Default::default(),)+)? }
            }
        }
    };
}

// `uses`: which sets a zone's `use:` lists matters for reading the files alone
// (`--changed-since`); a plan's records already name the set each came from.
same_fields!(ZoneSpec, config::ZoneSpec, {
    zone, location, nameservers, prune, ignore, records, safety, registrar, accept,
}, not_kept { uses });
same_fields!(SiteSpec, config::SiteSpec, { slug, location, cron, accept });
