//! The file format as written: one struct per YAML mapping, every value with its position.
//! `dnscron schema` derives the JSON Schema from these types (doc comments become
//! descriptions), and `config::extract` fills them from the YAML tree, so the schema and the
//! loader describe the same keys (a test checks the key lists against the schema).

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator};

use super::tree::Pos;
use crate::dns::{MAX_CONTENT_CHARS, RecordType, rules};

/// A value and where it was written. In the schema it is just the value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Sp<T> {
    pub value: T,
    pub pos: Pos,
}

impl<T: JsonSchema> JsonSchema for Sp<T> {
    fn inline_schema() -> bool {
        T::inline_schema()
    }
    fn schema_name() -> Cow<'static, str> {
        T::schema_name()
    }
    fn schema_id() -> Cow<'static, str> {
        T::schema_id()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        T::json_schema(generator)
    }
}

/// One YAML document of a dnscron file: a DNS zone, a site, a record set zones share, or what
/// the account holds that no file manages on purpose. A file may hold several documents
/// separated by `---`.
#[derive(Clone, Debug, PartialEq, JsonSchema)]
#[serde(untagged)]
pub(crate) enum Document {
    Zone(Box<ZoneDoc>),
    Site(SiteDoc),
    RecordSet(RecordSetDoc),
    Unmanaged(UnmanagedDoc),
    /// Read only from `dnscron-accounts.yaml` at the root of the folder a command is given.
    Accounts(AccountsDoc),
}

/// The hosting accounts of a repository, each with the folder that holds its files
/// (docs/file-format.md#accounts). Only in `dnscron-accounts.yaml`, at the root of the folder
/// a command is given; every other YAML file under that root lies in one account's folder.
#[derive(Clone, Debug, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct AccountsDoc {
    /// One entry per account; at least one.
    pub accounts: Vec<AccountEntry>,
    #[schemars(skip)]
    pub pos: Pos,
}

/// One hosting account: its name, its folder, its API and where its token comes from (never
/// the token itself). Exactly one of `token_env` and `token_file`.
#[derive(Clone, Debug, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct AccountEntry {
    /// How commands (`--account NAME`), plans and metrics name it: lower-case letters, digits
    /// and `-`, at most 63 characters.
    #[schemars(regex(pattern = r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$"))]
    pub name: Sp<String>,
    /// The folder of its zone, site and record-set files, relative to this file's folder and
    /// inside it (`acme`, `customers/acme`); no two accounts share or nest folders.
    pub folder: Sp<String>,
    /// Base URL of its API, including the version prefix (https://…/api/v1).
    pub api_url: Sp<String>,
    /// The environment variable that holds its token, e.g. `DNSCRON_TOKEN_ACME`.
    #[schemars(regex(pattern = r"^[A-Za-z_][A-Za-z0-9_]*$"))]
    pub token_env: Option<Sp<String>>,
    /// A file that holds its token (a mounted Secret), absolute or relative to this file's folder.
    pub token_file: Option<Sp<String>>,
    #[schemars(skip)]
    pub pos: Pos,
}

/// Zones, domains and sites of the account that no file declares on purpose: a `plan` of a
/// folder reports every other one it finds in the account (docs/file-format.md). Several such
/// documents add up; a name may be listed once.
#[derive(Clone, Debug, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct UnmanagedDoc {
    /// What is left unmanaged, by kind.
    pub unmanaged: UnmanagedLists,
    #[schemars(skip)]
    pub pos: Pos,
}

/// The lists of an `unmanaged:` document; each entry is a name, or `{ name, reason }`.
#[derive(Clone, Debug, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct UnmanagedLists {
    /// DNS zones (`GET /dns`) no file declares. An entry covers the registration of the domain
    /// of the same name too.
    pub zones: Option<Vec<UnmanagedEntry>>,
    /// Registered domains (`GET /domains`) whose zone is not in the account, so no zone file
    /// can declare them.
    pub domains: Option<Vec<UnmanagedEntry>>,
    /// Sites (`GET /sites`) no site file declares, by slug.
    pub sites: Option<Vec<UnmanagedEntry>>,
    #[schemars(skip)]
    pub pos: Pos,
}

/// One thing left unmanaged.
#[derive(Clone, Debug, PartialEq, JsonSchema)]
#[serde(untagged)]
pub(crate) enum UnmanagedEntry {
    /// The zone or domain name, or the site's slug.
    Name(Sp<String>),
    /// The name, and why it is left out.
    Explained(UnmanagedExplained),
}

/// A name and why it is left unmanaged.
#[derive(Clone, Debug, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct UnmanagedExplained {
    /// The zone or domain name, or the site's slug.
    pub name: Sp<String>,
    /// Why it is left out, for the next reader (e.g. "run by the agency's own tooling").
    pub reason: Option<Sp<String>>,
    #[schemars(skip)]
    pub pos: Pos,
}

