//! An octoDNS zone file's records → located `SourceRecord`s: one per value, at the value's line.

use crate::dns::txt::txt_wire;
use crate::dns::{RecordType, ZoneName, canonical_content};

use super::super::{Held, LeftAlone, SourceLine, SourceRecord};
use super::problem::{Problem, ProblemKind};
use super::tree::{Item, Val};

/// How the YAML provider reads its files.
#[derive(Clone, Debug)]
pub(super) struct Reading {
    pub(super) default_ttl: u32,
    /// `\;` in TXT/SPF stands for `;` (octoDNS's default); when false, `;` is written bare.
    pub(super) escaped_semicolons: bool,
    /// The zone's targets, the providers dnscron replaces: `octodns.excluded`/`included` are
    /// judged against them.
    pub(super) targets: Vec<String>,
}

/// Every record of a zone file's top-level mapping, one `SourceRecord` per value; `starts`
/// gets the index in `out` where each record's values start.
pub(super) fn records(
    file: &Item,
    apex: &str,
    reading: &Reading,
    out: &mut Vec<SourceRecord>,
    starts: &mut Vec<usize>,
    problems: &mut Vec<Problem>,
) {
    let entries = match &file.value {
        Val::Map(entries) => entries,
        Val::Null => return,
        Val::Scalar(_) | Val::Seq(_) => {
            problems.push(file.problem(expected("the zone file", "a mapping of names", file)));
            return;
        }
    };
    for (name, data) in entries {
        let owner = if name.is_empty() {
            apex.to_string()
        } else {
            format!("{}.{apex}", name.to_ascii_lowercase())
        };
        let list: Vec<&Item> = match &data.value {
            Val::Seq(items) => items.iter().collect(),
            Val::Null | Val::Scalar(_) | Val::Map(_) => vec![data],
        };
        for record in list {
            starts.push(out.len());
            if let Err(problem) = one_record(record, &owner, apex, reading, out) {
                problems.push(problem);
            }
        }
    }
}

fn expected(key: &str, want: &'static str, found: &Item) -> ProblemKind {
    ProblemKind::Expected {
        key: key.into(),
        want,
        found: found.kind(),
    }
}

fn one_record(
    record: &Item,
    owner: &str,
    apex: &str,
    reading: &Reading,
    out: &mut Vec<SourceRecord>,
) -> Result<(), Problem> {
    if !matches!(record.value, Val::Map(_)) {
        return Err(record.problem(expected("a record", "a mapping", record)));
    }
    let rtype = record
        .get("type")
        .and_then(Item::scalar)
        .ok_or_else(|| record.problem(ProblemKind::Missing { key: "type" }))?
        .to_ascii_uppercase();
    let ttl = match record.get("ttl") {
        Some(ttl) => ttl
            .scalar()
            .and_then(|t| t.parse().ok())
            .ok_or_else(|| ttl.problem(expected("ttl", "seconds", ttl)))?,
        None => reading.default_ttl,
    };
    let values: Vec<&Item> = match (record.get("values"), record.get("value")) {
        (
            Some(Item {
                value: Val::Seq(items),
                ..
            }),
            _,
        ) => items.iter().collect(),
        (Some(one), _) | (None, Some(one)) => vec![one],
        (None, None) => return Err(record.problem(ProblemKind::Missing { key: "value" })),
    };
    let kind = OctoType::parse(&rtype);
    let fate = Fate::of(record, reading)?;
    for value in values {
        let content = match &fate {
            Fate::Dynamic => Held::Dynamic,
            Fate::LeftAlone(why) => {
                valid_value(&rtype, kind, value, apex, reading)?;
                Held::LeftAlone(why.clone())
            }
            Fate::Managed => content(&rtype, kind, value, reading)?,
        };
        out.push(SourceRecord {
            at: SourceLine {
                file: value.file.clone(),
                line: value.line,
            },
            owner: owner.to_string(),
            class: "IN".into(),
            rtype: rtype.clone(),
            ttl,
            rdata: rdata(value),
            content,
        });
    }
    Ok(())
}

/// An octoDNS type name, as this reader reads its values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OctoType {
    /// A type the API holds.
    Managed(RecordType),
    /// SPF (type 99, which RFC 7208 retired for TXT): its values read as TXT's, so one octoDNS
    /// refuses is refused here too; the API has no such type, so the record is listed.
    Spf,
    /// Any other type (`ALIAS`, `SSHFP`, …): listed, its values unread.
    Other,
}

