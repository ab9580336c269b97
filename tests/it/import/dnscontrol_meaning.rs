//! `import --from dnscontrol` against the IR's meaning as DNSControl's docs (and, where they
//! disagree, its code) state it. DNSControl can't be installed here, so each row of the table
//! below is one record, live before the cutover or declared in tests/it/import/dnscontrol/
//! meaning.json, with what DNSControl's first push would leave and the rule that says so. The
//! import's files, planned and applied against an emulator holding the live records, must leave
//! exactly that, except where the import says the meanings differ (NO_PURGE).

use std::collections::BTreeSet;

use dnscron_core::dns::{RecordType, ZoneName, canonical_live_content};
use dnscron_emulator::{RateLimit, RecordSeed, Seed, TokenSeed, ZoneSeed};

use crate::ci_recipes::runner::copy_dir;
use crate::common::emulator::start_emulator;
use crate::common::{Test, repo_root};

const IGNORE: &str = "docs.dnscontrol.org language-reference/domain-modifiers/IGNORE.md";
const HANDSOFF: &str = "pkg/diff2/handsoff.go: glob.Compile(LabelPattern) without a separator, the target glob over GetTargetField()";
const NO_PURGE: &str = "docs.dnscontrol.org language-reference/domain-modifiers/NO_PURGE.md, pkg/diff2/handsoff.go (ContainsLT: matched on label and type)";
const TTL: &str = "pkg/normalize/validate.go: a TTL of 0 (absent: `ttl` is omitempty) becomes models.DefaultTTL, 300";
const CNAME: &str = "docs.dnscontrol.org language-reference/domain-modifiers/CNAME.md: a single label is relative to the domain";
const PURGE: &str = "docs.dnscontrol.org language-reference/domain-modifiers/PURGE.md: the default deletes what the IR doesn't declare";

