//! BIND zone files (RFC 1035 §5 master files, RFC 2308 `$TTL`, BIND's `$GENERATE`) → located
//! records.
//!
//! Hand-written rather than hickory-proto's `serialize::txt::Parser`: that parser stops at the
//! first error, keeps no line numbers (a record it can't import could not be named by its
//! place), has no `$GENERATE`, and reads `$INCLUDE` anywhere on the disk. Here every problem of
//! a file is collected with its line and column, every record keeps its file and line, and an
//! `$INCLUDE` must stay inside the folder of the file that names it.

mod generate;
mod lexer;
mod problem;
mod rdata;
mod reader;
mod text;
mod ttl;

use std::path::{Path, PathBuf};

use crate::dns::ZoneName;

pub use problem::{ProblemKind, SyntaxError};

use super::{FromFile, assemble};
use reader::Reader;

#[derive(Debug, thiserror::Error)]
pub enum BindError {
    #[error("reading {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Every problem of the file and its includes, in order.
    #[error("{} has {} problem{}", path.display(), errors.len(), if errors.len() == 1 { "" } else { "s" })]
    Syntax {
        path: PathBuf,
        errors: Vec<SyntaxError>,
    },
    /// Neither an origin was given nor does the file have an `$ORIGIN` or an SOA record.
    #[error("{} names no zone: it has no $ORIGIN and no SOA record", path.display())]
    NoOrigin { path: PathBuf },
    #[error("{}: the zone `{origin}` is not a domain name that can be imported: {reason}", path.display())]
    BadZone {
        path: PathBuf,
        origin: String,
        reason: String,
    },
}

/// Reads the zone file `path` and what it includes. `origin` is the zone's name when the caller
/// knows it; otherwise the file's first `$ORIGIN`, else its SOA owner.
pub fn read_bind(path: &Path, origin: Option<&ZoneName>) -> Result<FromFile, BindError> {
    let read_error = |source| BindError::Read {
        path: path.to_path_buf(),
        source,
    };
    let canonical = path.canonicalize().map_err(read_error)?;
    let bytes = std::fs::read(&canonical).map_err(read_error)?;
    let given = origin.map(|z| format!("{}.", z.as_str()));
    let mut reader = Reader::new(given.clone());
    match String::from_utf8(bytes) {
        Ok(text) => reader.read_text(&canonical, path, &text),
        Err(_) => reader.errors.push(SyntaxError {
            file: path.to_path_buf(),
            line: 1,
            col: 1,
            kind: ProblemKind::NotUtf8,
        }),
    }
    let Some(zone_text) = given.or(reader.found_origin.clone()) else {
        return Err(BindError::NoOrigin {
            path: path.to_path_buf(),
        });
    };
    if !reader.errors.is_empty() {
        return Err(BindError::Syntax {
            path: path.to_path_buf(),
            errors: reader.errors,
        });
    }
    let zone =
        ZoneName::parse(zone_text.trim_end_matches('.')).map_err(|e| BindError::BadZone {
            path: path.to_path_buf(),
            origin: zone_text.clone(),
            reason: e.to_string(),
        })?;
    Ok(assemble(path, &zone, reader.records))
}
