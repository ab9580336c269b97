//! A desired state that did not come straight from the files (the `desired` section of a saved
//! plan) is checked again by the YAML loader itself: it is written back in the file format,
//! one item per line, loaded like a file, and every place is mapped back to the `file:line:col`
//! the item was declared at. A hand-edited plan thus meets the same rules and messages.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;

use super::diagnostics::{Diagnostics, SourceFile};
use super::load::read_source;
use super::model::{AcceptSpec, Desired, Location, NameserverMode, SiteSpec, Unmanaged, ZoneSpec};
use super::validate::Validator;

/// The desired state as the loader builds it from the same declarations, or every rule it
/// breaks. The result replaces the input, so derived values (canonical contents, normalized
/// schedules) are recomputed rather than trusted.
pub fn revalidate(desired: &Desired) -> Result<Desired, Diagnostics> {
    let mut text = Text::default();
    for zone in &desired.zones {
        zone_doc(&mut text, zone);
    }
    for site in &desired.sites {
        site_doc(&mut text, site);
    }
    unmanaged_doc(&mut text, &desired.unmanaged);
    let source = Arc::new(SourceFile::new(
        Path::new("desired").into(),
        text.out.clone(),
    ));
    let mut diags = Diagnostics::default();
    let mut docs = Validator::default();
    read_source(&source, &mut diags, &mut docs);
    // The text holds no sets (set records are written into their zones), so no warnings.
    let (mut checked, _) = docs.finish(&mut diags);
    if !diags.is_empty() {
        for d in &mut diags.items {
            if let Some(at) = &mut d.location {
                text.restore(at);
            }
            d.message = text.restore_in(&d.message);
        }
        diags.sort();
        return Err(diags);
    }
    restore_all(&mut checked, &text);
    restore_sets(&mut checked, desired);
    Ok(checked)
}

/// The generated text and, per line, the place its item was declared at.
#[derive(Default)]
struct Text {
    out: String,
    origin: Vec<Location>,
}

impl Text {
    fn line(&mut self, at: &Location, line: &str) {
        self.out.push_str(line);
        self.out.push('\n');
        self.origin.push(at.clone());
    }

    fn restore(&self, at: &mut Location) {
        if let Some(origin) = at.line.checked_sub(1).and_then(|i| self.origin.get(i)) {
            *at = origin.clone();
        }
    }

