//! Zone and site files as YAML text, in the layout of `examples/`.

use std::fmt::Write as _;

use crate::config::fmt::text::{RecordItem, record_item};
use crate::config::model::NameserverMode;
use crate::dns;

use super::site::SiteFile;
use super::yaml::{comment_text, quoted, scalar};
use super::zone::{Imported, NsChoice, SourceIgnore, Unrepresentable, ZoneFile};

/// Where imported files point for their schema: written next to `zones/` and `sites/` by
/// `import`, so the reference works in any repository layout.
pub const SCHEMA_FILE: &str = "dnscron.schema.json";
pub(super) const SCHEMA_COMMENT: &str = "# yaml-language-server: $schema=../dnscron.schema.json\n";
/// The second line of every file `import` reads from the live account.
pub(super) const IMPORTED: &str =
    "Imported from the live account by `dnscron import`; `dnscron plan` on it shows no changes.";

pub fn render_zone(f: &ZoneFile) -> String {
    let mut out = String::from(SCHEMA_COMMENT);
    for line in &f.header {
        comment(&mut out, "", line);
    }
    let _ = writeln!(out, "zone: {}", scalar(f.zone.as_str()));
    match &f.nameservers {
        NsChoice::Managed(NameserverMode::Hosted) => out.push_str("nameservers:\n  mode: hosted\n"),
        NsChoice::Managed(NameserverMode::Custom(hosts)) => {
            let hosts: Vec<String> = hosts.iter().map(|h| scalar(h)).collect();
            let _ = writeln!(
                out,
                "nameservers:\n  mode: custom\n  hosts: [{}]",
                hosts.join(", ")
            );
        }
        NsChoice::Unmanaged(Some(why)) => comment(&mut out, "", why),
        NsChoice::Unmanaged(None) => {}
    }
    if let Some(ttl) = f.default_ttl {
        let _ = writeln!(out, "defaults:\n  ttl: {ttl}");
    }
    if !f.prune {
        out.push_str("prune: false\n");
    }
    if !f.ignore.is_empty() || !f.ephemeral.is_empty() || !f.rules.is_empty() {
        out.push_str("ignore:\n");
        for kind in f.ephemeral_kinds() {
            comment(
                &mut out,
                "  ",
                &format!("Written by automation, left to it: {}.", kind.why),
            );
            let _ = writeln!(
                out,
                "  - {{ name: {}, type: {} }}",
                quoted(kind.name),
                kind.rtype
            );
        }
        for rule in &f.ignore {
            ignore_rule(&mut out, rule);
        }
        for rule in &f.rules {
            source_rule(&mut out, rule);
        }
    }
    records(&mut out, f);
    if !f.uses.is_empty() {
        let sets: Vec<String> = f.uses.iter().map(|s| scalar(s)).collect();
        let _ = writeln!(out, "use: [{}]", sets.join(", "));
    }
    if !f.left_out.is_empty() {
        out.push_str("# Live records not declared in this file:\n");
        for l in &f.left_out {
            let line = format!(
                "  {} {} {} — {}",
                comment_text(&l.name),
                comment_text(&l.rtype),
                comment_text(&l.content),
                l.reason
            );
            comment(&mut out, "", &line);
        }
    }
    out
}

fn records(out: &mut String, f: &ZoneFile) {
    if f.records.is_empty() {
        out.push_str("records: []\n");
        return;
    }
    out.push_str("records:\n");
    for r in &f.records {
        record(out, r, f.default_ttl);
    }
}

fn record(out: &mut String, r: &Imported, default_ttl: Option<u32>) {
    // The wire form reads back to exactly this canonical content (dns::content CONTRACT).
    let content = dns::wire_content(r.rtype, &r.canonical);
    let item = RecordItem {
        name: &r.name,
        rtype: r.rtype,
        content: &content,
        ttl: (Some(r.ttl) != default_ttl).then_some(r.ttl),
        override_sets: None,
    };
    record_item(out, "  ", &item, None);
}

fn ignore_rule(out: &mut String, rule: &Unrepresentable) {
    comment(out, "  ", &rule.reason);
    let _ = writeln!(
        out,
        "  - {{ name: {}, type: {}, content: {} }}",
        quoted(&glob_literal(&rule.name)),
        rule.rtype,
        quoted(&glob_literal(&rule.canonical))
    );
}

fn source_rule(out: &mut String, rule: &SourceIgnore) {
    comment(out, "  ", &format!("From {}.", rule.origin));
    let mut keys = vec![format!("name: {}", quoted(&rule.name))];
    if let Some(rtype) = rule.rtype {
        keys.push(format!("type: {rtype}"));
    }
    if let Some(content) = &rule.content {
        keys.push(format!("content: {}", quoted(content)));
    }
    let _ = writeln!(out, "  - {{ {} }}", keys.join(", "));
}

/// A glob that matches `text` itself: the only glob characters, `*` and `?`, become `?`
/// (which also matches themselves).
pub(super) fn glob_literal(text: &str) -> String {
    text.replace(['*', '?'], "?")
}

pub fn render_site(s: &SiteFile) -> String {
    let mut out = String::from(SCHEMA_COMMENT);
    comment(&mut out, "", IMPORTED);
    let _ = writeln!(out, "site: {}", scalar(&s.slug));
    if let Some(state) = s
        .state
        .as_deref()
        .filter(|st| !st.eq_ignore_ascii_case("active"))
    {
        comment(
            &mut out,
            "",
            &format!("the site is {state}: the API refuses cron changes until it is active again"),
        );
    }
    match &s.cron {
        Ok(jobs) if jobs.is_empty() => out.push_str("cron: []\n"),
        Ok(jobs) => {
            out.push_str("cron:\n");
            for (schedule, command) in jobs {
                let _ = writeln!(
                    out,
                    "  - {{ schedule: {}, command: {} }}",
                    quoted(schedule),
                    quoted(command)
                );
            }
        }
        Err(why) => comment(
            &mut out,
            "",
            &format!("cron left unmanaged (no `cron` key): {why}"),
        ),
    }
    out
}

/// `# text`, one comment line per line of `text`, control characters escaped.
fn comment(out: &mut String, indent: &str, text: &str) {
    for line in text.lines() {
        let _ = writeln!(out, "{indent}# {}", comment_text(line));
    }
}
