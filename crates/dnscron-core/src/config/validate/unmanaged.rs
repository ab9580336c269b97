//! `unmanaged:` documents: names checked like the declarations they stand in for, each listed
//! once, and none also declared by a file (it can't be both managed and left alone). Whether
//! a listed name is declared is known only once every file is read, so that check waits for
//! [`Unmanaged::finish`].

use std::collections::HashMap;
use std::sync::Arc;

use super::Checker;
use super::site::check_slug;
use crate::config::diagnostics::{Diagnostic, Diagnostics, SourceFile};
use crate::config::model::{self, Desired, Location, UnmanagedEntry};
use crate::config::raw::{self, Sp};
use crate::config::tree::Pos;
use crate::dns::ZoneName;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Kind {
    Zone,
    Domain,
    Site,
}

impl Kind {
    fn noun(self) -> &'static str {
        match self {
            Kind::Zone => "zone",
            Kind::Domain => "domain",
            Kind::Site => "site",
        }
    }

    fn list(self) -> &'static str {
        match self {
            Kind::Zone => "unmanaged.zones",
            Kind::Domain => "unmanaged.domains",
            Kind::Site => "unmanaged.sites",
        }
    }

    /// The name as declarations write it, or why it can't be one.
    fn normalize(self, name: &str) -> Result<String, String> {
        match self {
            Kind::Zone | Kind::Domain => ZoneName::parse(name)
                .map(|n| n.to_string())
                .map_err(|e| e.to_string()),
            Kind::Site => {
                let slug = name.trim();
                check_slug(slug)
                    .map(|()| slug.to_string())
                    .map_err(|reason| format!("`{name}` is not a site slug: {reason}"))
            }
        }
    }
}

/// A listed entry, kept with its file until every declaration is known.
struct Listed {
    kind: Kind,
    entry: UnmanagedEntry,
    source: Arc<SourceFile>,
    pos: Pos,
}

#[derive(Default)]
pub(super) struct Unmanaged {
    listed: Vec<Listed>,
    seen: HashMap<(Kind, String), Location>,
}

impl Unmanaged {
    pub(super) fn add(&mut self, c: &mut Checker<'_>, doc: raw::UnmanagedDoc) {
        let raw::UnmanagedLists {
            zones,
            domains,
            sites,
            ..
        } = doc.unmanaged;
        for (kind, entries) in [
            (Kind::Zone, zones),
            (Kind::Domain, domains),
            (Kind::Site, sites),
        ] {
            for entry in entries.into_iter().flatten() {
                self.entry(c, kind, entry);
            }
        }
    }

    fn entry(&mut self, c: &mut Checker<'_>, kind: Kind, entry: raw::UnmanagedEntry) {
        let (name, reason) = match entry {
            raw::UnmanagedEntry::Name(name) => (name, None),
            raw::UnmanagedEntry::Explained(e) => (e.name, e.reason),
        };
        let Sp { value, pos } = name;
        let name = match kind.normalize(&value) {
            Ok(name) => name,
            Err(message) => {
                let d = c.error(pos, message);
                d.label = Some(format!("not a {} name", kind.noun()));
                return;
            }
        };
        if let Some(reason) = &reason
            && reason.value.trim().is_empty()
        {
            let d = c.error(reason.pos, "an unmanaged entry's `reason` is empty");
            d.hint = Some("say why it is left out, or remove `reason`".into());
            return;
        }
        let at = c.location(pos);
        if let Some(first) = self.seen.get(&(kind, name.clone())) {
            let d = c.error(
                pos,
                format!(
                    "{} `{name}` is listed twice in `{}`: here and at {first}",
                    kind.noun(),
                    kind.list()
                ),
            );
            d.label = Some("second listing".into());
            d.hint = Some("keep one of the two entries".into());
            return;
        }
        self.seen.insert((kind, name.clone()), at.clone());
        self.listed.push(Listed {
            kind,
            entry: UnmanagedEntry {
                name,
                reason: reason.map(|r| r.value),
                location: at,
            },
            source: Arc::clone(&c.source),
            pos,
        });
    }

    /// The lists, once every file is read: an entry that a file also declares is an error at
    /// the entry, naming the declaration.
    pub(super) fn finish(self, desired: &Desired, diags: &mut Diagnostics) -> model::Unmanaged {
        let mut out = model::Unmanaged::default();
        for listed in self.listed {
            if let Some(declared) = declaration(desired, listed.kind, &listed.entry.name) {
                diags.push(declared_too(&listed, declared));
                continue;
            }
            match listed.kind {
                Kind::Zone => out.zones.push(listed.entry),
                Kind::Domain => out.domains.push(listed.entry),
                Kind::Site => out.sites.push(listed.entry),
            }
        }
        out
    }
}

/// Where a file declares what `name` names: a zone declares its domain too.
fn declaration<'d>(desired: &'d Desired, kind: Kind, name: &str) -> Option<&'d Location> {
    match kind {
        Kind::Zone | Kind::Domain => desired
            .zones
            .iter()
            .find(|z| z.zone.as_str() == name)
            .map(|z| &z.location),
        Kind::Site => desired
            .sites
            .iter()
            .find(|s| s.slug == name)
            .map(|s| &s.location),
    }
}

fn declared_too(listed: &Listed, declared: &Location) -> Diagnostic {
    let name = &listed.entry.name;
    let what = match listed.kind {
        Kind::Zone | Kind::Site => "is also declared",
        Kind::Domain => "its zone is declared",
    };
    Diagnostic::at(
        &listed.source,
        listed.pos,
        format!(
            "{} `{name}` is listed in `{}` but {what} at {declared}",
            listed.kind.noun(),
            listed.kind.list(),
        ),
    )
    .with_label("also declared")
    .with_hint(format!(
        "remove it from `{}` to manage it, or remove its declaration to leave it alone",
        listed.kind.list()
    ))
}
