//! octoDNS configurations → located records: the config's `providers:` (the YAML provider's
//! `directory`, `default_ttl`, `enforce_order`, `split_extension`, `escaped_semicolons`) and
//! `zones:` (each zone's `sources` and `targets`), then each zone's files.
//!
//! The YAML is read through the crate's one YAML path (`config::documents_presented`), which
//! gives every node its line and keeps its tag for `!include`. The provider's `directory` is
//! relative to the working directory, as octoDNS reads it. `enforce_order` only makes octoDNS
//! refuse keys out of order; the order means nothing to what the zone holds, so it is read and
//! not enforced. `octodns.excluded`/`included` are judged against the zone's `targets`: a record
//! that would reach none of them is left out.

mod problem;
mod records;
mod tree;

use std::path::{Path, PathBuf};

use crate::dns::ZoneName;

pub use problem::{Problem, ProblemKind};

use super::{FromFile, assemble};
use records::Reading;
use tree::{Item, Val};

/// octoDNS's own default TTL for the YAML provider.
const OCTODNS_DEFAULT_TTL: u32 = 3600;

#[derive(Debug, thiserror::Error)]
pub enum OctodnsError {
    #[error("reading {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Every problem of the configuration and its zone files, in order.
    #[error("{} has {} problem{}", path.display(), problems.len(), if problems.len() == 1 { "" } else { "s" })]
    Invalid {
        path: PathBuf,
        problems: Vec<Problem>,
    },
}