/// Records shared by the zones that name this set in their `use:` list: each such zone gets
/// every record here as if declared in it. `{zone}` in a record's `content` stands for the
/// using zone's name, without a final dot (`rua=mailto:dmarc@{zone}`; write `mail.{zone}.` for
/// a host name). A set cannot `use:` other sets.
#[derive(Clone, Debug, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RecordSetDoc {
    /// The set's name, as zones list it in `use:`: letters, digits, `-` and `_`.
    #[schemars(regex(pattern = r"^[A-Za-z0-9_-]+$"))]
    pub record_set: Sp<String>,
    /// The set's records, written as a zone's (`override` is for a zone's own records). A
    /// record without `ttl` takes the using zone's `defaults.ttl`.
    pub records: Option<Vec<Record>>,
    #[schemars(skip)]
    pub pos: Pos,
}

/// A DNS zone: its records, and optionally the registrar nameserver mode of the domain of the
/// same name.
#[derive(Clone, Debug, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ZoneDoc {
    /// The zone's domain name, e.g. `example.com`. Case and a final dot are normalized away.
    pub zone: Sp<String>,
    /// Values used by records that do not set their own.
    pub defaults: Option<Defaults>,
    /// Registrar nameserver mode of the domain of the same name. Omit it to leave the
    /// registrar side unmanaged.
    pub nameservers: Option<Nameservers>,
    /// Delete live records that are not declared here and not ignored. Default `true`.
    pub prune: Option<Sp<bool>>,
    /// Live records matching any of these rules are never touched, even with `prune`. A
    /// declared record may not match a rule.
    pub ignore: Option<Vec<IgnoreRule>>,
    /// The zone's records: the whole set (with `prune`), in any order.
    pub records: Option<Vec<Record>>,
    /// Record sets (`record_set:` documents) whose records this zone includes. A set's record
    /// with the name and type of one of the zone's own records is an error, unless that record
    /// says `override: true`.
    #[serde(rename = "use")]
    pub use_sets: Option<Vec<Sp<String>>>,
    /// Mass-change protection: plan refuses changes beyond these limits.
    pub safety: Option<Safety>,
    /// What the registrar state of the domain of the same name should be: `plan` reports a
    /// finding when live differs (docs/health.md). Never written: the API cannot change these.
    pub registrar: Option<Registrar>,
    /// Findings about this zone (or its domain) that are known and accepted: shown as accepted
    /// with their reason, they change no exit code (docs/health.md#accepting-a-finding).
    pub accept: Option<Vec<Accept>>,
    #[schemars(skip)]
    pub pos: Pos,
}

/// A finding accepted, reviewed like every other line of the files.
#[derive(Clone, Debug, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Accept {
    /// The finding's code (docs/health.md#finding-codes).
    #[schemars(with = "crate::finding::FindingCode")]
    pub finding: Sp<String>,
    /// What the finding is about, as its head line shows it. In a zone: the record set's owner
    /// name as records write it (`mail._domainkey`), or `@` for the zone's apex and for the
    /// zone's and its domain's own findings. In a site: the cron job's command, or `@` for all
    /// of the site's findings of this code.
    pub name: Sp<String>,
    /// Why it is accepted: reviewers read it, and every view shows it.
    #[schemars(length(min = 1))]
    pub reason: Sp<String>,
    /// The last day the acceptance holds (`YYYY-MM-DD`, UTC), judged when a plan is made;
    /// after it the finding counts again. Omit it for no end.
    #[schemars(regex(pattern = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"))]
    pub until: Option<Sp<String>>,
    /// The figure accepted, as the finding names it: the DNS lookups of an SPF finding
    /// (`11`), the `p=` policy of a DMARC finding (`quarantine`), the bits of a DKIM key
    /// (`1024`), the expiry day of `domain-expiring` (`2026-02-01`). A finding worse than it
    /// is not accepted; an acceptance of `domain-expiring` ends on the expiry day.
    #[schemars(with = "Option<AcceptValue>")]
    pub value: Option<Sp<String>>,
    #[schemars(skip)]
    pub pos: Pos,
}

/// An `accept:` entry's `value`: a count or a word.
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum AcceptValue {
    Count(u32),
    Word(String),
}

/// Expectations about the domain's registration, checked by `plan`, never written.
#[derive(Clone, Debug, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Registrar {
    /// `true`: a finding (error) when the domain does not renew itself.
    pub auto_renew: Option<Sp<bool>>,
    /// `true`: a finding (error) when the registrar lock is off.
    pub lock: Option<Sp<bool>>,
    /// `true`: a finding (error) when WHOIS privacy is off.
    pub whois_privacy: Option<Sp<bool>>,
    /// Days before expiry from which a domain with auto-renew off is an error finding.
    /// Default 30.
    #[schemars(range(min = 1, max = 3650))]
    pub expiry_warning_days: Option<Sp<u32>>,
    #[schemars(skip)]
    pub pos: Pos,
}