impl OctoType {
    /// `name` upper-cased, as octoDNS writes it; exact, as octoDNS looks its classes up.
    fn parse(name: &str) -> OctoType {
        match RecordType::ALL.iter().find(|t| t.as_str() == name) {
            Some(rtype) => OctoType::Managed(*rtype),
            None if name == "SPF" => OctoType::Spf,
            None => OctoType::Other,
        }
    }
}

enum Fate {
    Managed,
    /// `dynamic:` (or the older `geo:`): answers that differ by resolver.
    Dynamic,
    /// octoDNS's planner never touches this name and type on the zone's target.
    LeftAlone(LeftAlone),
}

impl Fate {
    /// As octoDNS's `Zone.changes` judges a record for a target: `ignored` first, then
    /// `included`, then `excluded`, each a reason to skip the name and type whatever the live
    /// records hold; only a record it plans is dynamic or not.
    fn of(record: &Item, reading: &Reading) -> Result<Fate, Problem> {
        let octodns = record.get("octodns");
        let flag = |key: &str| octodns.and_then(|o| o.get(key));
        if flag("ignored").is_some_and(truthy) {
            return Ok(Fate::LeftAlone(LeftAlone::Ignored));
        }
        let included = provider_list(flag("included"))?;
        let excluded = provider_list(flag("excluded"))?;
        let on = |target: &String| -> Option<LeftAlone> {
            if !included.is_empty() && !included.contains(target) {
                Some(LeftAlone::NotIncluded {
                    target: target.clone(),
                    included: included.clone(),
                })
            } else if excluded.contains(target) {
                Some(LeftAlone::Excluded {
                    target: target.clone(),
                })
            } else {
                None
            }
        };
        let judged: Vec<Option<LeftAlone>> = reading.targets.iter().map(on).collect();
        let listed = octodns.and_then(|o| o.get("included").or_else(|| o.get("excluded")));
        match (judged.as_slice(), listed) {
            ([], Some(list)) if !included.is_empty() || !excluded.is_empty() => {
                return Err(list.problem(ProblemKind::NoTarget));
            }
            ([first, rest @ ..], Some(list))
                if rest.iter().any(|r| r.is_some() != first.is_some()) =>
            {
                return Err(list.problem(ProblemKind::TargetsDisagree {
                    targets: reading.targets.clone(),
                }));
            }
            ([Some(why), ..], _) => return Ok(Fate::LeftAlone(why.clone())),
            _ => {}
        }
        if record.get("dynamic").is_some() || record.get("geo").is_some() {
            return Ok(Fate::Dynamic);
        }
        Ok(Fate::Managed)
    }
}

/// `ignored:` as Python's truth reads what PyYAML (YAML 1.1) loads, as octoDNS's planner tests
/// it (`if record.ignored`): a boolean, null and a number by their value; any other text is a
/// non-empty string, and so true, `'false'` quoted and `maybe` among them.
pub(super) fn truthy(item: &Item) -> bool {
    match &item.value {
        Val::Null => false,
        Val::Scalar(text) if item.string => !text.is_empty(),
        Val::Scalar(text) => match text.as_str() {
            "true" | "True" | "TRUE" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" => true,
            "false" | "False" | "FALSE" | "no" | "No" | "NO" | "off" | "Off" | "OFF" => false,
            // A number, or text the crate's reader takes as a boolean and PyYAML as a string
            // (`y`, `n`): non-empty, so true.
            other => other.parse::<f64>() != Ok(0.0),
        },
        Val::Seq(items) => !items.is_empty(),
        Val::Map(entries) => !entries.is_empty(),
    }
}

/// `included:`/`excluded:`: a list of provider names. A string is refused: octoDNS tests a
/// target with Python's `in`, which on a string is a substring test (`excluded: route53`
/// would exclude a provider named `route5`).
fn provider_list(item: Option<&Item>) -> Result<Vec<String>, Problem> {
    let Some(item) = item else {
        return Ok(Vec::new());
    };
    match &item.value {
        Val::Null => Ok(Vec::new()),
        Val::Seq(items) => items
            .iter()
            .map(|i| {
                i.scalar()
                    .map(str::to_string)
                    .ok_or_else(|| i.problem(expected("a provider", "a provider's name", i)))
            })
            .collect(),
        Val::Scalar(_) | Val::Map(_) => Err(item.problem(expected(
            "included/excluded",
            "a list of provider names",
            item,
        ))),
    }
}