/// Reads the configuration `path` and the zone files of every zone it names, one `FromFile`
/// per zone, in the configuration's order.
pub fn read_octodns(path: &Path) -> Result<Vec<FromFile>, OctodnsError> {
    let canonical = path.canonicalize().map_err(|source| OctodnsError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let invalid = |problems| OctodnsError::Invalid {
        path: path.to_path_buf(),
        problems,
    };
    let config = tree::load(&canonical, path, &mut Vec::new()).map_err(|p| invalid(vec![p]))?;
    let mut problems = Vec::new();
    let mut read = Vec::new();
    let zones = match config.get("zones") {
        Some(Item {
            value: Val::Map(zones),
            ..
        }) => zones.as_slice(),
        Some(other) => {
            return Err(invalid(vec![other.problem(ProblemKind::Expected {
                key: "zones".into(),
                want: "a mapping of zone names",
                found: other.kind(),
            })]));
        }
        None => {
            return Err(invalid(vec![
                config.problem(ProblemKind::Missing { key: "zones" }),
            ]));
        }
    };
    for (name, zone) in zones {
        match read_zone(&config, name, zone) {
            Ok(from) => read.push(from),
            Err(mut found) => problems.append(&mut found),
        }
    }
    if problems.is_empty() {
        Ok(read)
    } else {
        Err(invalid(problems))
    }
}

/// One zone of `zones:`: the records of every YAML source it names.
fn read_zone(config: &Item, name: &str, zone: &Item) -> Result<FromFile, Vec<Problem>> {
    let parsed = ZoneName::parse(name.trim_end_matches('.')).map_err(|e| {
        vec![zone.problem(ProblemKind::BadZone {
            zone: name.into(),
            reason: e.to_string(),
        })]
    })?;
    let apex = format!("{}.", parsed.as_str());
    let targets = names(zone.get("targets"));
    let mut records = Vec::new();
    let mut problems = Vec::new();
    let mut first_file = None;
    for source in names(zone.get("sources")) {
        let provider = match yaml_provider(config, zone, &source, &targets) {
            Ok(p) => p,
            Err(p) => {
                problems.push(p);
                continue;
            }
        };
        for file in provider.files(&apex, zone, &mut problems) {
            first_file.get_or_insert_with(|| file.clone());
            match tree::load(&file, &file, &mut Vec::new()) {
                Ok(item) => {
                    records::records(&item, &apex, &provider.reading, &mut records, &mut problems)
                }
                Err(p) => problems.push(p),
            }
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let source = first_file.unwrap_or_else(|| PathBuf::from(name));
    Ok(assemble(&source, &parsed, records))
}

/// The names a `sources:`/`targets:` list holds.
fn names(item: Option<&Item>) -> Vec<String> {
    match item.map(|i| &i.value) {
        Some(Val::Seq(items)) => items
            .iter()
            .filter_map(|i| i.scalar().map(str::to_string))
            .collect(),
        Some(Val::Scalar(one)) => vec![one.clone()],
        Some(Val::Null | Val::Map(_)) | None => Vec::new(),
    }
}

struct YamlProvider {
    directory: PathBuf,
    split_extension: Option<String>,
    reading: Reading,
}

fn yaml_provider(
    config: &Item,
    zone: &Item,
    name: &str,
    targets: &[String],
) -> Result<YamlProvider, Problem> {
    let provider = config
        .get("providers")
        .and_then(|p| p.get(name))
        .ok_or_else(|| zone.problem(ProblemKind::UnknownProvider { name: name.into() }))?;
    let class = provider.get("class").and_then(Item::scalar).unwrap_or("");
    if !class.ends_with("YamlProvider") {
        return Err(provider.problem(ProblemKind::NotYamlProvider {
            name: name.into(),
            class: class.into(),
        }));
    }
    let directory = provider
        .get("directory")
        .and_then(Item::scalar)
        .ok_or_else(|| provider.problem(ProblemKind::Missing { key: "directory" }))?;
    let default_ttl = match provider.get("default_ttl") {
        Some(ttl) => ttl.scalar().and_then(|t| t.parse().ok()).ok_or_else(|| {
            ttl.problem(ProblemKind::Expected {
                key: "default_ttl".into(),
                want: "seconds",
                found: ttl.kind(),
            })
        })?,
        None => OCTODNS_DEFAULT_TTL,
    };
    let flag = |key: &str| provider.get(key).and_then(Item::scalar);
    let split_extension = flag("split_extension")
        .filter(|e| *e != "false" && !e.is_empty())
        .map(str::to_string);
    Ok(YamlProvider {
        directory: PathBuf::from(directory),
        split_extension,
        reading: Reading {
            default_ttl,
            escaped_semicolons: flag("escaped_semicolons") != Some("false"),
            targets: targets.to_vec(),
        },
    })
}

impl YamlProvider {
    /// The zone's files as octoDNS finds them: a split folder's `*.yaml` (sorted), then
    /// `<directory>/<zone>.yaml`; none at all is a problem.
    fn files(&self, apex: &str, zone: &Item, problems: &mut Vec<Problem>) -> Vec<PathBuf> {
        let mut files = Vec::new();
        if let Some(ext) = &self.split_extension {
            let folder = self
                .directory
                .join(format!("{}{ext}", apex.trim_end_matches('.')));
            if let Ok(entries) = std::fs::read_dir(&folder) {
                let mut split: Vec<PathBuf> = entries
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
                    .collect();
                split.sort();
                files.extend(split);
            }
        }
        let zone_file = self.directory.join(format!("{apex}yaml"));
        if zone_file.is_file() {
            files.push(zone_file.clone());
        }
        if files.is_empty() {
            problems.push(zone.problem(ProblemKind::ZoneFileMissing {
                zone: apex.into(),
                path: zone_file,
            }));
        }
        files
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;

/// Exposed for the tests beside the reader.
#[cfg(test)]
fn source_records(zone_file: &Path, apex: &str, reading: &Reading) -> Vec<super::SourceRecord> {
    let item = tree::load(zone_file, zone_file, &mut Vec::new()).unwrap();
    let mut out = Vec::new();
    let mut problems = Vec::new();
    records::records(&item, apex, reading, &mut out, &mut problems);
    assert!(problems.is_empty(), "{problems:?}");
    out
}
