//! Why an octoDNS configuration or zone file can't be read, located.

use std::path::PathBuf;

/// A problem at a line and column of an octoDNS file.
pub type Problem = super::super::Located<ProblemKind>;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProblemKind {
    #[error("the file can't be read: {reason}")]
    Unreadable { reason: String },
    #[error("the file is not UTF-8 text")]
    NotUtf8,
    #[error("not YAML: {message}")]
    Yaml { message: String },
    #[error("!include {}: {reason}", path.display())]
    IncludeUnreadable { path: PathBuf, reason: String },
    #[error(
        "!include {}: it is outside {}, the folder of the file that names it (symlinks resolved)",
        path.display(),
        folder.display()
    )]
    IncludeOutside { path: PathBuf, folder: PathBuf },
    #[error("!include {}: the file is already being read (an include loop)", path.display())]
    IncludeLoop { path: PathBuf },
    #[error("{key}: expected {want}, found {found}")]
    Expected {
        key: String,
        want: &'static str,
        found: String,
    },
    #[error("`{key}` is missing")]
    Missing { key: &'static str },
    #[error("the source `{name}` is not among `providers:`")]
    UnknownProvider { name: String },
    #[error(
        "the source `{name}` (class `{class}`) is not a YamlProvider: only YAML zone files can be read"
    )]
    NotYamlProvider { name: String, class: String },
    #[error("the zone {zone} has no zone file (looked for {} and, with split_extension, its folder)", path.display())]
    ZoneFileMissing { zone: String, path: PathBuf },
    #[error("the zone `{zone}` is not a domain name that can be imported: {reason}")]
    BadZone { zone: String, reason: String },
    #[error("a {rtype} value {reason}")]
    BadValue { rtype: String, reason: String },
    /// `included`/`excluded` in a zone without `targets:`: no provider to judge them for.
    #[error(
        "the record names providers in `included`/`excluded`, and its zone has no `targets:`: whether octoDNS manages it on the provider being replaced can't be told; name that provider under the zone's `targets:`"
    )]
    NoTarget,
    /// `included`/`excluded` keep the record on some of the zone's targets and off others.
    #[error(
        "the record's `included`/`excluded` keep it on some of the zone's targets ({}) and off others: which one dnscron replaces decides whether it is managed; list only that one under the zone's `targets:`", targets.join(", ")
    )]
    TargetsDisagree { targets: Vec<String> },
    /// `processors:` (a zone's, or the manager's).
    #[error(
        "processors change what octoDNS pushes beyond what the zone files say, and the import can't run them: import a copy of the configuration without them, then declare their effect in the files"
    )]
    Processors,
    /// The manager's `include_meta`.
    #[error(
        "`include_meta` makes octoDNS add an `octodns-meta` TXT record describing octoDNS itself to every zone it pushes, a record no zone file holds and one that would be false once dnscron manages the zone: import a copy of the configuration without it; the first plan then deletes the live `octodns-meta` record"
    )]
    IncludeMeta,
    /// A zone whose sources name `auto-arpa` (the manager's `auto_arpa`).
    #[error(
        "the source `auto-arpa` fills this zone with PTR records octoDNS derives from the A and AAAA records of the other zones, which no zone file holds and the import does not derive: declare the PTR records in a YAML zone file and name that source instead"
    )]
    AutoArpa,
    /// `alias:` naming a zone that is not in `zones:`, or is an alias itself.
    #[error("`alias: {zone}` names no zone of `zones:` that holds records of its own")]
    BadAlias { zone: String },
    /// A provider option whose meaning the reader doesn't reproduce.
    #[error("the provider option `{key}` {why}")]
    Unsupported { key: String, why: &'static str },
    /// Two records of one name and type in a zone (octoDNS refuses them).
    #[error("{name} {rtype} is already defined at {}:{line}: octoDNS refuses a second record of one name and type", file.display())]
    DuplicateRecord {
        name: String,
        rtype: String,
        file: PathBuf,
        line: usize,
    },
}
