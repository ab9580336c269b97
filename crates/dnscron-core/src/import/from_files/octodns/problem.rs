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
}
