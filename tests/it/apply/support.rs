//! Helpers of the apply tests: emulators in every gap setting, a fast-retrying client, the
//! library plan → apply → plan loop, and independent checks on the emulator's state.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::common::{Test, filters};
use dnscron_api::{ApiConfig, RetryPolicy, Token, WriteClient};
use dnscron_core::apply::{self, ApplyOptions, ApplyReport, Silent};
use dnscron_core::config::model::{Desired, NameserverMode};
use dnscron_core::dns::{self, RecordType};
use dnscron_core::plan::{self, Plan};
use dnscron_emulator::{
    self, BackgroundEmulator, CronDeleteAnswer, CronIndexAfterDelete, Gaps, HostnameEcho,
    RateLimit, RecordNames, Seed, StateSnapshot, TxtFormat,
};

/// Settings that together use every value of every gap the spec leaves open (cron index base
/// and shift after delete, record name style, TXT format, host name echo, extra fields, the
/// hosted nameserver mode's wire value, what a cron delete answers).
#[allow(clippy::needless_update)]
pub fn gap_settings() -> Vec<Gaps> {
    use CronIndexAfterDelete::{Renumber, Stable};
    use HostnameEcho as H;
    use RecordNames as N;
    use TxtFormat as T;
    [
        (0, Renumber, N::Relative, T::AsStored, H::AsStored, true),
        (1, Renumber, N::Absolute, T::Raw, H::Upper, false),
        (0, Stable, N::AbsoluteNoDot, T::Quoted, H::NoFinalDot, true),
        (1, Stable, N::Relative, T::Quoted, H::Upper, true),
        (0, Stable, N::Absolute, T::Raw, H::AsStored, false),
        (
            1,
            Renumber,
            N::AbsoluteNoDot,
            T::AsStored,
            H::NoFinalDot,
            true,
        ),
    ]
    .into_iter()
    .enumerate()
    .map(|(i, (base, after, names, txt, echo, extra))| Gaps {
        hosted_mode_value: if i % 2 == 1 { "acmehost" } else { "veldhost" }.into(),
        cron_index_base: base,
        cron_index_after_delete: after,
        record_names: names,
        txt_format: txt,
        hostname_echo: echo,
        extra_fields: extra,
        cron_delete_answer: [
            CronDeleteAnswer::Job,
            CronDeleteAnswer::Result,
            CronDeleteAnswer::Empty,
        ][i % 3],
        // Gaps the emulator adds later keep their defaults.
        ..Gaps::default()
    })
    .collect()
}

/// An emulator of `seed` with the rate limit off and the given gaps.
pub fn emulator_with(mut seed: Seed, gaps: Gaps) -> BackgroundEmulator {
    seed.rate_limit = RateLimit::off();
    seed.gaps = gaps;
    dnscron_emulator::start_background(seed).unwrap()
}

pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// A client with a tiny backoff and enough attempts to ride out injected faults quickly.
pub fn client(base_url: &str, token: &str) -> WriteClient {
    let mut config = ApiConfig::new(base_url, Token::new(token).unwrap()).unwrap();
    config.retry = RetryPolicy {
        max_attempts: 12,
        max_rate_limited: 20,
        base_delay: Duration::from_millis(1),
        max_delay: Duration::from_millis(4),
    };
    config.request_timeout = Duration::from_secs(10);
    WriteClient::new(config).unwrap()
}

/// Plans like `dnscron plan --allow-mass-changes` (generated pairs may replace whole zones).
pub fn make_plan(rt: &tokio::runtime::Runtime, client: &WriteClient, desired: &Desired) -> Plan {
    let opts = plan::MakeOptions {
        allow_mass_changes: true,
        ..plan::MakeOptions::default()
    };
    rt.block_on(plan::make_plan(client.read(), desired, &opts))
        .unwrap()
        .plan
}

pub fn run_apply(rt: &tokio::runtime::Runtime, client: &WriteClient, plan: &Plan) -> ApplyReport {
    let opts = ApplyOptions::new(plan, &Silent);
    rt.block_on(apply::apply(client, plan, &opts))
}

pub fn load(paths: &[PathBuf]) -> Desired {
    dnscron_core::config::load(paths).unwrap_or_else(|d| panic!("{d}"))
}

pub fn examples() -> Desired {
    let root = crate::common::repo_root();
    load(&[
        root.join("examples/dns/zones"),
        root.join("examples/dns/sites"),
    ])
}

