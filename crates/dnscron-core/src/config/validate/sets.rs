//! Record sets: `record_set:` documents, and the zones that `use:` them. A set's records are
//! checked once per zone that uses it (its `{zone}` and relative names depend on the zone), as
//! if declared in that zone, but every problem points into the set's file.

use std::collections::HashMap;
use std::sync::Arc;

use super::{Checker, SourcedZone, zone};
use crate::config::diagnostics::{Diagnostic, Diagnostics, SourceFile};
use crate::config::model::{Location, ZoneSpec};
use crate::config::raw;
use crate::config::suggest::did_you_mean;
use crate::config::tree::Pos;

/// Stands for the using zone's name (no final dot) in a set record's content.
pub(crate) const ZONE_PLACEHOLDER: &str = "{zone}";

/// Every set declared so far, by name.
#[derive(Default)]
pub(super) struct Sets {
    by_name: HashMap<String, SetEntry>,
    /// Uses of sets no file declares, in file order: reported once per set, at its first use,
    /// when every zone is expanded (a missing `sets/` folder is one problem, not one per zone).
    unknown: Vec<UnknownUse>,
}

struct UnknownUse {
    set: String,
    zone: String,
    source: Arc<SourceFile>,
    pos: Pos,
}

/// Zones named in the message about an unknown set; the rest are counted.
const UNKNOWN_USES_NAMED: usize = 3;

struct SetEntry {
    name: Arc<str>,
    source: Arc<SourceFile>,
    pos: Pos,
    records: Vec<raw::Record>,
    used: bool,
}

/// One set a zone uses, as `zone::check_zone` reads it.
pub(super) struct UsedSet<'a> {
    pub name: &'a Arc<str>,
    pub source: &'a Arc<SourceFile>,
    pub records: &'a [raw::Record],
}

impl Sets {
    pub(super) fn add(&mut self, c: &mut Checker<'_>, set: raw::RecordSetDoc) {
        let raw::RecordSetDoc {
            record_set: name,
            records,
            ..
        } = set;
        let records = records.unwrap_or_default();
        for r in &records {
            if let Some(o) = &r.override_sets {
                let d = c.error(o.pos, "`override` is for a zone's own records, not a set's");
                d.hint = Some(
                    "remove it here; to replace this record in one zone, write the zone's own \
                     record with `override: true`"
                        .into(),
                );
            }
        }
        if !is_set_name(&name.value) {
            let d = c.error(
                name.pos,
                format!("`{}` is not a record set name", name.value),
            );
            d.hint = Some("use letters, digits, `-` and `_`, e.g. `mail`".into());
            return;
        }
        if let Some(first) = self.by_name.get(&name.value) {
            let first = Location {
                file: first.source.path.clone(),
                line: first.pos.line as usize,
                col: first.pos.col as usize,
            };
            let d = c.error(
                name.pos,
                format!(
                    "record set `{}` is declared twice: here and at {first}",
                    name.value
                ),
            );
            d.label = Some("second declaration".into());
            d.hint = Some("keep one declaration of the set and merge the two".into());
            return;
        }
        let entry = SetEntry {
            name: name.value.as_str().into(),
            source: Arc::clone(&c.source),
            pos: name.pos,
            records,
            used: false,
        };
        self.by_name.insert(name.value, entry);
    }

    /// Checks a zone that uses sets, with their records in it. `None` when anything is wrong.
    pub(super) fn expand(
        &mut self,
        zone: SourcedZone,
        diags: &mut Diagnostics,
        warnings: &mut Diagnostics,
    ) -> Option<ZoneSpec> {
        let SourcedZone { source, mut doc } = zone;
        let uses = doc.use_sets.take().unwrap_or_default();
        let mut c = Checker { diags, source };
        let mut ok = true;
        let mut listed: Vec<&str> = Vec::with_capacity(uses.len());
        for item in &uses {
            let name = item.value.as_str();
            if listed.contains(&name) {
                let d = c.error(
                    item.pos,
                    format!("record set `{name}` is listed twice in `use:`"),
                );
                d.hint = Some("list each set once".into());
                continue;
            }
            match self.by_name.get_mut(name) {
                Some(entry) => {
                    entry.used = true;
                    listed.push(name);
                }
                None => {
                    ok = false;
                    self.unknown.push(UnknownUse {
                        set: name.to_string(),
                        zone: doc.zone.value.clone(),
                        source: Arc::clone(&c.source),
                        pos: item.pos,
                    });
                }
            }
        }
        let used: Vec<UsedSet<'_>> = listed
            .iter()
            .filter_map(|name| self.by_name.get(*name))
            .map(|e| UsedSet {
                name: &e.name,
                source: &e.source,
                records: &e.records,
            })
            .collect();
        let spec = zone::check_zone(&mut c, *doc, &used, warnings);
        spec.filter(|_| ok)
    }