/// Defaults for the zone's records.
#[derive(Clone, Debug, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Defaults {
    /// TTL in seconds (60–604800) of records without their own `ttl`. Default 3600.
    #[schemars(range(min = rules::TTL_MIN, max = rules::TTL_MAX))]
    pub ttl: Option<Sp<u32>>,
}

/// Which nameservers the registry lists for the domain.
#[derive(Clone, Debug, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Nameservers {
    /// `hosted`: the service's own nameservers (no `hosts`); `custom`: the `hosts` listed.
    pub mode: Sp<NameserverMode>,
    /// With `mode: custom`: 2 to 6 distinct host names, none inside this zone's domain.
    #[schemars(length(min = 2, max = 6))]
    pub hosts: Option<Vec<Sp<String>>>,
    #[schemars(skip)]
    pub pos: Pos,
}

/// Nameserver mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum NameserverMode {
    /// The service's own nameservers.
    Hosted,
    /// The host names listed in `hosts`.
    Custom,
}

/// Live records this rule matches are never created, updated or deleted.
#[derive(Clone, Debug, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct IgnoreRule {
    /// Glob over the relative record name (`*` any run of characters, `?` one character),
    /// e.g. `_acme-challenge*`. Default `*`.
    pub name: Option<Sp<String>>,
    /// Record type; omit to match every type.
    #[serde(rename = "type")]
    pub rtype: Option<Sp<RecordType>>,
    /// Optional glob over the record's canonical content.
    pub content: Option<Sp<String>>,
    #[schemars(skip)]
    pub pos: Pos,
}

/// One DNS record.
#[derive(Clone, Debug, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Record {
    /// `@` for the apex, `*` for the wildcard, relative labels (`www`, `a.b`, `*.dev`), or an
    /// absolute name inside the zone with a final dot (`www.example.com.`).
    pub name: Sp<String>,
    /// Record type.
    #[serde(rename = "type")]
    pub rtype: Sp<RecordType>,
    /// Content for the type (at most 2000 characters): an address for A/AAAA; a host name for
    /// CNAME/NS/PTR; `priority host` for MX; `priority weight port target` for SRV;
    /// `flags tag "value"` for CAA; any text for TXT (quotes optional, may exceed 255).
    #[schemars(length(max = MAX_CONTENT_CHARS))]
    pub content: Sp<String>,
    /// TTL in seconds (60–604800). Default: the zone's `defaults.ttl`, else 3600.
    #[schemars(range(min = rules::TTL_MIN, max = rules::TTL_MAX))]
    pub ttl: Option<Sp<u32>>,
    /// In a zone that uses record sets: `true` makes the zone's records of this name and type
    /// replace every record of that name and type the sets bring. Default `false` (a clash is
    /// an error).
    #[serde(rename = "override")]
    pub override_sets: Option<Sp<bool>>,
    #[schemars(skip)]
    pub pos: Pos,
}

/// Limits on how much one plan may change in this zone; see the file-format reference.
#[derive(Clone, Debug, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Safety {
    /// Refuse when more than this many records would be deleted. Default 50.
    pub max_deletes: Option<Sp<usize>>,
    /// Deletes above this count are also checked against `max_delete_percent`. Default 5.
    pub delete_floor: Option<Sp<usize>>,
    /// Refuse when more than this percentage of the zone's records would be deleted
    /// (checked above `delete_floor`). Default 30.
    #[schemars(range(max = 100))]
    pub max_delete_percent: Option<Sp<u8>>,
    /// Updates of content (not those that change only the TTL) above this count are also
    /// checked against `max_update_percent`. Default 10.
    pub update_floor: Option<Sp<usize>>,
    /// Refuse when more than this percentage of the zone's records would have their content
    /// updated (checked above `update_floor`). Default 30.
    #[schemars(range(max = 100))]
    pub max_update_percent: Option<Sp<u8>>,
    /// Updates that change only the TTL (same content) are counted apart from the others: more
    /// than this many are also checked against `max_ttl_update_percent`. Default 10.
    pub ttl_update_floor: Option<Sp<usize>>,
    /// Refuse when more than this percentage of the zone's records would change only their
    /// TTL (checked above `ttl_update_floor`): what a mistyped `defaults.ttl` looks like.
    /// Default 50.
    #[schemars(range(max = 100))]
    pub max_ttl_update_percent: Option<Sp<u8>>,
    /// Allow a plan that leaves the zone with no records. Default `false`.
    pub allow_empty: Option<Sp<bool>>,
}

