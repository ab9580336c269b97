//! The first day (docs/ci.md, "Start green"): what a team adopting dnscron takes as it finds it.
//! Every error finding the drift job would alert on today becomes an `accept:` entry of the file
//! that declares what it is about, and everything the account holds that no file declares goes
//! into an `unmanaged:` document, so the drift job starts at exit 0 and every later alert is news.
//!
//! The files are the team's, comments and all: entries are added as text at the end of the
//! zone's or site's `accept:` list (or as a new `accept:` key at the end of the document), never
//! by writing the document again through serde.

use std::collections::BTreeSet;
use std::path::PathBuf;

use chrono::NaiveDate;

use crate::config::model::Desired;
use crate::plan::{Figure, Finding, FindingCode, TargetKind};

/// The reason every entry this module writes gives; a reviewer sees it in the pull request.
pub const ADOPTION_REASON: &str = "accepted at adoption";

/// How long an acceptance written at adoption holds (its `until`, docs/health.md): long enough
/// to plan the fixes, short enough that nothing taken on the first day is accepted for good.
pub const ADOPTION_DAYS: u64 = 90;

/// One finding to accept: its code and the name `accept:` matches it by, the figure it measures
/// today and the last day the acceptance holds.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct AcceptEntry {
    pub finding: FindingCode,
    pub name: String,
    pub figure: Option<Figure>,
    pub until: NaiveDate,
}

/// The entries to add to one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileAcceptances {
    pub file: PathBuf,
    /// The zone or site the entries belong to, as the head line of a finding names it.
    pub target: String,
    pub entries: Vec<AcceptEntry>,
}

/// What the account holds that no file declares, by kind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Undeclared {
    pub zones: Vec<String>,
    pub domains: Vec<String>,
    pub sites: Vec<String>,
}

impl Undeclared {
    pub fn is_empty(&self) -> bool {
        self.zones.is_empty() && self.domains.is_empty() && self.sites.is_empty()
    }
}

/// What the first day writes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Baseline {
    pub accept: Vec<FileAcceptances>,
    pub unmanaged: Undeclared,
    /// Findings an `accept:` entry matched until its `until` passed or the finding got worse
    /// than it records: renewing it is a decision, not a first-day default, so they are left to
    /// the reader.
    pub expired: Vec<Finding>,
}

/// The baseline of a whole-account plan's `findings` over `desired`, made `today`: each entry
/// records the finding's figure and holds [`ADOPTION_DAYS`] (an expiry's until the day before
/// the domain expires).
pub fn baseline(desired: &Desired, findings: &[Finding], today: NaiveDate) -> Baseline {
    let mut out = Baseline::default();
    for f in findings.iter().filter(|f| f.needs_attention()) {
        if f.code.is_undeclared() {
            undeclared(&mut out.unmanaged, f);
            continue;
        }
        let entry = AcceptEntry {
            finding: f.code,
            name: accepted_name(f),
            figure: f.figure,
            until: until(today, f.figure),
        };
        if has_entry(desired, f, &entry) {
            out.expired.push(f.clone());
            continue;
        }
        let Some((file, target)) = declaring_file(desired, f) else {
            continue;
        };
        match out.accept.iter_mut().find(|a| a.file == file) {
            Some(a) if !a.entries.contains(&entry) => a.entries.push(entry),
            Some(_) => {}
            None => out.accept.push(FileAcceptances {
                file,
                target,
                entries: vec![entry],
            }),
        }
    }
    for a in &mut out.accept {
        a.entries.sort();
    }
    for list in [
        &mut out.unmanaged.zones,
        &mut out.unmanaged.domains,
        &mut out.unmanaged.sites,
    ] {
        let unique: BTreeSet<String> = list.drain(..).collect();
        list.extend(unique);
    }
    out
}

/// The last day an entry written `today` holds.
fn until(today: NaiveDate, figure: Option<Figure>) -> NaiveDate {
    let days = today + chrono::Days::new(ADOPTION_DAYS);
    match figure {
        Some(Figure::Expires(day)) => day.pred_opt().unwrap_or(day).min(days),
        Some(Figure::Lookups(_) | Figure::DmarcPolicy(_) | Figure::KeyBits(_)) | None => days,
    }
}

fn undeclared(out: &mut Undeclared, f: &Finding) {
    let list = if f.code == FindingCode::ZoneUndeclared {
        &mut out.zones
    } else if f.code == FindingCode::DomainUndeclared {
        &mut out.domains
    } else {
        &mut out.sites
    };
    list.push(f.target.name.clone());
}

/// The name an `accept:` entry matches the finding by: its record set's owner as the files write
/// it, else `@` (the zone's, domain's or site's own findings).
fn accepted_name(f: &Finding) -> String {
    f.record
        .as_ref()
        .map_or_else(|| "@".to_string(), |r| r.name.clone())
}

