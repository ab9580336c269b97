//! The desired state → an octoDNS configuration and its YAML provider's zone files, in
//! octoDNS's own record shapes (checked against octoDNS 1.22's source): a name maps to one
//! record or a list of them (one per type), each with `ttl`, `type` and `value` (one) or
//! `values`; MX as `exchange`/`preference`, SRV as `port`/`priority`/`target`/`weight`, CAA as
//! `flags`/`tag`/`value`, the other types as strings. Keys are in the order the provider's
//! `enforce_order` demands, so the files load with its defaults (lenient off).
//!
//! TXT values are octoDNS's internal text: every `;` escaped as `\;` (its
//! `escaped_semicolons`), and a text starting with `"` wrapped in one more pair, which octoDNS
//! strips. A text octoDNS can't hold (see [`Unholdable`]) is listed, not written.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::config::fmt::text::quoted;
use crate::config::model::{Desired, RecordSpec, ZoneSpec};
use crate::dns::{RecordData, RecordType};
use crate::import::OutFile;

use super::{Export, NotExported, Unholdable};

/// The YAML provider's name in the configuration, and the folder of its zone files.
const PROVIDER: &str = "config";
const ZONES_DIR: &str = "zones";

pub(super) fn files(desired: &Desired, export: &mut Export) {
    export.files.push(config_file(desired));
    for zone in &desired.zones {
        let (text, written) = zone_text(zone, &mut export.not_exported);
        export.records += written;
        export.files.push(OutFile {
            // octoDNS looks for `<directory>/<zone name with its final dot>yaml`.
            path: PathBuf::from(ZONES_DIR).join(super::file_name(&zone.zone, ".yaml")),
            text,
            keep_existing: false,
        });
    }
}

fn config_file(desired: &Desired) -> OutFile {
    let mut text = String::from(
        "# octoDNS configuration written by `dnscron export --to octodns` from the dnscron files.\n\
         # The YAML provider `config` reads zones/<zone>.yaml; `directory` is relative to the\n\
         # working directory, so run octoDNS from this folder. To push the zones, add your\n\
         # provider below (credentials from the environment, `env/NAME`, never in this file)\n\
         # and name it in each zone's `targets`.\n\
         ---\n\
         providers:\n",
    );
    text.push_str(&format!(
        "  {PROVIDER}:\n    class: octodns.provider.yaml.YamlProvider\n    \
         default_ttl: 3600\n    directory: ./{ZONES_DIR}\n    enforce_order: true\n"
    ));
    text.push_str(
        "  # target:\n  #   class: octodns_route53.Route53Provider\n  \
         #   access_key_id: env/AWS_ACCESS_KEY_ID\n  \
         #   secret_access_key: env/AWS_SECRET_ACCESS_KEY\n",
    );
    text.push_str("zones:\n");
    for zone in &desired.zones {
        text.push_str(&format!(
            "  {}.:\n    sources:\n    - {PROVIDER}\n    # targets:\n    # - target\n",
            zone.zone.as_str()
        ));
    }
    OutFile {
        path: PathBuf::from("config.yaml"),
        text,
        keep_existing: false,
    }
}

/// One RRset: its TTL and values, each already YAML (a scalar, or a mapping's lines).
struct RrSet {
    ttl: u32,
    values: Vec<Value>,
}

