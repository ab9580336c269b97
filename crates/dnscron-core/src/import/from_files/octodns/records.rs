//! An octoDNS zone file's records → located `SourceRecord`s: one per value, at the value's line.

use crate::dns::txt::txt_wire;

use super::super::{Held, SourceLine, SourceRecord};
use super::problem::{Problem, ProblemKind};
use super::tree::{Item, Val};

/// How the YAML provider reads its files.
#[derive(Clone, Debug)]
pub(super) struct Reading {
    pub(super) default_ttl: u32,
    /// `\;` in TXT/SPF stands for `;` (octoDNS's default); when false, `;` is written bare.
    pub(super) escaped_semicolons: bool,
    /// The zone's targets: `octodns.excluded`/`included` are judged against them.
    pub(super) targets: Vec<String>,
}

/// Every record of a zone file's top-level mapping.
pub(super) fn records(
    file: &Item,
    apex: &str,
    reading: &Reading,
    out: &mut Vec<SourceRecord>,
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
            if let Err(problem) = one_record(record, &owner, reading, out) {
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
    let fate = Fate::of(record, reading);
    for value in values {
        let content = match fate {
            Fate::Dynamic => Held::Dynamic,
            Fate::Excluded => Held::Excluded,
            Fate::Ignored | Fate::Managed => {
                let content = content(&rtype, value, reading)?;
                match (fate, content) {
                    (Fate::Ignored, Held::Content(text)) => Held::Ignored(text),
                    (_, held) => held,
                }
            }
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

#[derive(Clone, Copy)]
enum Fate {
    Managed,
    /// `dynamic:` (or the older `geo:`): answers that differ by resolver.
    Dynamic,
    /// `octodns.excluded`/`included` keep it off the zone's targets.
    Excluded,
    /// `octodns.ignored`: octoDNS never touches it.
    Ignored,
}

impl Fate {
    fn of(record: &Item, reading: &Reading) -> Fate {
        if record.get("dynamic").is_some() || record.get("geo").is_some() {
            return Fate::Dynamic;
        }
        let octodns = record.get("octodns");
        let names = |key: &str| -> Option<Vec<String>> {
            match &octodns?.get(key)?.value {
                Val::Seq(items) => Some(
                    items
                        .iter()
                        .filter_map(|i| i.scalar().map(str::to_string))
                        .collect(),
                ),
                Val::Scalar(one) => Some(vec![one.clone()]),
                Val::Null | Val::Map(_) => None,
            }
        };
        let reaches = |target: &String| {
            !names("excluded").is_some_and(|e| e.contains(target))
                && names("included").is_none_or(|i| i.contains(target))
        };
        if !reading.targets.is_empty() && !reading.targets.iter().any(reaches) {
            return Fate::Excluded;
        }
        let ignored = octodns
            .and_then(|o| o.get("ignored"))
            .and_then(Item::scalar)
            .is_some_and(|v| v == "true");
        if ignored {
            Fate::Ignored
        } else {
            Fate::Managed
        }
    }
}

/// The content the API would hold for one value.
fn content(rtype: &str, value: &Item, reading: &Reading) -> Result<Held, Problem> {
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
    Ok(match rtype {
        "A" | "AAAA" | "CNAME" | "NS" | "PTR" => Held::Content(text()?.to_string()),
        "MX" => Held::Content(format!(
            "{} {}",
            field("preference", "priority")?,
            field("exchange", "value")?
        )),
        "SRV" => Held::Content(format!(
            "{} {} {} {}",
            field("priority", "priority")?,
            field("weight", "weight")?,
            field("port", "port")?,
            field("target", "target")?
        )),
        "CAA" => {
            let flags = value.get("flags").and_then(Item::scalar).unwrap_or("0");
            let quoted = field("value", "value")?
                .replace('\\', "\\\\")
                .replace('"', "\\\"");
            Held::Content(format!("{flags} {} \"{quoted}\"", field("tag", "tag")?))
        }
        "TXT" | "SPF" => {
            let written = text()?;
            let read = if reading.escaped_semicolons {
                written.replace("\\;", ";")
            } else {
                written.to_string()
            };
            Held::Content(txt_wire(&read))
        }
        _ => Held::OtherType,
    })
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