    /// The names of the sets declared so far.
    pub(super) fn names(&self) -> impl Iterator<Item = &Arc<str>> {
        self.by_name.values().map(|e| &e.name)
    }

    /// A warning at each set no zone uses: its records reach no zone.
    pub(super) fn warn_unused(&self, warnings: &mut Diagnostics) {
        for entry in self.by_name.values().filter(|e| !e.used) {
            warnings.push(
                Diagnostic::at(
                    &entry.source,
                    entry.pos,
                    format!(
                        "record set `{}` is used by no zone: its records are not planned",
                        entry.name
                    ),
                )
                .with_label("unused")
                .with_hint(format!(
                    "add `{}` to the `use:` list of the zones that should have these records, \
                     or delete the set",
                    entry.name
                )),
            );
        }
    }
}

impl Sets {
    /// One problem per unknown set, at its first use, naming the zones that use it.
    pub(super) fn report_unknown(&mut self, diags: &mut Diagnostics) {
        let mut by_set: Vec<(&str, Vec<&UnknownUse>)> = Vec::new();
        for u in &self.unknown {
            match by_set.iter_mut().find(|(set, _)| *set == u.set) {
                Some((_, uses)) => uses.push(u),
                None => by_set.push((&u.set, vec![u])),
            }
        }
        for (set, uses) in by_set {
            diags.push(unknown_set(set, &uses, &self.by_name));
        }
        self.unknown.clear();
    }
}

fn unknown_set(set: &str, uses: &[&UnknownUse], sets: &HashMap<String, SetEntry>) -> Diagnostic {
    let mut known: Vec<&str> = sets.keys().map(String::as_str).collect();
    known.sort_unstable();
    let hint = match did_you_mean(set, &known) {
        Some(m) => format!("did you mean `{m}`?"),
        None if known.is_empty() && uses.len() > 1 => format!(
            "no file read declares a record set: is the `sets/` folder missing (record sets \
             imported from the account are written to `sets/<name>.yaml`)? Otherwise declare it \
             in a document of its own: `record_set: {set}` with `records:`"
        ),
        None if known.is_empty() => {
            format!("declare it in a document of its own: `record_set: {set}` with `records:`")
        }
        None => format!(
            "declared sets: {}; or declare it in a document `record_set: {set}`",
            known.join(", "),
        ),
    };
    let first = uses[0];
    Diagnostic::at(&first.source, first.pos, unknown_set_message(set, uses))
        .with_label("no `record_set:` of this name")
        .with_hint(hint)
}

/// `unknown record set `shared``, and with more than one user, which zones use it: the first
/// few with their place, then a count.
fn unknown_set_message(set: &str, uses: &[&UnknownUse]) -> String {
    if uses.len() == 1 {
        return format!("unknown record set `{set}`");
    }
    let named: Vec<String> = uses
        .iter()
        .take(UNKNOWN_USES_NAMED)
        .map(|u| {
            let at = Location {
                file: u.source.path.clone(),
                line: u.pos.line as usize,
                col: u.pos.col as usize,
            };
            format!("{} ({at})", u.zone)
        })
        .collect();
    let more = uses.len().saturating_sub(UNKNOWN_USES_NAMED);
    let rest = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    format!(
        "unknown record set `{set}`, used by {} zones: {}{rest}",
        uses.len(),
        named.join(", ")
    )
}

fn is_set_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// `content` with `{zone}` replaced by the zone's name (no final dot).
pub(super) fn substitute(content: &str, zone: &str) -> String {
    content.replace(ZONE_PLACEHOLDER, zone)
}

/// Pushes `d` unless the same message is already reported at the same place: a broken set
/// record is found once per zone that uses it, and is one problem.
pub(super) fn push_once(diags: &mut Diagnostics, d: Diagnostic) {
    let seen = diags
        .items
        .iter()
        .any(|e| e.location == d.location && e.message == d.message);
    if !seen {
        diags.push(d);
    }
}