enum Value {
    Scalar(String),
    /// `key: value` pairs, in key order.
    Map(Vec<(&'static str, String)>),
}

/// The zone's YAML and how many records it holds.
fn zone_text(zone: &ZoneSpec, not_exported: &mut Vec<NotExported>) -> (String, usize) {
    // name → type → RRset; names in natsort order below.
    let mut names: BTreeMap<&str, BTreeMap<&'static str, RrSet>> = BTreeMap::new();
    let mut written = 0;
    for record in super::sorted(zone) {
        let value = match value(record, zone) {
            Ok(value) => value,
            Err(why) => {
                not_exported.push(NotExported {
                    zone: zone.zone.clone(),
                    name: record.name.clone(),
                    record: record.clone(),
                    why,
                });
                continue;
            }
        };
        written += 1;
        let name = if record.name == "@" { "" } else { &record.name };
        names
            .entry(name)
            .or_default()
            .entry(record.rtype.as_str())
            .or_insert_with(|| RrSet {
                ttl: record.ttl,
                values: Vec::new(),
            })
            .values
            .push(value);
    }
    let mut ordered: Vec<_> = names.into_iter().collect();
    ordered.sort_by(|(a, _), (b, _)| super::natsort::order(a, b));
    let mut text = format!(
        "# zone {}, written by `dnscron export --to octodns` from the dnscron files.\n---\n",
        zone.zone.as_str()
    );
    if ordered.is_empty() {
        text.push_str("{}\n");
    }
    for (name, types) in ordered {
        text.push_str(&format!("{}:\n", quoted(name)));
        let list = types.len() > 1;
        for (rtype, rrset) in types {
            text.push_str(&rrset_text(rtype, &rrset, list));
        }
    }
    (text, written)
}

/// One record of a name: a mapping under the name, or an item of its list.
fn rrset_text(rtype: &str, rrset: &RrSet, list: bool) -> String {
    let first = if list { "- " } else { "  " };
    let mut text = format!("{first}ttl: {}\n  type: {rtype}\n", rrset.ttl);
    match rrset.values.as_slice() {
        [Value::Scalar(one)] => text.push_str(&format!("  value: {one}\n")),
        [Value::Map(pairs)] => {
            text.push_str("  value:\n");
            for (key, v) in pairs {
                text.push_str(&format!("    {key}: {v}\n"));
            }
        }
        many => {
            text.push_str("  values:\n");
            for value in many {
                match value {
                    Value::Scalar(s) => text.push_str(&format!("  - {s}\n")),
                    Value::Map(pairs) => {
                        for (i, (key, v)) in pairs.iter().enumerate() {
                            let lead = if i == 0 { "  - " } else { "    " };
                            text.push_str(&format!("{lead}{key}: {v}\n"));
                        }
                    }
                }
            }
        }
    }
    text
}

fn value(record: &RecordSpec, zone: &ZoneSpec) -> Result<Value, Unholdable> {
    if record.rtype == RecordType::TXT {
        return txt(&record.canonical).map(|t| Value::Scalar(quoted(&t)));
    }
    let data = match RecordData::parse(record.rtype, &record.canonical, &zone.zone) {
        Ok(data) => data,
        Err(_) => return Ok(Value::Scalar(quoted(&record.canonical))),
    };
    Ok(match data {
        RecordData::MX { priority, exchange } => Value::Map(vec![
            ("exchange", quoted(exchange.as_str())),
            ("preference", priority.to_string()),
        ]),
        RecordData::SRV {
            priority,
            weight,
            port,
            target,
        } => Value::Map(vec![
            ("port", port.to_string()),
            ("priority", priority.to_string()),
            ("target", quoted(target.as_str())),
            ("weight", weight.to_string()),
        ]),
        RecordData::CAA { flags, tag, value } => Value::Map(vec![
            ("flags", flags.to_string()),
            ("tag", tag.as_str().to_string()),
            ("value", quoted(&value)),
        ]),
        RecordData::A(_)
        | RecordData::AAAA(_)
        | RecordData::CNAME(_)
        | RecordData::NS(_)
        | RecordData::PTR(_)
        | RecordData::TXT(_) => Value::Scalar(quoted(&record.canonical)),
    })
}

/// A TXT text as octoDNS's internal text, or why it has none.
pub(super) fn txt(text: &str) -> Result<String, Unholdable> {
    if !text.is_ascii() {
        return Err(Unholdable::NonAscii);
    }
    if text.contains("\\;") {
        return Err(Unholdable::BackslashSemicolon);
    }
    if text.contains("\" \"") {
        return Err(Unholdable::QuoteSpaceQuote);
    }
    let escaped = text.replace(';', "\\;");
    Ok(if text.starts_with('"') {
        format!("\"{escaped}\"")
    } else {
        escaped
    })
}
