//! YAML tree → raw structs. Checks shapes, types, ranges and keys (unknown keys get a
//! did-you-mean hint); every problem is recorded and reading goes on, so one run reports all.

use std::str::FromStr;
use std::sync::Arc;

use smallvec::SmallVec;

use super::diagnostics::{Diagnostic, Diagnostics, SourceFile};

mod accounts;
mod stream;
mod unmanaged;
use super::raw::{self, Sp, keys};
use super::suggest::did_you_mean;
use super::tree::{Node, Pos, Value};
use crate::dns::{RecordType, rules};
pub(crate) use accounts::accounts_doc;
pub(crate) use stream::Streamed;
use stream::take_value;

pub(crate) struct Ctx<'a> {
    pub source: Arc<SourceFile>,
    pub diags: &'a mut Diagnostics,
}

impl Ctx<'_> {
    pub(super) fn error(&mut self, pos: Pos, message: impl Into<String>) -> &mut Diagnostic {
        self.diags.push(Diagnostic::at(&self.source, pos, message));
        let last = self.diags.items.len() - 1;
        &mut self.diags.items[last]
    }

    fn wrong_type(&mut self, node: &Node, what: &str, expected: &str) {
        let found = node.value.kind();
        let d = self.error(
            node.pos,
            format!("{what} must be {expected}, found {found}"),
        );
        d.label = Some(format!("expected {expected}"));
        if let (Value::Int(_) | Value::Float(_) | Value::Bool(_), "a string") =
            (&node.value, expected)
        {
            d.hint = Some("put the value in quotes".into());
        }
        if let (Value::Null, "a list") = (&node.value, expected) {
            d.hint = Some("write `[]` for an empty list, or remove the key".into());
        }
        if let (Value::Str(s), true) = (&node.value, expected.contains("integer")) {
            if s.trim().parse::<i64>().is_ok() {
                d.hint = Some("remove the quotes".into());
            } else {
                d.hint = Some("write a whole number without quotes, e.g. `3600`".into());
            }
        }
    }

    fn str(&mut self, node: &Node, what: &str) -> Option<Sp<String>> {
        match &node.value {
            Value::Str(s) => Some(Sp {
                value: s.to_string(),
                pos: node.pos,
            }),
            Value::Null
            | Value::Bool(_)
            | Value::Int(_)
            | Value::Float(_)
            | Value::Seq(_)
            | Value::Map(_) => {
                self.wrong_type(node, what, "a string");
                None
            }
        }
    }

    /// A string, or an integer as its digits (`value: 11` and `value: "11"` are one figure).
    fn scalar_text(&mut self, node: &Node, what: &str) -> Option<Sp<String>> {
        match &node.value {
            Value::Int(i) => Some(Sp {
                value: i.to_string(),
                pos: node.pos,
            }),
            Value::Null
            | Value::Bool(_)
            | Value::Float(_)
            | Value::Str(_)
            | Value::Seq(_)
            | Value::Map(_) => self.str(node, what),
        }
    }

    fn bool(&mut self, node: &Node, what: &str) -> Option<Sp<bool>> {
        match &node.value {
            Value::Bool(b) => Some(Sp {
                value: *b,
                pos: node.pos,
            }),
            Value::Null
            | Value::Int(_)
            | Value::Float(_)
            | Value::Str(_)
            | Value::Seq(_)
            | Value::Map(_) => {
                self.wrong_type(node, what, "`true` or `false`");
                None
            }
        }
    }

    fn int<T: TryFrom<i128>>(
        &mut self,
        node: &Node,
        what: &str,
        min: i128,
        max: i128,
    ) -> Option<Sp<T>> {
        let Value::Int(i) = node.value else {
            self.wrong_type(node, what, &format!("an integer from {min} to {max}"));
            return None;
        };
        if i < min || i > max {
            self.error(
                node.pos,
                format!("{what} is {i}; it must be from {min} to {max}"),
            )
            .label = Some("out of range".into());
            return None;
        }
        let value = T::try_from(i).ok()?;
        Some(Sp {
            value,
            pos: node.pos,
        })
    }

    fn list<T>(
        &mut self,
        node: &Node,
        what: &str,
        mut item: impl FnMut(&mut Self, &Node) -> Option<T>,
    ) -> Option<Vec<T>> {
        match &node.value {
            Value::Seq(items) => Some(items.iter().filter_map(|n| item(self, n)).collect()),
            Value::Null
            | Value::Bool(_)
            | Value::Int(_)
            | Value::Float(_)
            | Value::Str(_)
            | Value::Map(_) => {
                self.wrong_type(node, what, "a list");
                None
            }
        }
    }

    /// Like [`Self::list`], dropping each item's nodes as soon as it is read.
    fn list_owned<T>(
        &mut self,
        node: Node<'_>,
        what: &str,
        mut item: impl FnMut(&mut Self, &Node) -> Option<T>,
    ) -> Option<Vec<T>> {
        let node = match node {
            Node {
                value: Value::Seq(items),
                ..
            } => {
                let mut out = Vec::with_capacity(items.len());
                out.extend(items.into_iter().filter_map(|n| item(self, &n)));
                return Some(out);
            }
            other => other,
        };
        self.wrong_type(&node, what, "a list");
        None
    }

    /// An enum value written as a string; unknown ones get a did-you-mean hint.
    fn choice<T: Copy>(&mut self, node: &Node, what: &str, options: &[(&str, T)]) -> Option<Sp<T>> {
        let s = self.str(node, what)?;
        if let Some((_, v)) = options.iter().find(|(name, _)| *name == s.value) {
            return Some(Sp {
                value: *v,
                pos: s.pos,
            });
        }
        let names: Vec<&str> = options.iter().map(|(n, _)| *n).collect();
        let hint = did_you_mean(&s.value, &names)
            .map(|m| format!("did you mean `{m}`?"))
            .unwrap_or_else(|| format!("use one of: {}", names.join(", ")));
        let d = self.error(
            s.pos,
            format!("{what} `{}` is not one of: {}", s.value, names.join(", ")),
        );
        d.hint = Some(hint);
        None
    }
}