/// A site and its scheduled tasks.
#[derive(Clone, Debug, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SiteDoc {
    /// The site's slug, as listed by `GET /sites`.
    pub site: Sp<String>,
    /// The site's whole cron list (at most 5 jobs). Omit the key to leave the site's cron
    /// unmanaged; `[]` removes every job.
    #[schemars(length(max = 5))]
    pub cron: Option<Vec<CronJob>>,
    /// Findings about this site that are known and accepted (docs/health.md#accepting-a-finding).
    pub accept: Option<Vec<Accept>>,
    #[schemars(skip)]
    pub pos: Pos,
}

/// A scheduled task.
#[derive(Clone, Debug, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CronJob {
    /// 5-field cron expression (`minute hour day-of-month month day-of-week`); no seconds.
    pub schedule: Sp<String>,
    /// The command; its first word is `php` or `wp`.
    #[schemars(regex(pattern = r"^\s*(php|wp)(\s|$)"))]
    pub command: Sp<String>,
    #[schemars(skip)]
    pub pos: Pos,
}

/// The keys each mapping accepts, in schema order (checked against the schema by a test).
pub(crate) mod keys {
    pub(crate) const ZONE: &[&str] = &[
        "zone",
        "defaults",
        "nameservers",
        "prune",
        "ignore",
        "records",
        "use",
        "safety",
        "registrar",
        "accept",
    ];
    pub(crate) const RECORD_SET: &[&str] = &["record_set", "records"];
    pub(crate) const REGISTRAR: &[&str] =
        &["auto_renew", "lock", "whois_privacy", "expiry_warning_days"];
    pub(crate) const DEFAULTS: &[&str] = &["ttl"];
    pub(crate) const NAMESERVERS: &[&str] = &["mode", "hosts"];
    pub(crate) const IGNORE: &[&str] = &["name", "type", "content"];
    pub(crate) const RECORD: &[&str] = &["name", "type", "content", "ttl", "override"];
    pub(crate) const SAFETY: &[&str] = &[
        "max_deletes",
        "delete_floor",
        "max_delete_percent",
        "update_floor",
        "max_update_percent",
        "ttl_update_floor",
        "max_ttl_update_percent",
        "allow_empty",
    ];
    pub(crate) const SITE: &[&str] = &["site", "cron", "accept"];
    pub(crate) const ACCEPT: &[&str] = &["finding", "name", "reason", "until", "value"];
    pub(crate) const CRON: &[&str] = &["schedule", "command"];
    pub(crate) const UNMANAGED: &[&str] = &["unmanaged"];
    pub(crate) const UNMANAGED_LISTS: &[&str] = &["zones", "domains", "sites"];
    pub(crate) const UNMANAGED_ENTRY: &[&str] = &["name", "reason"];
    pub(crate) const ACCOUNTS: &[&str] = &["accounts"];
    pub(crate) const ACCOUNT: &[&str] = &["name", "folder", "api_url", "token_env", "token_file"];
}

/// The JSON Schema of one document, as `dnscron schema` prints it.
pub fn json_schema() -> serde_json::Value {
    let settings = schemars::generate::SchemaSettings::draft07();
    let generator = settings.into_generator();
    let mut schema = generator.into_root_schema_for::<Document>();
    schema.insert("title".into(), "dnscron desired-state document".into());
    schema.insert(
        "description".into(),
        "A dnscron YAML document: a DNS zone (`zone:`), a site (`site:`), a record set shared by zones (`record_set:`), what the account holds that no file manages on purpose (`unmanaged:`), or a repository's accounts (`accounts:`, in dnscron-accounts.yaml).".into(),
    );
    let mut value = schema.to_value();
    drop_null(&mut value);
    value
}

/// Optional keys may be omitted but not written as `null` (the loader refuses `key:` with no
/// value), so the `null` alternatives schemars adds for `Option` fields are removed.
fn drop_null(value: &mut serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::Object(map) => {
            if let Some(Value::Array(types)) = map.get_mut("type") {
                types.retain(|t| t != "null");
                if types.len() == 1 {
                    let only = types.remove(0);
                    map.insert("type".into(), only);
                }
            }
            let is_null = |v: &Value| v.get("type").is_some_and(|t| t == "null");
            if let Some(Value::Array(alts)) = map.get("anyOf")
                && alts.len() == 2
                && alts.iter().any(is_null)
                && let Some(other) = alts.iter().find(|a| !is_null(a)).cloned()
            {
                map.remove("anyOf");
                if other.get("$ref").is_some() {
                    // Draft 7 ignores siblings of `$ref`; `allOf` keeps the description.
                    map.insert("allOf".into(), Value::Array(vec![other]));
                } else if let Value::Object(fields) = other {
                    map.extend(fields);
                }
            }
            map.values_mut().for_each(drop_null);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_null),
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
    }
}
