//! octoDNS configurations → located records: the config's `providers:` (the YAML provider's
//! `directory`, `default_ttl`, `enforce_order`, `split_extension`, `escaped_semicolons`) and
//! `zones:` (each zone's `sources` and `targets`), then each zone's files.
//!
//! The YAML is read through the crate's one YAML path (`config::documents_presented`), which
//! gives every node its line and keeps its tag for `!include`. The provider's `directory` is
//! relative to the working directory, as octoDNS reads it. `enforce_order` only makes octoDNS
//! refuse keys out of order; the order means nothing to what the zone holds, so it is read and
//! not enforced.
//!
//! What octoDNS means, checked against octoDNS 1.22's source: the zone's `targets:` are the
//! providers dnscron replaces. A record octoDNS's planner (`Zone.changes`) skips on them
//! (`octodns.ignored`, or `included`/`excluded` that leave them out) is skipped by name and type
//! whatever the live records hold, so it becomes an `ignore:` rule by name and type. Every
//! provider option either changes how the zone is read, and is reproduced (`split_extension`,
//! `disable_zonefile`, `shared_filename`, `ignore_missing_zones`, `populate_should_replace`,
//! `escaped_semicolons`, the SplitYamlProvider's `extension`), or changes nothing a source reads
//! (`NO_EFFECT_ON_READING`); any other is refused, as octoDNS refuses it. Processors are
//! refused: their effect is not in the files.

mod problem;
mod records;
mod tree;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::dns::ZoneName;

pub use problem::{Problem, ProblemKind};

use super::{SourceRecord, SourceZone};
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

/// octoDNS's reader: a configuration and the zone files of every zone it names, one zone per
/// entry of its `zones:`, in its order.
pub struct Octodns;

impl super::Reader for Octodns {
    type Error = OctodnsError;

    fn zones(&self, file: &Path) -> Result<Vec<SourceZone>, OctodnsError> {
        read_config(file)
    }
}