/// A record's state: its TTL and content.
type State = Option<(u32, &'static str)>;

/// One row: a record, live before the cutover and after DNSControl's push, and why.
struct Row {
    zone: &'static str,
    name: &'static str,
    rtype: &'static str,
    live: State,
    after: State,
    /// What dnscron leaves instead, where the import says the meanings differ.
    reported: Option<State>,
    rule: &'static str,
}

fn row(
    zone: &'static str,
    name: &'static str,
    rtype: &'static str,
    live: State,
    after: State,
    rule: &'static str,
) -> Row {
    Row {
        zone,
        name,
        rtype,
        live,
        after,
        reported: None,
        rule,
    }
}

fn table() -> Vec<Row> {
    let f = "foo.com";
    let b = "bar.org";
    let mut rows = vec![
        row(
            f,
            "@",
            "A",
            Some((300, "192.0.2.1")),
            Some((300, "192.0.2.1")),
            PURGE,
        ),
        // TTLs: absent and 0 are 300; a TTL the IR states is kept.
        row(
            f,
            "nottl",
            "A",
            Some((600, "192.0.2.2")),
            Some((300, "192.0.2.2")),
            TTL,
        ),
        row(f, "zerottl", "A", None, Some((300, "192.0.2.3")), TTL),
        row(f, "long", "A", None, Some((3600, "192.0.2.4")), TTL),
        // Relative names: a single label is a name in the domain, `@` the domain.
        row(f, "rel", "CNAME", None, Some((300, "test.foo.com.")), CNAME),
        row(f, "apex", "CNAME", None, Some((300, "foo.com.")), CNAME),
        row(f, "ext", "CNAME", None, Some((300, "google.com.")), CNAME),
        row(
            f,
            "@",
            "MX",
            Some((300, "10 mail.foo.com.")),
            Some((300, "10 mail.foo.com.")),
            CNAME,
        ),
        row(
            f,
            "_sip._tcp",
            "SRV",
            None,
            Some((300, "10 60 5060 sip.foo.com.")),
            CNAME,
        ),
        // IGNORE("@", "TXT"): the apex's TXT records, whatever they hold.
        row(
            f,
            "@",
            "TXT",
            Some((300, "v=spf1 -all")),
            Some((300, "v=spf1 -all")),
            IGNORE,
        ),
        // IGNORE("*.dev"): `*` crosses dots in DNSControl's code (the docs' `*.foo` example
        // says it doesn't; the code decides what DNSControl does).
        row(
            f,
            "x.dev",
            "A",
            Some((300, "192.0.2.20")),
            Some((300, "192.0.2.20")),
            HANDSOFF,
        ),
        row(
            f,
            "a.b.dev",
            "A",
            Some((300, "192.0.2.21")),
            Some((300, "192.0.2.21")),
            HANDSOFF,
        ),
        row(f, "dev", "A", Some((300, "192.0.2.22")), None, HANDSOFF),
        // IGNORE("*", "MX", "backup*"): the target glob matches the MX's host, not its priority.
        row(
            f,
            "@",
            "MX",
            Some((300, "20 backup.other.net.")),
            Some((300, "20 backup.other.net.")),
            HANDSOFF,
        ),
        row(
            f,
            "@",
            "MX",
            Some((300, "30 old.other.net.")),
            None,
            HANDSOFF,
        ),
        // IGNORE("legacy", "A, CNAME"): a list of types; a type outside it is managed.
        row(
            f,
            "legacy",
            "A",
            Some((300, "192.0.2.30")),
            Some((300, "192.0.2.30")),
            IGNORE,
        ),
        row(f, "legacy", "TXT", Some((300, "old")), None, IGNORE),
        row(f, "stray", "A", Some((300, "192.0.2.99")), None, PURGE),
        // NO_PURGE: what the IR doesn't declare by label and type stays.
        row(
            b,
            "www",
            "A",
            Some((300, "192.0.2.10")),
            Some((300, "192.0.2.10")),
            NO_PURGE,
        ),
        row(
            b,
            "other",
            "A",
            Some((300, "192.0.2.12")),
            Some((300, "192.0.2.12")),
            NO_PURGE,
        ),
        row(
            b,
            "www",
            "TXT",
            Some((300, "hello")),
            Some((300, "hello")),
            NO_PURGE,
        ),
    ];
    // A live record of a label and type the IR declares is not "foreign": DNSControl deletes
    // it; `prune: false` keeps it, and the import says so (NoteKind::NoPurge).
    rows.push(Row {
        reported: Some(Some((300, "192.0.2.11"))),
        ..row(b, "www", "A", Some((300, "192.0.2.11")), None, NO_PURGE)
    });
    rows
}

/// (zone, name, type, ttl, canonical content) of every record of `states`.
fn canonical(
    rows: impl Iterator<Item = (String, String, String, u32, String)>,
) -> BTreeSet<(String, String, String, u32, String)> {
    rows.map(|(zone, name, rtype, ttl, content)| {
        let parsed = ZoneName::parse(&zone).unwrap();
        let typed = RecordType::from_str(&rtype).unwrap();
        let content = canonical_live_content(typed, &content, &parsed);
        (zone, name, rtype, ttl, content)
    })
    .collect()
}

use std::str::FromStr;

#[test]
fn the_first_plan_leaves_what_dnscontrol_would_leave() {
    let table = table();
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo_root().join("tests/it/import/dnscontrol"), dir.path());
    let import = Test::new()
        .args([
            "import",
            "--from",
            "dnscontrol",
            "meaning.json",
            "--out",
            "out",
        ])
        .current_dir(dir.path())
        .run_for_stdout();
    assert!(
        import.contains(
            "note meaning.json:35 * *: NO_PURGE, written `prune: false`: live records of a name and type the IR declares but doesn't list are kept, where DNSControl deletes them"
        ),
        "{import}"
    );
    let mut seed = Seed::default().with_token(TokenSeed::full("demo-token", "demo"));
    for zone in ["foo.com", "bar.org"] {
        let live = table.iter().filter(|r| r.zone == zone).filter_map(|r| {
            let (ttl, content) = r.live?;
            Some(RecordSeed::new(r.name, r.rtype, content).with_ttl(ttl))
        });
        seed = seed.with_zone(ZoneSeed::new(zone).with_records(live));
    }
    seed.rate_limit = RateLimit::off();
    let emu = start_emulator(seed);
    let apply = Test::new()
        .args(["apply", "out", "--yes"])
        .api(&emu.base_url(), "demo-token")
        .current_dir(dir.path())
        .plan_stamp()
        .snapshot();
    assert!(apply.starts_with("exit: Some(0)"), "{apply}");
    let expected = canonical(table.iter().filter_map(|r| {
        let (ttl, content) = r.reported.unwrap_or(r.after)?;
        Some((
            r.zone.into(),
            r.name.into(),
            r.rtype.into(),
            ttl,
            content.into(),
        ))
    }));
    let state = emu.state();
    let now = canonical(["foo.com", "bar.org"].into_iter().flat_map(|zone| {
        state.visible_records(zone).into_iter().map(move |r| {
            (
                zone.to_string(),
                r.name.clone(),
                r.rtype.clone(),
                r.ttl,
                r.content.clone(),
            )
        })
    }));
    let missing: Vec<_> = expected.difference(&now).collect();
    let extra: Vec<_> = now.difference(&expected).collect();
    let rules = |set: &[&(String, String, String, u32, String)]| -> Vec<String> {
        set.iter()
            .map(|(z, n, t, ttl, c)| {
                let rule = table
                    .iter()
                    .find(|r| r.zone == z && r.name == n && r.rtype == t)
                    .map_or("", |r| r.rule);
                format!("{z} {n} {t} {ttl} {c} ({rule})")
            })
            .collect()
    };
    assert!(
        missing.is_empty() && extra.is_empty(),
        "missing (DNSControl leaves them): {:#?}\nextra (DNSControl doesn't): {:#?}",
        rules(&missing),
        rules(&extra)
    );
}
