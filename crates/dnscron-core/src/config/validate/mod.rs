//! Raw documents → validated [`Desired`]: the rules of the file format (names, contents,
//! duplicates, CNAME exclusivity, ignore conflicts, nameservers, cron). Every broken rule is
//! reported; a value that breaks one is left out of the result, which is only used when there
//! were no problems at all.

use std::collections::HashMap;
use std::sync::Arc;

use super::diagnostics::{Diagnostic, Diagnostics, SourceFile};
use super::model::{Desired, Location, ZoneSpec};
use super::raw;
use super::tree::Pos;
use crate::dns::ZoneName;

mod accept;
mod sets;
mod site;
mod unmanaged;
mod zone;

pub(crate) use accept::REASON_HINT;
pub(crate) use sets::ZONE_PLACEHOLDER;
pub(crate) use site::check_slug;

/// One document and the file it came from.
pub(crate) struct SourcedDoc {
    pub source: Arc<SourceFile>,
    pub doc: raw::Document,
}

pub(crate) struct Checker<'a> {
    pub diags: &'a mut Diagnostics,
    pub source: Arc<SourceFile>,
}

impl Checker<'_> {
    pub(super) fn location(&self, pos: Pos) -> Location {
        Location {
            file: self.source.path.clone(),
            line: pos.line as usize,
            col: pos.col as usize,
        }
    }

    pub(super) fn error(&mut self, pos: Pos, message: impl Into<String>) -> &mut Diagnostic {
        self.diags.push(Diagnostic::at(&self.source, pos, message));
        let last = self.diags.items.len() - 1;
        &mut self.diags.items[last]
    }
}

/// Builds the desired state one document at a time, so a document's raw structs (and the tree
/// they came from) are dropped before the next is read: peak memory is one document's, not
/// every file's at once. Every problem goes into `diags`. A zone that uses record sets waits
/// until every file is read (a set may be declared after the zones that use it).
#[derive(Default)]
pub(crate) struct Validator {
    desired: Desired,
    zones: Vec<ZoneSlot>,
    zones_seen: HashMap<String, Location>,
    sites_seen: HashMap<String, Location>,
    sets: sets::Sets,
    unmanaged: unmanaged::Unmanaged,
    warnings: Diagnostics,
    /// Read a zone's declarations without its record sets (`use:` is not resolved): for a file
    /// read alone, whose sets are in other files.
    without_sets: bool,
}

/// A zone in file order: checked, or waiting for the record sets it uses.
enum ZoneSlot {
    Done(Box<ZoneSpec>),
    Waiting(SourcedZone),
}

pub(super) struct SourcedZone {
    source: Arc<SourceFile>,
    doc: Box<raw::ZoneDoc>,
}

impl Validator {
    /// A validator that reads zones without their record sets (see `without_sets`).
    pub(super) fn without_sets() -> Validator {
        Validator {
            without_sets: true,
            ..Validator::default()
        }
    }

    /// Checks one document (in file order: a second declaration is the later one).
    pub(super) fn add(&mut self, SourcedDoc { source, doc }: SourcedDoc, diags: &mut Diagnostics) {
        let mut checker = Checker { diags, source };
        // Duplicates are checked on the declared name alone, so a second declaration is
        // reported even when the first one has errors of its own.
        match doc {
            raw::Document::Zone(z) => {
                let key = ZoneName::parse(&z.zone.value).map(|n| n.to_string());
                let first = key.as_ref().map_or(true, |key| {
                    first_declaration(&mut checker, &mut self.zones_seen, "zone", key, z.zone.pos)
                });
                if !self.without_sets && z.use_sets.as_ref().is_some_and(|u| !u.is_empty()) {
                    if first {
                        self.zones.push(ZoneSlot::Waiting(SourcedZone {
                            source: checker.source,
                            doc: z,
                        }));
                    }
                } else if let Some(spec) =
                    zone::check_zone(&mut checker, *z, &[], &mut self.warnings)
                    && first
                {
                    self.zones.push(ZoneSlot::Done(Box::new(spec)));
                }
            }
            raw::Document::Site(s) => {
                let key = s.site.value.trim().to_string();
                let first =
                    first_declaration(&mut checker, &mut self.sites_seen, "site", &key, s.site.pos);
                if let Some(spec) = site::check_site(&mut checker, &s)
                    && first
                {
                    self.desired.sites.push(spec);
                }
            }
            raw::Document::RecordSet(set) => self.sets.add(&mut checker, set),
            raw::Document::Unmanaged(doc) => self.unmanaged.add(&mut checker, doc),
            // The accounts of a repository are read before any folder (config::accounts): one
            // met among the desired-state files is in a place no command looks for it.
            raw::Document::Accounts(doc) => {
                let d = checker.error(
                    doc.pos,
                    format!(
                        "an `accounts:` document is read only from `{}` at the root of the \
                         folder a command is given",
                        crate::config::accounts::ACCOUNTS_FILE
                    ),
                );
                d.hint = Some(format!(
                    "move it to `{}` in the repository's top folder and run dnscron there, or \
                     pass that folder",
                    crate::config::accounts::ACCOUNTS_FILE
                ));
            }
        }
    }

    /// The record sets declared so far, by name.
    pub(crate) fn set_names(&self) -> Vec<Arc<str>> {
        self.sets.names().cloned().collect()
    }

    /// The desired state, once every file is read (the zones that use record sets are checked
    /// now), and the warnings: unused sets, overrides of nothing.
    pub(super) fn finish(self, diags: &mut Diagnostics) -> (Desired, Diagnostics) {
        let without_sets = self.without_sets;
        let Validator {
            mut desired,
            zones,
            mut sets,
            unmanaged,
            mut warnings,
            ..
        } = self;
        for slot in zones {
            let spec = match slot {
                ZoneSlot::Done(spec) => Some(*spec),
                ZoneSlot::Waiting(zone) => sets.expand(zone, diags, &mut warnings),
            };
            desired.zones.extend(spec);
        }
        if !without_sets {
            sets.report_unknown(diags);
            sets.warn_unused(&mut warnings);
        }
        desired.unmanaged = unmanaged.finish(&desired, diags);
        warnings.sort();
        (desired, warnings)
    }
}

/// Records the first place `key` is declared; reports a second one naming both places.
fn first_declaration(
    checker: &mut Checker<'_>,
    seen: &mut HashMap<String, Location>,
    what: &str,
    key: &str,
    pos: Pos,
) -> bool {
    if let Some(first) = seen.get(key) {
        let d = checker.error(
            pos,
            format!("{what} `{key}` is declared twice: here and at {first}"),
        );
        d.label = Some("second declaration".into());
        d.hint = Some(format!(
            "keep one declaration of the {what} and merge the two"
        ));
        return false;
    }
    seen.insert(key.to_string(), checker.location(pos));
    true
}
