//! `import --from bind`, then `plan` against an emulator seeded with the same records shows no
//! changes, for every file of the corpus in tests/it/import/bind/ (each names the RFC or issue it
//! comes from). The seed never comes from our reader: BIND's own `named-compilezone` reads the
//! file and prints its canonical records, which become the seed. Its answers are recorded beside
//! each file (`NAME.named-compilezone.txt`, by tests/recorders/bind.sh), so these tests need no
//! BIND; with the cargo feature `live-tools`, a test runs BIND again and fails when a recording
//! is stale.

use std::path::{Path, PathBuf};

use dnscron_emulator::{RateLimit, RecordSeed, Seed, TokenSeed, ZoneSeed};

use crate::ci_recipes::runner::copy_dir;
use crate::common::emulator::start_emulator;
use crate::common::{Test, repo_root};

const ZONE: &str = "example.com";

/// The types the API holds (its description's list): what BIND prints of any other type can't
/// be seeded, and the import must list it instead.
const API_TYPES: [&str; 9] = ["A", "AAAA", "CNAME", "MX", "TXT", "NS", "SRV", "CAA", "PTR"];

fn corpus() -> PathBuf {
    repo_root().join("tests/it/import/bind")
}

/// The corpus copied into a fresh folder (its `$INCLUDE`s are relative to it).
fn copy_corpus() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&corpus(), dir.path());
    dir
}

/// One record as BIND prints it: `owner ttl class type rdata`.
#[derive(Debug)]
struct BindRecord {
    owner: String,
    ttl: u32,
    rtype: String,
    rdata: String,
}

/// The answer BIND's own reader gives for the harness's copy of a file: a zone without an apex NS
/// (a Cloudflare export) gets this one, which is dropped below as every apex NS is.
const HARNESS_NS: &str = "ns.harness.invalid.";

/// `named-compilezone`'s recording of `file` (tests/recorders/bind.sh writes it beside the file).
fn recording(file: &str) -> PathBuf {
    corpus().join(format!(
        "{}.named-compilezone.txt",
        file.trim_end_matches(".zone")
    ))
}

/// The records BIND reads from `file`, in its canonical text form, as recorded.
fn named_compilezone(file: &str) -> Vec<BindRecord> {
    let path = recording(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; tests/record-answers.sh records BIND's answers",
            path.display()
        )
    });
    text.lines()
        .map(parse_bind_line)
        .filter(|r| !(r.rtype == "NS" && r.rdata == HARNESS_NS))
        .collect()
}

fn parse_bind_line(line: &str) -> BindRecord {
    let mut rest = line;
    let mut field = || {
        let (word, after) = rest
            .trim_start()
            .split_once(char::is_whitespace)
            .unwrap_or_else(|| panic!("not a record line: {line}"));
        rest = after;
        word.to_string()
    };
    let (owner, ttl, class, rtype) = (field(), field(), field(), field());
    assert_eq!(class, "IN", "{line}");
    BindRecord {
        owner: owner.to_ascii_lowercase(),
        ttl: ttl.parse().unwrap(),
        rtype,
        rdata: rest.trim().to_string(),
    }
}

/// What the API can hold of BIND's records: not the SOA, not the apex NS, only its types.
fn seed_records(records: &[BindRecord]) -> Vec<RecordSeed> {
    let apex = format!("{ZONE}.");
    records
        .iter()
        .filter(|r| r.rtype != "SOA" && !(r.rtype == "NS" && r.owner == apex))
        .filter(|r| API_TYPES.contains(&r.rtype.as_str()))
        .map(|r| {
            let name = match r.owner.strip_suffix(&format!(".{apex}")) {
                Some(relative) => relative.to_string(),
                None => "@".to_string(),
            };
            RecordSeed::new(&name, &r.rtype, &r.rdata).with_ttl(r.ttl)
        })
        .collect()
}

pub(super) fn emulator_with(records: Vec<RecordSeed>) -> dnscron_emulator::BackgroundEmulator {
    let mut seed = Seed::default()
        .with_token(TokenSeed::full("demo-token", "demo"))
        .with_zone(ZoneSeed::new(ZONE).with_records(records));
    seed.rate_limit = RateLimit::off();
    start_emulator(seed)
}

/// The first zone line of the summary → (N, M, a + b).
pub(super) fn summary_counts(stdout: &str) -> (usize, usize, usize) {
    let (_, counts) = super::zone_counts(stdout.lines().next().unwrap_or_default());
    counts
}