/// Writes `files` (relative path → text) under `dir`; returns `dir`.
pub fn write_files(dir: &Path, files: &[(String, String)]) -> PathBuf {
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir.to_path_buf()
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Checks, from the emulator's own state and without the planner, that the account holds
/// exactly what `desired` declares: every record once (no duplicate, none missing, no extra
/// except those matching an ignore rule), every cron job as many times as declared, and the
/// registrar nameservers. `service_ns` are the emulator's own nameservers.
pub fn assert_state_matches(state: &StateSnapshot, desired: &Desired, service_ns: &[&str]) {
    for zone in &desired.zones {
        let name = zone.zone.as_str();
        let mut live: BTreeMap<(String, RecordType, u32, String), usize> = BTreeMap::new();
        for r in state.visible_records(name) {
            let rtype: RecordType = r.rtype.parse().unwrap();
            let canonical = dns::canonical_content(rtype, &r.content, &zone.zone).unwrap();
            let ignored = zone
                .ignore
                .iter()
                .any(|rule| rule.matches(&r.name, rtype, &canonical));
            if !ignored {
                *live
                    .entry((r.name.clone(), rtype, r.ttl, canonical))
                    .or_default() += 1;
            }
        }
        let mut want: BTreeMap<(String, RecordType, u32, String), usize> = BTreeMap::new();
        for r in &zone.records {
            let rel = dns::record_name_to_relative(&r.name, &zone.zone).unwrap();
            want.insert((rel, r.rtype, r.ttl, r.canonical.clone()), 1);
        }
        assert_eq!(live, want, "records of zone {name}");
        if let Some(ns) = &zone.nameservers {
            let mut got: Vec<String> = state
                .registry_nameservers(name)
                .iter()
                .map(|h| h.trim_end_matches('.').to_ascii_lowercase())
                .collect();
            got.sort();
            let mut expected: Vec<String> = match &ns.mode {
                NameserverMode::Hosted => service_ns.iter().map(|s| s.to_string()).collect(),
                NameserverMode::Custom(hosts) => hosts.clone(),
            };
            expected.sort();
            assert_eq!(got, expected, "nameservers of {name}");
        }
    }
    for site in &desired.sites {
        let Some(cron) = &site.cron else { continue };
        let mut got: Vec<(String, String)> = state
            .cron(&site.slug)
            .iter()
            .map(|j| (collapse(&j.schedule), collapse(&j.command)))
            .collect();
        got.sort();
        let mut want: Vec<(String, String)> = cron
            .iter()
            .map(|j| (collapse(&j.schedule), collapse(&j.command)))
            .collect();
        want.sort();
        assert_eq!(got, want, "cron jobs of site {}", site.slug);
    }
}

/// Writes (POST/PUT/DELETE) the emulator counted, whatever their outcome.
pub fn writes(emu: &BackgroundEmulator) -> u64 {
    writes_in(&emu.counters())
}

/// Requests other than GETs (and unmatched paths) among `counters`.
pub fn writes_in(counters: &dnscron_emulator::Counters) -> u64 {
    counters
        .per_route
        .iter()
        .filter(|(route, _)| !route.starts_with("GET ") && route.as_str() != "unmatched")
        .map(|(_, n)| n)
        .sum()
}

/// A generated case after one plan and apply against its own emulator.
pub struct AppliedCase {
    pub label: String,
    pub emu: BackgroundEmulator,
    pub rt: tokio::runtime::Runtime,
    pub client: WriteClient,
    pub desired: Desired,
    pub planned_changes: usize,
    pub report: ApplyReport,
}

/// Plans and applies `case` in the gap setting `gaps`, and checks what every such run must
/// give: converged in at most one round (a wrong cron delete or a duplicate would force a repair
/// round), and the emulator's state exactly what the files say.
pub fn apply_generated_case(case: super::generate::Case, gaps: Gaps, seed: u64) -> AppliedCase {
    let dir = tempfile::tempdir().unwrap();
    let desired = load(&[write_files(dir.path(), &case.files)]);
    let label = format!("seed {seed}, {gaps:?}");
    let emu = emulator_with(case.seed, gaps);
    let rt = runtime();
    let client = client(&emu.base_url(), super::generate::TOKEN);
    let plan = make_plan(&rt, &client, &desired);
    let report = run_apply(&rt, &client, &plan);
    assert!(
        matches!(
            report.result,
            apply::ApplyResult::Converged | apply::ApplyResult::NoChanges
        ),
        "{label}: {report:#?}"
    );
    assert!(
        report.rounds <= 1,
        "{label}: needed a repair round: {report:#?}"
    );
    assert_state_matches(&emu.state(), &desired, &super::generate::SERVICE_NS);
    AppliedCase {
        label,
        emu,
        rt,
        client,
        desired,
        planned_changes: plan.changes.len(),
        report,
    }
}

/// Insta settings of the apply tests: the harness's filters, snapshots beside the tests.
pub fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    for (re, with) in filters() {
        s.add_filter(re, with);
    }
    s.set_snapshot_path("snapshots");
    s
}

/// `dnscron` against `emu` with the demo token and a fixed plan id and time.
pub fn dnscron(emu: &BackgroundEmulator, args: &[&str]) -> Test {
    Test::new()
        .args(args)
        .api(&emu.base_url(), "demo-token")
        .plan_stamp()
}

/// `file` with its JSON edited, written as `name` next to it.
pub fn edited(file: &str, name: &str, edit: impl FnOnce(&mut serde_json::Value)) -> String {
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    edit(&mut doc);
    let out = Path::new(file).with_file_name(name);
    std::fs::write(&out, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    out.display().to_string()
}