/// The file that declares what the finding is about, and that zone or site as findings name it.
fn declaring_file(desired: &Desired, f: &Finding) -> Option<(PathBuf, String)> {
    match f.target.kind {
        TargetKind::Zone | TargetKind::Domain => desired
            .zones
            .iter()
            .find(|z| z.zone.as_str() == f.target.name)
            .map(|z| (z.location.file.to_path_buf(), format!("zone {}", z.zone))),
        TargetKind::Site => desired
            .sites
            .iter()
            .find(|s| s.slug == f.target.name)
            .map(|s| (s.location.file.to_path_buf(), format!("site {}", s.slug))),
    }
}

/// Whether the files already hold an entry for this finding (one past its `until`).
fn has_entry(desired: &Desired, f: &Finding, entry: &AcceptEntry) -> bool {
    let same =
        |a: &crate::config::model::AcceptSpec| a.finding == entry.finding && a.name == entry.name;
    match f.target.kind {
        TargetKind::Zone | TargetKind::Domain => desired
            .zones
            .iter()
            .filter(|z| z.zone.as_str() == f.target.name)
            .any(|z| z.accept.iter().any(same)),
        TargetKind::Site => desired
            .sites
            .iter()
            .filter(|s| s.slug == f.target.name)
            .any(|s| s.accept.iter().any(same)),
    }
}

/// Why entries could not be added to a file as text; the reader adds them by hand.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EditRefusal {
    #[error("the file holds more than one YAML document")]
    SeveralDocuments,
    #[error("its `accept:` is written in flow style (`[...]`) on line {line}")]
    FlowList { line: usize },
}

/// `text` with `entries` added to its top-level `accept:` list, or with an `accept:` key added at
/// the end when it has none. Everything else in the text is kept byte for byte.
pub fn with_acceptances(text: &str, entries: &[AcceptEntry]) -> Result<String, EditRefusal> {
    let lines: Vec<&str> = text.lines().collect();
    let documents = lines
        .iter()
        .filter(|l| l.starts_with("---") || l.starts_with("..."))
        .count();
    let starts_with_marker = lines
        .iter()
        .find(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .is_some_and(|l| l.starts_with("---"));
    if documents > usize::from(starts_with_marker) {
        return Err(EditRefusal::SeveralDocuments);
    }
    let Some(key) = lines.iter().position(|l| is_key(l, "accept")) else {
        let mut out = text.to_string();
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str("accept:\n");
        out.push_str(&entry_lines(entries, "  "));
        return Ok(out);
    };
    let rest = lines[key]["accept:".len()..].trim();
    if !rest.is_empty() && !rest.starts_with('#') {
        return Err(EditRefusal::FlowList { line: key + 1 });
    }
    // The list runs while lines are indented, start a `-` item at column 0, are blank or are
    // comments; new entries go after its last item line, with its indentation.
    let mut last = key;
    let mut indent = "  ".to_string();
    for (i, line) in lines.iter().enumerate().skip(key + 1) {
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if !(line.starts_with(' ') || line.starts_with('-')) {
            break;
        }
        if trimmed.starts_with('-') && last == key {
            indent = line[..line.len() - trimmed.len()].to_string();
        }
        last = i;
    }
    let mut out: Vec<String> = lines[..=last].iter().map(|l| l.to_string()).collect();
    out.push(
        entry_lines(entries, &indent)
            .trim_end_matches('\n')
            .to_string(),
    );
    out.extend(lines[last + 1..].iter().map(|l| l.to_string()));
    let mut joined = out.join("\n");
    if text.ends_with('\n') {
        joined.push('\n');
    }
    Ok(joined)
}

fn is_key(line: &str, key: &str) -> bool {
    line.strip_prefix(key)
        .is_some_and(|rest| rest.starts_with(':'))
}

fn entry_lines(entries: &[AcceptEntry], indent: &str) -> String {
    entries
        .iter()
        .map(|e| {
            let value = e
                .figure
                // A count, a day or a policy word: each a plain YAML scalar.
                .map(|f| format!("{indent}  value: {}\n", f.value()))
                .unwrap_or_default();
            format!(
                "{indent}- finding: {}\n{indent}  name: {}\n{indent}  reason: {ADOPTION_REASON}\n{indent}  until: {}\n{value}",
                e.finding,
                quoted(&e.name),
                e.until.format("%Y-%m-%d")
            )
        })
        .collect()
}

/// A double-quoted YAML scalar: JSON's string escaping is valid YAML, and `@` or `*` would not
/// be a plain scalar.
fn quoted(text: &str) -> String {
    serde_json::Value::String(text.to_string()).to_string()
}

/// An `unmanaged:` document listing `undeclared`, each with the adoption reason; it adds up with
/// any other `unmanaged:` document of the folder.
pub fn unmanaged_document(undeclared: &Undeclared) -> String {
    let mut out = String::from("unmanaged:\n");
    for (key, names) in [
        ("zones", &undeclared.zones),
        ("domains", &undeclared.domains),
        ("sites", &undeclared.sites),
    ] {
        if names.is_empty() {
            continue;
        }
        out.push_str(&format!("  {key}:\n"));
        for name in names {
            out.push_str(&format!(
                "    - {{ name: {}, reason: {ADOPTION_REASON} }}\n",
                quoted(name)
            ));
        }
    }
    out
}

#[cfg(test)]
#[path = "baseline_tests.rs"]
mod tests;