/// Imports `file`, seeds an emulator from BIND's reading of it, and plans: no changes, and
/// only the `findings` (`code target declared_at`).
fn assert_differential(file: &str, listed: bool, findings: &[&str]) {
    let dir = copy_corpus();
    let bind = named_compilezone(file);
    let seed = seed_records(&bind);
    let import = Test::new()
        .args(["import", "--from", "bind", file, "--out", "out"])
        .current_dir(dir.path());
    let import = import.snapshot();
    assert!(
        import.starts_with(if listed {
            "exit: Some(1)"
        } else {
            "exit: Some(0)"
        }),
        "{import}"
    );
    insta::assert_snapshot!(
        format!("bind_import_{}", file.trim_end_matches(".zone")),
        import
    );
    let stdout = crate::common::stdout_of(&import);
    let (managed, source, left) = summary_counts(stdout);
    assert_eq!(source, bind.len(), "the records BIND reads from {file}");
    assert_eq!(managed, source - left, "{stdout}");
    assert_eq!(managed, seed.len(), "the records the API holds of {file}");
    let emu = emulator_with(seed);
    assert_eq!(super::unchanged_plan_findings(&emu, dir.path()), findings);
}

#[test]
fn ttls_with_units_and_class_and_ttl_in_either_order() {
    assert_differential("ttl_and_class.zone", false, &[]);
}

#[test]
fn blank_owners_parentheses_and_comments() {
    assert_differential("owners_and_parens.zone", false, &[]);
}

#[test]
fn txt_escapes_the_255_octet_split_and_several_strings() {
    assert_differential("txt.zone", false, &[]);
}

#[test]
fn a_cloudflare_export_without_apex_ns() {
    assert_differential(
        "cloudflare.zone",
        false,
        &["spf-not-followed example.com out/zones/example.com.yaml:10:5"],
    );
}

#[test]
fn includes_inside_the_folder() {
    assert_differential("include.zone", false, &[]);
}

#[test]
fn generate_with_every_format() {
    assert_differential("generate.zone", false, &[]);
}

#[test]
fn relative_and_absolute_names_and_origins() {
    assert_differential("names.zone", false, &[]);
}

#[test]
fn types_the_api_does_not_hold_are_listed_and_the_rest_imported() {
    assert_differential("unknown_types.zone", true, &[]);
}

/// The cutover: the zone added empty in the portal; the first plan creates every record, apply
/// writes them, and the plan after shows no changes.
#[test]
fn into_an_empty_zone_the_first_plan_creates_every_record() {
    let dir = copy_corpus();
    Test::new()
        .args([
            "import",
            "--from",
            "bind",
            "cloudflare.zone",
            "--out",
            "out",
        ])
        .current_dir(dir.path())
        .run_for_stdout();
    let emu = emulator_with(Vec::new());
    super::assert_cutover(module_path!(), "bind", dir.path(), &emu);
    assert_eq!(emu.state().visible_records(ZONE).len(), 5);
}

/// The recordings of `recorded` that `fresh` (the recorder's output today) does not hold byte for
/// byte, or holds and `recorded` lacks.
fn stale(recorded: &Path, fresh: &Path) -> Vec<String> {
    let names = |dir: &Path| -> std::collections::BTreeSet<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".named-compilezone.txt"))
            .collect()
    };
    let (old, new) = (names(recorded), names(fresh));
    old.union(&new)
        .filter(|name| {
            std::fs::read(recorded.join(name)).ok() != std::fs::read(fresh.join(name)).ok()
        })
        .cloned()
        .collect()
}

#[cfg(feature = "live-tools")]
mod live {
    use super::*;

    /// Every recording is what `named-compilezone` prints today, and every corpus file has one: the
    /// recorder run into a fresh folder gives the committed files byte for byte.
    #[test]
    fn the_recordings_are_what_named_compilezone_prints_today() {
        let fresh = tempfile::tempdir().unwrap();
        let script = repo_root().join("tests/recorders/bind.sh");
        let output = std::process::Command::new(&script)
            .arg(fresh.path())
            .output()
            .unwrap_or_else(|e| panic!("{} can't be run: {e}", script.display()));
        assert!(
            output.status.success(),
            "{} failed (it needs named-compilezone: Debian bind9-utils):\n{}",
            script.display(),
            String::from_utf8_lossy(&output.stderr)
        );
        assert_eq!(
            stale(&corpus(), fresh.path()),
            Vec::<String>::new(),
            "stale recordings: run tests/record-answers.sh and review the difference"
        );
    }
}

/// The staleness check in its refused form: a recording changed, one missing and one left over
/// are each named (the live test above is only as good as this comparison).
#[test]
fn a_changed_missing_or_extra_recording_is_stale() {
    let recorded = copy_corpus();
    assert_eq!(stale(recorded.path(), &corpus()), Vec::<String>::new());
    let fresh = copy_corpus();
    let txt = fresh.path().join("txt.named-compilezone.txt");
    let text = std::fs::read_to_string(&txt).unwrap();
    std::fs::write(&txt, text.replace("300 IN TXT", "301 IN TXT")).unwrap();
    std::fs::remove_file(fresh.path().join("names.named-compilezone.txt")).unwrap();
    std::fs::write(fresh.path().join("new.named-compilezone.txt"), "").unwrap();
    assert_eq!(
        stale(recorded.path(), fresh.path()),
        [
            "names.named-compilezone.txt",
            "new.named-compilezone.txt",
            "txt.named-compilezone.txt"
        ]
    );
}