/// octoDNS validates every record it loads, one it then ignores or excludes too
/// (`Record.new` raises `ValidationError` and the run stops): a value the API's rules refuse is
/// refused here as well, rather than hidden behind the `ignore:` rule it would become.
fn valid_value(
    rtype: &str,
    kind: OctoType,
    value: &Item,
    apex: &str,
    reading: &Reading,
) -> Result<(), Problem> {
    let Held::Content(content) = content(rtype, kind, value, reading)? else {
        return Ok(());
    };
    let (OctoType::Managed(typed), Ok(zone)) = (kind, ZoneName::parse(apex.trim_end_matches('.')))
    else {
        return Ok(());
    };
    match canonical_content(typed, &content, &zone) {
        Ok(_) => Ok(()),
        Err(e) => Err(value.problem(ProblemKind::BadValue {
            rtype: rtype.into(),
            reason: format!(
                "is not valid ({e}); octoDNS refuses it even where the record is ignored or excluded"
            ),
        })),
    }
}

/// The content the API would hold for one value.
fn content(rtype: &str, kind: OctoType, value: &Item, reading: &Reading) -> Result<Held, Problem> {
    let field = |key: &str, old: &str| {
        value
            .get(key)
            .or_else(|| value.get(old))
            .and_then(Item::scalar)
            .ok_or_else(|| {
                value.problem(ProblemKind::BadValue {
                    rtype: rtype.into(),
                    reason: format!("has no `{key}`"),
                })
            })
    };
    let text = || {
        value
            .scalar()
            .ok_or_else(|| value.problem(expected(&format!("a {rtype} value"), "a string", value)))
    };
    let txt = || Ok::<_, Problem>(Held::Content(txt_wire(&txt_text(text()?, reading))));
    let managed = match kind {
        OctoType::Managed(managed) => managed,
        OctoType::Spf => return txt(),
        OctoType::Other => return Ok(Held::OtherType),
    };
    Ok(match managed {
        RecordType::A | RecordType::AAAA | RecordType::CNAME | RecordType::NS | RecordType::PTR => {
            Held::Content(text()?.to_string())
        }
        RecordType::MX => Held::Content(format!(
            "{} {}",
            field("preference", "priority")?,
            field("exchange", "value")?
        )),
        RecordType::SRV => Held::Content(format!(
            "{} {} {} {}",
            field("priority", "priority")?,
            field("weight", "weight")?,
            field("port", "port")?,
            field("target", "target")?
        )),
        RecordType::CAA => {
            let flags = value.get("flags").and_then(Item::scalar).unwrap_or("0");
            let quoted = field("value", "value")?
                .replace('\\', "\\\\")
                .replace('"', "\\\"");
            Held::Content(format!("{flags} {} \"{quoted}\"", field("tag", "tag")?))
        }
        RecordType::TXT => txt()?,
    })
}

/// A TXT or SPF value as the text a target receives: octoDNS's `_ChunkedValue.process` drops
/// the first and the last character of a value that starts with `"` (whatever the last one is)
/// and removes every `" "` (the joints of chunks written `"a" "b"`), then `to_raw_text` turns
/// `\;` back into `;`. With `escaped_semicolons: false` the provider first wrote every `;` as
/// `\;`, so a `\;` written in the file stays as it is.
pub(super) fn txt_text(written: &str, reading: &Reading) -> String {
    let escaped = if reading.escaped_semicolons {
        written.to_string()
    } else {
        written.replace(';', "\\;")
    };
    let unquoted = match escaped.strip_prefix('"') {
        Some(rest) => {
            let mut rest = rest.chars();
            rest.next_back();
            rest.as_str().to_string()
        }
        None => escaped,
    };
    unquoted.replace("\" \"", "").replace("\\;", ";")
}

/// The value as the report shows it: a string as written, a mapping as `key=value` pairs.
fn rdata(value: &Item) -> String {
    match &value.value {
        Val::Null => String::new(),
        Val::Scalar(text) => text.clone(),
        Val::Seq(items) => items.iter().map(rdata).collect::<Vec<_>>().join(" "),
        Val::Map(entries) => entries
            .iter()
            .map(|(k, v)| format!("{k}={}", rdata(v)))
            .collect::<Vec<_>>()
            .join(" "),
    }
}