    /// `message` with each place in the generated text it names (`desired:LINE:COL`, e.g. the
    /// first of two declarations) put back as the place the item was declared at.
    fn restore_in(&self, message: &str) -> String {
        const GENERATED: &str = "desired:";
        let mut out = String::with_capacity(message.len());
        let mut rest = message;
        while let Some(start) = rest.find(GENERATED) {
            out.push_str(&rest[..start]);
            let after = &rest[start + GENERATED.len()..];
            let digits = |s: &str| s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
            let line_len = digits(after);
            let col_len = after[line_len..].strip_prefix(':').map_or(0, digits);
            let origin = after[..line_len]
                .parse::<usize>()
                .ok()
                .and_then(|line| line.checked_sub(1))
                .and_then(|i| self.origin.get(i));
            match origin {
                Some(origin) if col_len > 0 => {
                    out.push_str(&origin.to_string());
                    rest = &after[line_len + 1 + col_len..];
                }
                Some(_) | None => {
                    out.push_str(GENERATED);
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out
    }
}

/// A YAML double-quoted scalar that reads back as exactly `text`. JSON's escapes are YAML's,
/// but JSON leaves characters raw that YAML does not allow in a document (DEL, the C1
/// controls, line separators, U+FEFF, U+FFFE, U+FFFF): those are escaped too, or a TXT such as `a\x7fb` would
/// make the saved plan unloadable.
fn q(text: &str) -> String {
    let json = serde_json::Value::String(text.to_string()).to_string();
    if json.chars().all(yaml_printable) {
        return json;
    }
    let mut out = String::with_capacity(json.len() + 8);
    for c in json.chars() {
        if yaml_printable(c) {
            out.push(c);
        } else {
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        }
    }
    out
}

/// What stays raw in the double-quoted scalar: not a control character (YAML forbids most and
/// folds NEL as a line break), not a line or paragraph separator (YAML 1.1 breaks lines there),
/// not a byte-order mark or a non-character.
fn yaml_printable(c: char) -> bool {
    !c.is_control()
        && !matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
        )
}

fn zone_doc(t: &mut Text, z: &ZoneSpec) {
    let at = &z.location;
    t.line(at, "---");
    t.line(at, &format!("zone: {}", q(z.zone.as_str())));
    if let Some(ns) = &z.nameservers {
        let line = match &ns.mode {
            NameserverMode::Hosted => "nameservers: {mode: hosted}".to_string(),
            NameserverMode::Custom(hosts) => {
                let hosts: Vec<String> = hosts.iter().map(|h| q(h)).collect();
                format!(
                    "nameservers: {{mode: custom, hosts: [{}]}}",
                    hosts.join(", ")
                )
            }
        };
        t.line(&ns.location, &line);
    }
    if let Some(r) = &z.registrar {
        let fields: Vec<String> = [
            ("auto_renew", r.auto_renew.map(|v| v.to_string())),
            ("lock", r.lock.map(|v| v.to_string())),
            ("whois_privacy", r.whois_privacy.map(|v| v.to_string())),
            (
                "expiry_warning_days",
                r.expiry_warning_days.map(|v| v.to_string()),
            ),
        ]
        .into_iter()
        .filter_map(|(key, value)| value.map(|v| format!("{key}: {v}")))
        .collect();
        t.line(
            &r.location,
            &format!("registrar: {{{}}}", fields.join(", ")),
        );
    }
    t.line(at, &format!("prune: {}", z.prune));
    let s = &z.safety;
    t.line(
        at,
        &format!(
            "safety: {{max_deletes: {}, delete_floor: {}, max_delete_percent: {}, update_floor: {}, max_update_percent: {}, ttl_update_floor: {}, max_ttl_update_percent: {}, allow_empty: {}}}",
            s.max_deletes,
            s.delete_floor,
            s.max_delete_percent,
            s.update_floor,
            s.max_update_percent,
            s.ttl_update_floor,
            s.max_ttl_update_percent,
            s.allow_empty
        ),
    );
    t.line(
        at,
        if z.ignore.is_empty() {
            "ignore: []"
        } else {
            "ignore:"
        },
    );
    for rule in &z.ignore {
        let mut line = format!("- {{name: {}", q(&rule.name));
        if let Some(rtype) = rule.rtype {
            let _ = write!(line, ", type: {rtype}");
        }
        if let Some(content) = &rule.content {
            let _ = write!(line, ", content: {}", q(content));
        }
        line.push('}');
        t.line(&rule.location, &line);
    }
    t.line(
        at,
        if z.records.is_empty() {
            "records: []"
        } else {
            "records:"
        },
    );
    for r in &z.records {
        let line = format!(
            "- {{name: {}, type: {}, content: {}, ttl: {}}}",
            q(&r.name),
            r.rtype,
            q(&r.content),
            r.ttl
        );
        t.line(&r.location, &line);
    }
    accept_lines(t, &z.accept);
}

fn accept_lines(t: &mut Text, accept: &[AcceptSpec]) {
    if !accept.is_empty() {
        t.line(&accept[0].location, "accept:");
    }
    for a in accept {
        let until = a
            .until
            .map(|day| format!(", until: {}", q(&day.format("%Y-%m-%d").to_string())))
            .unwrap_or_default();
        let value = a
            .figure
            .map(|figure| format!(", value: {}", q(&figure.value())))
            .unwrap_or_default();
        let line = format!(
            "- {{finding: {}, name: {}, reason: {}{until}{value}}}",
            q(a.finding.as_str()),
            q(&a.name),
            q(&a.reason)
        );
        t.line(&a.location, &line);
    }
}

fn site_doc(t: &mut Text, site: &SiteSpec) {
    let at = &site.location;
    t.line(at, "---");
    t.line(at, &format!("site: {}", q(&site.slug)));
    accept_lines(t, &site.accept);
    let Some(jobs) = &site.cron else { return };
    t.line(at, if jobs.is_empty() { "cron: []" } else { "cron:" });
    for job in jobs {
        let line = format!(
            "- {{schedule: {}, command: {}}}",
            q(&job.schedule),
            q(&job.command)
        );
        t.line(&job.location, &line);
    }
}

fn unmanaged_doc(t: &mut Text, u: &Unmanaged) {
    let lists = [
        ("zones", &u.zones),
        ("domains", &u.domains),
        ("sites", &u.sites),
    ];
    let Some(first) = lists.iter().find_map(|(_, l)| l.first()) else {
        return;
    };
    t.line(&first.location, "---");
    t.line(&first.location, "unmanaged:");
    for (key, entries) in lists {
        let Some(head) = entries.first() else {
            continue;
        };
        t.line(&head.location, &format!("  {key}:"));
        for e in entries {
            let reason = e
                .reason
                .as_ref()
                .map(|r| format!(", reason: {}", q(r)))
                .unwrap_or_default();
            t.line(
                &e.location,
                &format!("  - {{name: {}{reason}}}", q(&e.name)),
            );
        }
    }
}

fn restore_all(desired: &mut Desired, text: &Text) {
    for z in &mut desired.zones {
        text.restore(&mut z.location);
        if let Some(ns) = &mut z.nameservers {
            text.restore(&mut ns.location);
        }
        if let Some(r) = &mut z.registrar {
            text.restore(&mut r.location);
        }
        z.ignore
            .iter_mut()
            .for_each(|r| text.restore(&mut r.location));
        z.records
            .iter_mut()
            .for_each(|r| text.restore(&mut r.location));
        z.accept
            .iter_mut()
            .for_each(|a| text.restore(&mut a.location));
    }
    for s in &mut desired.sites {
        text.restore(&mut s.location);
        s.accept
            .iter_mut()
            .for_each(|a| text.restore(&mut a.location));
        for job in s.cron.iter_mut().flatten() {
            text.restore(&mut job.location);
        }
    }
    let u = &mut desired.unmanaged;
    for e in u.zones.iter_mut().chain(&mut u.domains).chain(&mut u.sites) {
        text.restore(&mut e.location);
    }
}

/// A set record is written into its zone like the zone's own, so the set it came from is
/// carried over: with no problems found, the loader kept every zone and record in order.
fn restore_sets(checked: &mut Desired, desired: &Desired) {
    for (out, given) in checked.zones.iter_mut().zip(&desired.zones) {
        for (r, g) in out.records.iter_mut().zip(&given.records) {
            r.set.clone_from(&g.set);
        }
        // The text writes set records into their zones: the `use:` lists come back as given.
        out.uses.clone_from(&given.uses);
    }
}

#[cfg(test)]
mod unmanaged_tests {
    use std::path::PathBuf;

    use super::revalidate;
    use crate::config::load_texts;

    /// A saved plan's `unmanaged:` lists go back through the loader's rules with their places.
    #[test]
    fn unmanaged_lists_revalidate_to_themselves_and_a_declared_one_is_refused_at_its_place() {
        let text = "zone: a.example\n---\nunmanaged:\n  zones: [{ name: b.example, reason: \"agency's\" }]\n  sites: [blog]\n";
        let loaded = load_texts(&[(PathBuf::from("dns/u.yaml"), text.to_string())]).unwrap();
        assert_eq!(revalidate(&loaded).unwrap(), loaded);
        let mut edited = loaded.clone();
        edited.unmanaged.zones[0].name = "a.example".into();
        let diags = revalidate(&edited).unwrap_err();
        let at: Vec<String> = diags
            .items
            .iter()
            .map(|d| format!("{} {}", d.location.as_ref().unwrap(), d.message))
            .collect();
        assert_eq!(
            at,
            [
                "dns/u.yaml:4:19 zone `a.example` is listed in `unmanaged.zones` but is also declared at dns/u.yaml:1:7"
            ]
        );
    }
}
