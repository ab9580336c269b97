//! `POST /dns/zones/probe` answer → a zone file with the registrar steps as comments.
//!
//! The spec names only "the live zone as an import plan plus registrar steps", so the reader is
//! lenient: records under `import_plan.records`, `import_plan` itself or `records`; steps as
//! objects (`step`, `where`, `description`, `nameservers`, `continue_url`) or plain strings.

use serde_json::Value;

use crate::dns::{ZoneName, rules};
use dnscron_api::payload;

use super::zone::{LeftOut, NsChoice, ZoneFile, build_zone};

#[derive(Debug, thiserror::Error)]
#[error("the probe answer for {domain} has no import plan records ({detail})")]
pub struct ProbeShapeError {
    pub domain: String,
    pub detail: String,
}

/// The zone file of the probe's import plan. Its header says where the plan came from (the first
/// line) and lists the registrar steps; what to run next is the caller's to add after the first
/// line.
pub fn zone_from_probe(domain: &ZoneName, body: &Value) -> Result<ZoneFile, ProbeShapeError> {
    let shape_error = |detail: &str| ProbeShapeError {
        domain: domain.to_string(),
        detail: detail.to_string(),
    };
    let plan = body.get("import_plan");
    let list = plan
        .and_then(|p| p.get("records"))
        .or(plan.filter(|p| p.is_array()))
        .or_else(|| body.get("records"))
        .and_then(Value::as_array)
        .ok_or_else(|| shape_error("expected `import_plan.records`"))?;
    let records = list
        .iter()
        .enumerate()
        .map(|(i, item)| record(i, item))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| shape_error("a record lacks name, type or content"))?;
    let mut file = build_zone(domain, &records, NsChoice::Unmanaged(None));
    for item in plan
        .and_then(|p| p.get("skipped"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let rec = item.get("record").unwrap_or(item);
        file.left_out.push(LeftOut {
            name: text(rec, "name").unwrap_or_default(),
            rtype: text(rec, "type").unwrap_or_default().to_ascii_uppercase(),
            content: text(rec, "content").unwrap_or_default(),
            reason: text(item, "reason").unwrap_or_else(|| "skipped by the probe".into()),
        });
    }
    file.header = header(domain, body);
    Ok(file)
}

fn record(i: usize, item: &Value) -> Option<payload::Record> {
    Some(payload::Record {
        id: i64::try_from(i).unwrap_or(i64::MAX),
        name: text(item, "name")?,
        rtype: text(item, "type")?,
        ttl: item
            .get("ttl")
            .and_then(Value::as_u64)
            .and_then(|t| u32::try_from(t).ok())
            // The API's default TTL, for a probed record that doesn't state one.
            .unwrap_or(rules::DEFAULT_TTL),
        content: text(item, "content")?,
    })
}

fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

/// Whether the probe answered for a zone this account already hosts (`hosted: true`); only then
/// can the zone be read like any other.
pub fn probe_found_hosted(body: &Value) -> bool {
    body.get("hosted").and_then(Value::as_bool) == Some(true)
}

fn header(domain: &ZoneName, body: &Value) -> Vec<String> {
    let mut lines = vec![format!(
        "Import plan of {domain} from POST /dns/zones/probe (a dry run: nothing was changed)."
    )];
    let steps: Vec<&Value> = body
        .get("registrar_steps")
        .and_then(Value::as_array)
        .map(|s| s.iter().collect())
        .unwrap_or_default();
    if steps.is_empty() {
        lines.push("Registrar steps: none.".into());
        return lines;
    }
    lines.push("Registrar steps, in order:".into());
    for (i, step) in steps.iter().enumerate() {
        lines.extend(step_lines(i + 1, step));
    }
    lines
}

fn step_lines(n: usize, step: &Value) -> Vec<String> {
    let Some(obj) = step.as_object() else {
        let shown = step
            .as_str()
            .map_or_else(|| step.to_string(), str::to_string);
        return vec![format!("  {n}. {shown}")];
    };
    let name = text(step, "step").unwrap_or_else(|| "step".into());
    let place = text(step, "where")
        .map(|w| format!(" (at the {w})"))
        .unwrap_or_default();
    let description = text(step, "description")
        .map(|d| format!(": {d}"))
        .unwrap_or_default();
    let mut lines = vec![format!("  {n}. {name}{place}{description}")];
    if let Some(hosts) = obj.get("nameservers").and_then(Value::as_array) {
        let hosts: Vec<&str> = hosts.iter().filter_map(Value::as_str).collect();
        lines.push(format!("     nameservers: {}", hosts.join(", ")));
    }
    if let Some(url) = text(step, "continue_url") {
        lines.push(format!("     continue in the portal: {url}"));
    }
    lines
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_records_skipped_and_steps() {
        let body = json!({"domain": "example.io", "hosted": false,
            "import_plan": {"records": [{"name": "@", "type": "A", "ttl": 300, "content": "198.51.100.20"}],
                            "skipped": [{"record": {"name": "@", "type": "NS", "content": "ns1.x.net."}, "reason": "managed"}]},
            "registrar_steps": [{"step": "set_nameservers", "where": "registrar", "nameservers": ["ns1.v.net"], "description": "delegate"}, "call us"]});
        let f = zone_from_probe(&ZoneName::parse("example.io").unwrap(), &body).unwrap();
        assert_eq!(f.records.len(), 1);
        assert_eq!(f.left_out.len(), 1);
        assert_eq!(
            f.header,
            [
                "Import plan of example.io from POST /dns/zones/probe (a dry run: nothing was changed).",
                "Registrar steps, in order:",
                "  1. set_nameservers (at the registrar): delegate",
                "     nameservers: ns1.v.net",
                "  2. call us",
            ]
        );
        assert!(!probe_found_hosted(&body));
    }

    #[test]
    fn only_hosted_true_means_hosted() {
        assert!(probe_found_hosted(&json!({"hosted": true})));
        assert!(!probe_found_hosted(&json!({"hosted": false})));
        assert!(!probe_found_hosted(&json!({"hosted": "yes"})));
        assert!(!probe_found_hosted(&json!({})));
    }

    #[test]
    fn a_shape_without_records_is_an_error() {
        let err = zone_from_probe(&ZoneName::parse("example.io").unwrap(), &json!({"x": 1}));
        assert!(err.unwrap_err().to_string().contains("import_plan.records"));
    }
}
