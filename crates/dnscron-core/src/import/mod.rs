//! `dnscron import`: the live account → desired-state files that reproduce it exactly, so that
//! `plan` on them shows no changes.
//!
//! `fetch` reads what is selected, `zone`/`site` decide what each file declares (mirroring what
//! the planner plans), `render` writes YAML the loader reads back to the same canonical state,
//! `write` puts the files in place without overwriting anything unless forced.

// Deliberately public: the adoption baseline, and the readers of other tools' files (one folder
// per reader; `from_files::Reader` is the seam a new one implements).
pub mod baseline;
mod ephemeral;
mod fetch;
pub mod from_files;
mod probe;
mod render;
mod sets;
mod site;
mod together;
mod write;
mod yaml;
mod zone;

use std::path::PathBuf;

pub(crate) use ephemeral::EPHEMERAL;
pub use ephemeral::Ephemeral;
pub use fetch::{Fetched, Selection, fetch};
pub use probe::{ProbeShapeError, probe_found_hosted, zone_from_probe};
pub use render::{SCHEMA_FILE, render_site, render_zone};
pub use sets::{SetFile, SetRecord, extract_sets, render_set};
pub use site::SiteFile;
pub use write::{OutFile, Outside, write_files};
pub use zone::{
    Imported, KeptOut, LeftOut, NsChoice, SourceIgnore, Unrepresentable, ZoneFile, build_zone,
};

use crate::dns::ZoneName;
use dnscron_api::ApiError;
use dnscron_api::untrusted::Untrusted;

#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("the account has no DNS zone `{zone}` (GET /dns/{zone}/records answered 404)")]
    NoSuchZone { zone: ZoneName },
    #[error(
        "the account has no site `{}` (it is not in GET /sites)",
        Untrusted(slug)
    )]
    NoSuchSite { slug: String },
    #[error("reading {what} failed: {source}")]
    Api {
        what: String,
        #[source]
        source: Box<ApiError>,
    },
    #[error(transparent)]
    ProbeShape(#[from] ProbeShapeError),
    #[error("{} already exist{}: {}", plural_files(paths.len()), if paths.len() == 1 { "s" } else { "" }, paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "))]
    Exists { paths: Vec<PathBuf> },
    /// A name from the server that can't become a file name; checked before anything is read
    /// further or written.
    #[error(
        "the site slug `{}` can't be a file name ({}); nothing was written",
        Untrusted(slug),
        Untrusted(reason)
    )]
    UnsafeSlug { slug: String, reason: String },
    /// A file whose place, symlinks resolved, is not under the output directory.
    #[error(
        "refusing to write {}: {}; nothing was written",
        path.display(),
        why
    )]
    OutsideOut { path: PathBuf, why: Outside },
    #[error("writing {path}: {source}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

fn plural_files(n: usize) -> &'static str {
    if n == 1 { "the file" } else { "the files" }
}