/// A mapping being read: reports unknown keys once, then hands out values by key.
struct MapReader<'n> {
    /// Inline up to a record's four keys: one allocation less per record.
    entries: SmallVec<[(&'n str, &'n Node<'n>); 4]>,
    /// Known keys an unknown one was taken for (`contnet` → `content`): the misspelling's
    /// error already names them, so a missing one is not reported a second time.
    suggested: SmallVec<[&'n str; 1]>,
    pos: Pos,
}

impl<'n> MapReader<'n> {
    /// `None` (after reporting) when `node` is not a mapping.
    fn new(ctx: &mut Ctx<'_>, node: &'n Node<'_>, what: &str, known: &[&'n str]) -> Option<Self> {
        let Value::Map(map) = &node.value else {
            ctx.wrong_type(node, what, "a mapping");
            return None;
        };
        let present = |key: &str| {
            map.iter()
                .any(|(k, _)| matches!(&k.value, Value::Str(s) if **s == *key))
        };
        let mut entries = SmallVec::with_capacity(map.len());
        let mut suggested = SmallVec::new();
        for (key, value) in map {
            let Value::Str(k) = &key.value else {
                ctx.wrong_type(key, "a key", "a string");
                continue;
            };
            let k: &'n str = k;
            if known.contains(&k) {
                entries.push((k, value));
                continue;
            }
            let d = match did_you_mean(k, known) {
                Some(meant) if !present(meant) => {
                    suggested.push(meant);
                    ctx.error(
                        key.pos,
                        format!("unknown key `{k}` in {what}; did you mean `{meant}`?"),
                    )
                }
                Some(meant) => {
                    let d = ctx.error(key.pos, format!("unknown key `{k}` in {what}"));
                    d.hint = Some(format!("`{meant}` is already given: remove `{k}`"));
                    d
                }
                None => {
                    let d = ctx.error(key.pos, format!("unknown key `{k}` in {what}"));
                    d.hint = Some(format!("{what} accepts: {}", known.join(", ")));
                    d
                }
            };
            d.label = Some("unknown key".into());
        }
        Some(MapReader {
            entries,
            suggested,
            pos: node.pos,
        })
    }

    fn get(&self, key: &str) -> Option<&'n Node<'n>> {
        self.entries
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| *v)
    }

    /// A key whose value may be `null`-free only; missing → `None` without error.
    fn opt<T>(
        &self,
        ctx: &mut Ctx<'_>,
        key: &str,
        read: impl FnOnce(&mut Ctx<'_>, &Node) -> Option<T>,
    ) -> Option<T> {
        self.get(key).and_then(|node| read(ctx, node))
    }

    /// A required key; `Err(())` when it is missing or its value is wrong (already reported).
    fn req<T>(
        &self,
        ctx: &mut Ctx<'_>,
        what: &str,
        key: &str,
        read: impl FnOnce(&mut Ctx<'_>, &Node) -> Option<T>,
    ) -> Option<T> {
        match self.get(key) {
            Some(node) => read(ctx, node),
            None if self.suggested.contains(&key) => None,
            None => {
                let d = ctx.error(self.pos, format!("{what} has no `{key}`"));
                d.label = Some(format!("`{key}` missing here"));
                None
            }
        }
    }
}

fn rtype(ctx: &mut Ctx<'_>, node: &Node) -> Option<Sp<RecordType>> {
    // The usual case, a type written as the schema spells it, without building the options.
    if let Value::Str(s) = &node.value
        && let Some(t) = RecordType::ALL.iter().find(|t| t.as_str() == &**s)
    {
        return Some(Sp {
            value: *t,
            pos: node.pos,
        });
    }
    // Lower-case types are refused like any unknown value (the schema says upper case), but
    // the hint names the fix directly.
    if let Value::Str(s) = &node.value
        && RecordType::from_str(s).is_ok()
        && s.to_ascii_uppercase() != *s
    {
        let d = ctx.error(node.pos, format!("record type `{s}` must be upper case"));
        d.hint = Some(format!("write `{}`", s.trim().to_ascii_uppercase()));
        return None;
    }
    let types: Vec<(&str, RecordType)> = RecordType::ALL.iter().map(|t| (t.as_str(), *t)).collect();
    ctx.choice(node, "record type", &types)
}

const TTL_MIN: i128 = rules::TTL_MIN as i128;
const TTL_MAX: i128 = rules::TTL_MAX as i128;

/// The key that says what a document is.
const DOCUMENT_KINDS: [&str; 5] = ["zone", "site", "record_set", "unmanaged", "accounts"];

/// Reads one document; `None` when it is not a zone, a site, a record set or an unmanaged list
/// (reported).
pub(crate) fn document(
    ctx: &mut Ctx<'_>,
    node: Node<'_>,
    streamed: Streamed,
) -> Option<raw::Document> {
    let Value::Map(map) = &node.value else {
        ctx.wrong_type(
            &node,
            "a document",
            "a mapping with `zone:`, `site:`, `record_set:` or `unmanaged:`",
        );
        return None;
    };
    let has = |key: &str| map.iter().any(|(k, _)| k.value == Value::Str(key.into()));
    let kinds: Vec<&str> = DOCUMENT_KINDS.into_iter().filter(|k| has(k)).collect();
    match kinds.as_slice() {
        ["zone"] => zone_doc(ctx, node, streamed).map(|z| raw::Document::Zone(Box::new(z))),
        ["site"] => site_doc(ctx, &node).map(raw::Document::Site),
        ["record_set"] => set_doc(ctx, node, streamed).map(raw::Document::RecordSet),
        ["unmanaged"] => unmanaged::unmanaged_doc(ctx, &node).map(raw::Document::Unmanaged),
        ["accounts"] => accounts_doc(ctx, &node).map(raw::Document::Accounts),
        [] => {
            let known: Vec<&str> = keys::ZONE
                .iter()
                .chain(keys::SITE)
                .chain(keys::RECORD_SET)
                .chain(keys::UNMANAGED)
                .copied()
                .collect();
            let guess = map.iter().find_map(|(k, _)| match &k.value {
                Value::Str(s) => did_you_mean(s, &DOCUMENT_KINDS),
                Value::Null
                | Value::Bool(_)
                | Value::Int(_)
                | Value::Float(_)
                | Value::Seq(_)
                | Value::Map(_) => None,
            });
            let d = ctx.error(
                node.pos,
                "a document must start with `zone:`, `site:`, `record_set:` or `unmanaged:`",
            );
            d.hint = Some(match guess {
                Some(g) => format!("did you mean `{g}`?"),
                None => format!(
                    "documents are zones, sites, record sets or unmanaged lists; keys: {}",
                    known.join(", ")
                ),
            });
            None
        }
        both => {
            let listed: Vec<String> = both.iter().map(|k| format!("`{k}:`")).collect();
            let d = ctx.error(
                node.pos,
                format!("a document has both {}", listed.join(" and ")),
            );
            d.hint = Some("put each in its own document (separate them with `---`)".into());
            None
        }
    }
}

/// A record set: its name and records. A `use:` key is refused with its own message, as sets
/// cannot include sets.
fn set_doc(ctx: &mut Ctx<'_>, mut node: Node<'_>, streamed: Streamed) -> Option<raw::RecordSetDoc> {
    let what = "a record set";
    let records = take_value(&mut node, "records");
    if let Some(uses) = take_value(&mut node, "use") {
        let d = ctx.error(uses.pos, "a record set cannot `use:` other record sets");
        d.label = Some("sets do not nest".into());
        d.hint =
            Some("copy the records into this set, or list both sets in each zone's `use:`".into());
    }
    // `use` is known here only so that it gets the message above rather than "unknown key".
    let m = MapReader::new(ctx, &node, what, &["record_set", "records", "use"])?;
    let name = m.req(ctx, what, "record_set", |c, n| c.str(n, "`record_set`"));
    let records = streamed_records(ctx, records, streamed);
    Some(raw::RecordSetDoc {
        record_set: name?,
        records,
        pos: node.pos,
    })
}

/// A document's `records`: those read while parsing, then any the tree still holds.
fn streamed_records(
    ctx: &mut Ctx<'_>,
    records: Option<Node<'_>>,
    streamed: Streamed,
) -> Option<Vec<raw::Record>> {
    // A streamed list is empty in the tree; one that was not streamed (anchored) is not.
    records
        .and_then(|n| ctx.list_owned(n, "`records`", record))
        .map(|listed| {
            let Streamed {
                mut records,
                mut diags,
            } = streamed;
            ctx.diags.items.append(&mut diags.items);
            records.extend(listed);
            records
        })
}

fn zone_doc(ctx: &mut Ctx<'_>, mut node: Node<'_>, streamed: Streamed) -> Option<raw::ZoneDoc> {
    let what = "a zone";
    // The records come out of the tree, each dropped once read, so the tree of a large zone
    // and its raw records are not both alive whole.
    let records = take_value(&mut node, "records");
    let m = MapReader::new(ctx, &node, what, keys::ZONE)?;
    let zone = m.req(ctx, what, "zone", |c, n| c.str(n, "`zone`"));
    let defaults = m.opt(ctx, "defaults", defaults);
    let nameservers = m.opt(ctx, "nameservers", nameservers);
    let prune = m.opt(ctx, "prune", |c, n| c.bool(n, "`prune`"));
    let ignore = m.opt(ctx, "ignore", |c, n| c.list(n, "`ignore`", ignore_rule));
    let records = streamed_records(ctx, records, streamed);
    let use_sets = m.opt(ctx, "use", |c, n| {
        c.list(n, "`use`", |c, item| c.str(item, "a record set name"))
    });
    let safety = m.opt(ctx, "safety", safety);
    let registrar = m.opt(ctx, "registrar", registrar);
    let accept = m.opt(ctx, "accept", accept_list);
    Some(raw::ZoneDoc {
        zone: zone?,
        defaults,
        nameservers,
        prune,
        ignore,
        records,
        use_sets,
        safety,
        registrar,
        accept,
        pos: node.pos,
    })
}

fn defaults(ctx: &mut Ctx<'_>, node: &Node) -> Option<raw::Defaults> {
    let m = MapReader::new(ctx, node, "`defaults`", keys::DEFAULTS)?;
    let ttl = m.opt(ctx, "ttl", |c, n| c.int(n, "`ttl`", TTL_MIN, TTL_MAX));
    Some(raw::Defaults { ttl })
}

fn nameservers(ctx: &mut Ctx<'_>, node: &Node) -> Option<raw::Nameservers> {
    let what = "`nameservers`";
    let m = MapReader::new(ctx, node, what, keys::NAMESERVERS)?;
    let modes = [
        ("hosted", raw::NameserverMode::Hosted),
        ("custom", raw::NameserverMode::Custom),
    ];
    let mode = m.req(ctx, what, "mode", |c, n| {
        c.choice(n, "nameserver `mode`", &modes)
    });
    let hosts = m.opt(ctx, "hosts", |c, n| {
        c.list(n, "`hosts`", |c, h| c.str(h, "a nameserver host"))
    });
    Some(raw::Nameservers {
        mode: mode?,
        hosts,
        pos: node.pos,
    })
}

fn ignore_rule(ctx: &mut Ctx<'_>, node: &Node) -> Option<raw::IgnoreRule> {
    let m = MapReader::new(ctx, node, "an ignore rule", keys::IGNORE)?;
    let name = m.opt(ctx, "name", |c, n| c.str(n, "ignore `name`"));
    let rtype = m.opt(ctx, "type", rtype);
    let content = m.opt(ctx, "content", |c, n| c.str(n, "ignore `content`"));
    Some(raw::IgnoreRule {
        name,
        rtype,
        content,
        pos: node.pos,
    })
}

fn record(ctx: &mut Ctx<'_>, node: &Node) -> Option<raw::Record> {
    let what = "a record";
    let m = MapReader::new(ctx, node, what, keys::RECORD)?;
    let name = m.req(ctx, what, "name", |c, n| c.str(n, "record `name`"));
    let rtype = m.req(ctx, what, "type", rtype);
    let content = m.req(ctx, what, "content", |c, n| c.str(n, "record `content`"));
    let ttl = m.opt(ctx, "ttl", |c, n| c.int(n, "`ttl`", TTL_MIN, TTL_MAX));
    let override_sets = m.opt(ctx, "override", |c, n| c.bool(n, "`override`"));
    Some(raw::Record {
        name: name?,
        rtype: rtype?,
        content: content?,
        ttl,
        override_sets,
        pos: node.pos,
    })
}

fn safety(ctx: &mut Ctx<'_>, node: &Node) -> Option<raw::Safety> {
    let m = MapReader::new(ctx, node, "`safety`", keys::SAFETY)?;
    let count = |c: &mut Ctx<'_>, n: &Node| c.int(n, "a count", 0, 1_000_000);
    let percent = |c: &mut Ctx<'_>, n: &Node| c.int(n, "a percentage", 0, 100);
    Some(raw::Safety {
        max_deletes: m.opt(ctx, "max_deletes", count),
        delete_floor: m.opt(ctx, "delete_floor", count),
        max_delete_percent: m.opt(ctx, "max_delete_percent", percent),
        update_floor: m.opt(ctx, "update_floor", count),
        max_update_percent: m.opt(ctx, "max_update_percent", percent),
        ttl_update_floor: m.opt(ctx, "ttl_update_floor", count),
        max_ttl_update_percent: m.opt(ctx, "max_ttl_update_percent", percent),
        allow_empty: m.opt(ctx, "allow_empty", |c, n| c.bool(n, "`allow_empty`")),
    })
}

fn registrar(ctx: &mut Ctx<'_>, node: &Node) -> Option<raw::Registrar> {
    let m = MapReader::new(ctx, node, "`registrar`", keys::REGISTRAR)?;
    let flag = |name: &'static str| move |c: &mut Ctx<'_>, n: &Node| c.bool(n, name);
    Some(raw::Registrar {
        auto_renew: m.opt(ctx, "auto_renew", flag("`auto_renew`")),
        lock: m.opt(ctx, "lock", flag("`lock`")),
        whois_privacy: m.opt(ctx, "whois_privacy", flag("`whois_privacy`")),
        expiry_warning_days: m.opt(ctx, "expiry_warning_days", |c, n| {
            c.int(n, "`expiry_warning_days`", 1, 3650)
        }),
        pos: node.pos,
    })
}

fn site_doc(ctx: &mut Ctx<'_>, node: &Node) -> Option<raw::SiteDoc> {
    let what = "a site";
    let m = MapReader::new(ctx, node, what, keys::SITE)?;
    let site = m.req(ctx, what, "site", |c, n| c.str(n, "`site`"));
    let cron = m.opt(ctx, "cron", |c, n| c.list(n, "`cron`", cron_job));
    let accept = m.opt(ctx, "accept", accept_list);
    Some(raw::SiteDoc {
        site: site?,
        cron,
        accept,
        pos: node.pos,
    })
}

fn accept_list(ctx: &mut Ctx<'_>, node: &Node) -> Option<Vec<raw::Accept>> {
    ctx.list(node, "`accept`", accept)
}

fn accept(ctx: &mut Ctx<'_>, node: &Node) -> Option<raw::Accept> {
    let what = "an acceptance";
    let m = MapReader::new(ctx, node, what, keys::ACCEPT)?;
    let finding = m.req(ctx, what, "finding", |c, n| c.str(n, "`finding`"));
    let name = m.req(ctx, what, "name", |c, n| c.str(n, "accept `name`"));
    let reason = match m.get("reason") {
        Some(n) => ctx.str(n, "`reason`"),
        None => {
            let d = ctx.error(m.pos, "an acceptance has no `reason`");
            d.label = Some("`reason` missing here".into());
            d.hint = Some(super::validate::REASON_HINT.into());
            None
        }
    };
    let until = m.opt(ctx, "until", |c, n| c.str(n, "`until`"));
    let value = m.opt(ctx, "value", |c, n| c.scalar_text(n, "accept `value`"));
    Some(raw::Accept {
        finding: finding?,
        name: name?,
        reason: reason?,
        until,
        value,
        pos: node.pos,
    })
}

fn cron_job(ctx: &mut Ctx<'_>, node: &Node) -> Option<raw::CronJob> {
    let what = "a cron job";
    let m = MapReader::new(ctx, node, what, keys::CRON)?;
    let schedule = m.req(ctx, what, "schedule", |c, n| c.str(n, "`schedule`"));
    let command = m.req(ctx, what, "command", |c, n| c.str(n, "`command`"));
    Some(raw::CronJob {
        schedule: schedule?,
        command: command?,
        pos: node.pos,
    })
}
