//! `import --from bind`, then `plan` against an emulator seeded with the same records shows no
//! changes, for every file of the corpus in tests/it/import/bind/ (each names the RFC or issue it
//! comes from). The seed never comes from our reader: BIND's own `named-compilezone` reads the
//! file and prints its canonical records, which become the seed.

use std::path::{Path, PathBuf};
use std::process::Command;

use dnscron_emulator::{RateLimit, RecordSeed, Seed, TokenSeed, ZoneSeed};

use crate::ci_recipes::runner::copy_dir;
use crate::common::emulator::start_emulator;
use crate::common::{Test, mask_ports, repo_root};

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

/// The records BIND reads from `file` (in `dir`), in its canonical text form.
fn named_compilezone(dir: &Path, file: &str) -> Vec<BindRecord> {
    // BIND refuses a zone without apex NS (a Cloudflare export has none): its copy gets one,
    // which is dropped below as every apex NS is.
    const HARNESS_NS: &str = "ns.harness.invalid.";
    let text = std::fs::read_to_string(dir.join(file)).unwrap();
    let copy = format!(".bind-{file}");
    std::fs::write(
        dir.join(&copy),
        format!("{text}\n{ZONE}. 3600 IN NS {HARNESS_NS}\n"),
    )
    .unwrap();
    let output = Command::new("named-compilezone")
        .args(["-q", "-f", "text", "-F", "text", "-o", "-", ZONE, &copy])
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "named-compilezone can't be run ({e}): these tests compare the import with BIND's \
                 own reader; install it (Debian: apt-get install bind9-utils, as .ci/run does)"
            )
        });
    std::fs::remove_file(dir.join(&copy)).unwrap();
    assert!(
        output.status.success(),
        "named-compilezone refused {file}:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
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

/// Imports `file`, seeds an emulator from BIND's reading of it, and plans: no changes.
fn assert_differential(file: &str, listed: bool) {
    let dir = copy_corpus();
    let bind = named_compilezone(dir.path(), file);
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
    let plan = plan_against(dir.path(), seed);
    insta::assert_snapshot!(
        format!("bind_plan_{}", file.trim_end_matches(".zone")),
        plan
    );
}

/// `plan out` in `dir` against an emulator seeded with `seed`, its ports masked: it exits 0
/// only when it shows no changes.
pub(super) fn plan_against(dir: &Path, seed: Vec<RecordSeed>) -> String {
    let emu = emulator_with(seed);
    let plan = super::dnscron(&emu, dir, &["plan", "out", "--detailed-exitcode"]).run_for_stdout();
    mask_ports(&plan)
}

#[test]
fn ttls_with_units_and_class_and_ttl_in_either_order() {
    assert_differential("ttl_and_class.zone", false);
}

#[test]
fn blank_owners_parentheses_and_comments() {
    assert_differential("owners_and_parens.zone", false);
}

#[test]
fn txt_escapes_the_255_octet_split_and_several_strings() {
    assert_differential("txt.zone", false);
}

#[test]
fn a_cloudflare_export_without_apex_ns() {
    assert_differential("cloudflare.zone", false);
}

#[test]
fn includes_inside_the_folder() {
    assert_differential("include.zone", false);
}

#[test]
fn generate_with_every_format() {
    assert_differential("generate.zone", false);
}

#[test]
fn relative_and_absolute_names_and_origins() {
    assert_differential("names.zone", false);
}

#[test]
fn types_the_api_does_not_hold_are_listed_and_the_rest_imported() {
    assert_differential("unknown_types.zone", true);
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