fn read_config(path: &Path) -> Result<Vec<SourceZone>, OctodnsError> {
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

/// One zone of `zones:`: the records of every YAML source it names. An `alias:` zone holds
/// the records of the zone it names, pushed to that zone's targets (as octoDNS's manager
/// copies them).
fn read_zone(config: &Item, name: &str, zone: &Item) -> Result<SourceZone, Vec<Problem>> {
    let parsed = ZoneName::parse(name.trim_end_matches('.')).map_err(|e| {
        vec![zone.problem(ProblemKind::BadZone {
            zone: name.into(),
            reason: e.to_string(),
        })]
    })?;
    let apex = format!("{}.", parsed.as_str());
    let (from, from_apex) = match zone.get("alias").and_then(Item::scalar) {
        Some(aliased) => {
            let found = config
                .get("zones")
                .and_then(|z| z.get(aliased))
                .filter(|z| z.get("alias").is_none())
                .ok_or_else(|| {
                    vec![zone.problem(ProblemKind::BadAlias {
                        zone: aliased.into(),
                    })]
                })?;
            (found, format!("{}.", aliased.trim_end_matches('.')))
        }
        None => (zone, apex.clone()),
    };
    refuse_processors(config, from)?;
    let sources = from
        .get("sources")
        .ok_or_else(|| vec![from.problem(ProblemKind::Missing { key: "sources" })])?;
    let targets = names(from.get("targets"));
    let mut records = Vec::new();
    let mut problems = Vec::new();
    let mut first_file = None;
    let mut defined = Defined::default();
    for source in names(Some(sources)) {
        // octoDNS names its derived reverse zones' source `auto-arpa` when the manager says
        // `auto_arpa`; without it the name is an unknown provider, as octoDNS says too.
        if source == "auto-arpa" && manager_flag(config, "auto_arpa").is_some() {
            let at = match &sources.value {
                Val::Seq(items) => items.iter().find(|i| i.scalar() == Some("auto-arpa")),
                Val::Null | Val::Scalar(_) | Val::Map(_) => None,
            };
            problems.push(at.unwrap_or(sources).problem(ProblemKind::AutoArpa));
            continue;
        }
        let provider = match yaml_provider(config, from, &source, &targets) {
            Ok(p) => p,
            Err(p) => {
                problems.push(p);
                continue;
            }
        };
        for file in provider.files(&from_apex, from, &mut problems) {
            first_file.get_or_insert_with(|| file.clone());
            match tree::load(&file, &file, &mut Vec::new()) {
                Ok(item) => {
                    let (mut read, mut starts) = (Vec::new(), Vec::new());
                    records::records(
                        &item,
                        &apex,
                        &provider.reading,
                        &mut read,
                        &mut starts,
                        &mut problems,
                    );
                    defined.add(&mut records, read, &starts, provider.replace, &mut problems);
                }
                Err(p) => problems.push(p),
            }
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let source = first_file.unwrap_or_else(|| PathBuf::from(name));
    Ok(SourceZone::new(&source, parsed, records))
}

/// The manager's option `key` when Python's truth takes it as set.
fn manager_flag<'a>(config: &'a Item, key: &str) -> Option<&'a Item> {
    config
        .get("manager")
        .and_then(|m| m.get(key))
        .filter(|v| records::truthy(v))
}

/// Processors (a zone's, or the manager's for every zone) and the manager's `include_meta`
/// change what octoDNS pushes in ways the files alone don't say. The manager's `auto_arpa`
/// on its own changes nothing a forward zone holds (it only collects their A and AAAA
/// records): only a zone that reads its source `auto-arpa` is refused.
fn refuse_processors(config: &Item, zone: &Item) -> Result<(), Vec<Problem>> {
    if let Some(meta) = manager_flag(config, "include_meta") {
        return Err(vec![meta.problem(ProblemKind::IncludeMeta)]);
    }
    let manager = config.get("manager");
    let found = [
        zone.get("processors"),
        manager.and_then(|m| m.get("processors")),
        manager.and_then(|m| m.get("post_processors")),
    ];
    let problems: Vec<Problem> = found
        .into_iter()
        .flatten()
        .filter(|p| {
            !matches!(&p.value, Val::Null) && !matches!(&p.value, Val::Seq(s) if s.is_empty())
        })
        .map(|p| p.problem(ProblemKind::Processors))
        .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

/// The records of one name and type already read, by owner and type: octoDNS refuses a second
/// one (`DuplicateRecordException`), unless the provider adding it says
/// `populate_should_replace`, when it replaces the first.
#[derive(Default)]
struct Defined {
    first: HashMap<(String, String), (PathBuf, usize)>,
}

impl Defined {
    /// Adds one file's records (`starts`: where each record's values begin in `read`).
    fn add(
        &mut self,
        records: &mut Vec<SourceRecord>,
        read: Vec<SourceRecord>,
        starts: &[usize],
        replace: bool,
        problems: &mut Vec<Problem>,
    ) {
        let mut replaced: Vec<(String, String)> = Vec::new();
        let mut added = Vec::with_capacity(read.len());
        let mut values = read.into_iter().enumerate().peekable();
        for (i, start) in starts.iter().enumerate() {
            let end = starts.get(i + 1).copied().unwrap_or(usize::MAX);
            let mut record = Vec::new();
            while let Some((_, value)) = values.next_if(|(at, _)| *at >= *start && *at < end) {
                record.push(value);
            }
            let Some(first) = record.first() else {
                continue;
            };
            let key = (first.owner.clone(), first.rtype.clone());
            match self.first.get(&key) {
                Some((file, line)) if !replace => {
                    problems.push(Problem {
                        file: first.at.file.clone(),
                        line: first.at.line,
                        col: 1,
                        kind: ProblemKind::DuplicateRecord {
                            name: first.owner.clone(),
                            rtype: first.rtype.clone(),
                            file: file.clone(),
                            line: *line,
                        },
                    });
                    continue;
                }
                Some(_) => replaced.push(key.clone()),
                None => {}
            }
            let at = (first.at.file.clone(), first.at.line);
            if replace {
                added.retain(|r: &SourceRecord| r.owner != key.0 || r.rtype != key.1);
            }
            self.first.insert(key, at);
            added.append(&mut record);
        }
        if !replaced.is_empty() {
            records.retain(|r| !replaced.contains(&(r.owner.clone(), r.rtype.clone())));
        }
        records.append(&mut added);
    }
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
    disable_zonefile: bool,
    shared_filename: Option<String>,
    ignore_missing_zones: bool,
    /// `populate_should_replace`.
    replace: bool,
    reading: Reading,
}

/// The options of octoDNS 1.22's YamlProvider (and its BaseProvider) that change nothing a
/// zone holds when it is read as a source: ordering checks, how it writes files, and how it
/// behaves as a target.
const NO_EFFECT_ON_READING: [&str; 9] = [
    "enforce_order",
    "order_mode",
    "split_catchall",
    "supports_root_ns",
    "apply_disabled",
    "update_pcent_threshold",
    "delete_pcent_threshold",
    "strict_supports",
    "root_ns_warnings",
];

/// The options whose meaning the reader reproduces.
const READ: [&str; 9] = [
    "class",
    "directory",
    "default_ttl",
    "split_extension",
    "escaped_semicolons",
    "disable_zonefile",
    "shared_filename",
    "ignore_missing_zones",
    "populate_should_replace",
];

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
    // The deprecated SplitYamlProvider: `extension` (default `.`) is its split extension, and
    // it never reads the zone file.
    let split_class = class.ends_with("SplitYamlProvider");
    if !class.ends_with("YamlProvider") {
        return Err(provider.problem(ProblemKind::NotYamlProvider {
            name: name.into(),
            class: class.into(),
        }));
    }
    if let Val::Map(entries) = &provider.value {
        for (key, value) in entries {
            let known = READ.contains(&key.as_str())
                || NO_EFFECT_ON_READING.contains(&key.as_str())
                || (split_class && key == "extension");
            if !known {
                return Err(value.problem(ProblemKind::Unsupported {
                    key: key.clone(),
                    why: "is not an option of octoDNS 1.22's YamlProvider, which refuses it",
                }));
            }
        }
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
    let on = |key: &str| {
        flag(key).is_some_and(|v| {
            matches!(
                v,
                "true" | "True" | "TRUE" | "yes" | "Yes" | "YES" | "on" | "On" | "ON"
            )
        })
    };
    let split_extension = if split_class {
        Some(flag("extension").unwrap_or(".").to_string())
    } else {
        flag("split_extension")
            .filter(|e| !matches!(*e, "false" | "False" | "FALSE" | "null" | "~" | ""))
            .map(str::to_string)
    };
    Ok(YamlProvider {
        directory: PathBuf::from(directory),
        split_extension,
        disable_zonefile: split_class || on("disable_zonefile"),
        shared_filename: flag("shared_filename")
            .filter(|f| !matches!(*f, "false" | "False" | "FALSE" | "null" | "~" | ""))
            .map(str::to_string),
        ignore_missing_zones: on("ignore_missing_zones"),
        replace: on("populate_should_replace"),
        reading: Reading {
            default_ttl,
            escaped_semicolons: !matches!(
                flag("escaped_semicolons"),
                Some("false" | "False" | "FALSE" | "no" | "No" | "NO" | "off" | "Off" | "OFF")
            ),
            targets: targets.to_vec(),
        },
    })
}

impl YamlProvider {
    /// The zone's files as octoDNS's `populate` finds them: a split folder's `*.yaml`, the
    /// zone file `<directory>/<zone>.yaml` unless `disable_zonefile`, the `shared_filename`,
    /// all sorted as text; none at all is a problem unless `ignore_missing_zones`.
    fn files(&self, apex: &str, zone: &Item, problems: &mut Vec<Problem>) -> Vec<PathBuf> {
        let mut files = Vec::new();
        if let Some(ext) = &self.split_extension {
            let folder = self
                .directory
                .join(format!("{}{ext}", apex.trim_end_matches('.')));
            if let Ok(entries) = std::fs::read_dir(&folder) {
                files.extend(
                    entries
                        .filter_map(|e| e.ok().map(|e| e.path()))
                        .filter(|p| p.to_string_lossy().ends_with(".yaml")),
                );
            }
        }
        let zone_file = self.directory.join(format!("{apex}yaml"));
        if !self.disable_zonefile && zone_file.is_file() {
            files.push(zone_file.clone());
        }
        let found_any = !files.is_empty();
        if let Some(shared) = &self.shared_filename {
            files.push(self.directory.join(shared));
        }
        if !found_any && self.shared_filename.is_none() && !self.ignore_missing_zones {
            problems.push(zone.problem(ProblemKind::ZoneFileMissing {
                zone: apex.into(),
                path: zone_file,
            }));
        }
        // Python sorts the paths as strings: `example.com./www.yaml` before `example.com.yaml`.
        files.sort_by(|a, b| {
            a.as_os_str()
                .as_encoded_bytes()
                .cmp(b.as_os_str().as_encoded_bytes())
        });
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
    let (mut out, mut starts, mut problems) = (Vec::new(), Vec::new(), Vec::new());
    records::records(&item, apex, reading, &mut out, &mut starts, &mut problems);
    assert!(problems.is_empty(), "{problems:?}");
    out
}
