//! The controller against `apply --yes` over shared fixtures (issue #37, "Every gate of `apply`
//! guards the controller's writes"): for every refusal and stop an apply of the files can give
//! (the safety limits, a held finding, a precondition the server enforces, a portal step,
//! nameservers not ready, a token without the scope), a controller applying the same change as
//! a merged revision sends the same writes, leaves the account the same and stops the same way.
//!
//! The apply side is the core entry `apply --yes` drives (`Workflow::files` with
//! `Binding::Nothing`, its switch check as `--nameserver-address` and
//! `--allow-unready-nameservers` make it); both sides run on tokio's paused clock against an
//! emulator of their own, seeded alike.

use dnscron_api::{ApiConfig, Token, WriteClient};
use dnscron_core::apply::workflow::{Binding, Execution, Refusal, Workflow};
use dnscron_core::apply::{ApplyReport, ApplyResult, Silent};
use dnscron_core::controller::{
    Controller, Mode, Pending, RoundError, RoundOutcome, Settings, StateStore, Trigger, Work,
    readiness_check,
};
use dnscron_core::dnscheck::AddressBook;
use dnscron_core::plan::{MakePlanError, PlanError};
use dnscron_emulator::Scope;
use dnscron_emulator::{
    DomainSeed, Emulator, RateLimit, RecordSeed, Seed, SiteSeed, TokenSeed, ZoneSeed,
};

const TOKEN: &str = "t";
const WWW: &str = "  - {name: www, type: A, content: 192.0.2.1, ttl: 300}\n";

/// One refusal or stop: the account, the files before (in sync with it) and after, and whether
/// the switch check runs (`false`: `--allow-unready-nameservers`).
struct Case {
    name: &'static str,
    seed: Seed,
    before: Vec<(&'static str, String)>,
    after: Vec<(&'static str, String)>,
    check_nameservers: bool,
}

fn zone(records: &str, extra: &str) -> String {
    format!("zone: a.example\n{extra}records:\n{records}")
}

fn base_seed(token: TokenSeed) -> Seed {
    let mut seed = Seed::default().with_token(token);
    seed.rate_limit = RateLimit::off();
    let mut www = RecordSeed::new("www", "A", "192.0.2.1");
    www.ttl = 300;
    seed.with_zone(ZoneSeed::new("a.example").with_record(www))
        .with_domain(DomainSeed::new("a.example"))
}

const CUSTOM: &str =
    "nameservers:\n  mode: custom\n  hosts: [ns1.other-dns.net, ns2.other-dns.net]\n";

fn cases() -> Vec<Case> {
    let full = || base_seed(TokenSeed::full(TOKEN, "owner"));
    let in_sync = || vec![("a.yaml", zone(WWW, ""))];
    let mut dnssec = full();
    dnssec.domains[0].dnssec = true;
    let suspended = full().with_site(SiteSeed::new("shop").with_state("suspended"));
    vec![
        Case {
            name: "safety limits (the zone emptied)",
            seed: full(),
            before: in_sync(),
            after: vec![("a.yaml", "zone: a.example\nrecords: []\n".into())],
            check_nameservers: true,
        },
        Case {
            name: "held by an error finding",
            seed: full(),
            before: in_sync(),
            after: vec![(
                "a.yaml",
                zone(
                    &format!("{WWW}  - {{ name: _dmarc, type: TXT, content: 'v=DMARC1\\; p=reject' }}\n"),
                    "",
                ),
            )],
            check_nameservers: true,
        },
        Case {
            name: "a precondition the server enforces (cron on a suspended site: reactivate it in the portal)",
            seed: suspended,
            before: vec![("a.yaml", zone(WWW, "")), ("shop.yaml", "site: shop\ncron: []\n".into())],
            after: vec![
                ("a.yaml", zone(WWW, "")),
                (
                    "shop.yaml",
                    "site: shop\ncron:\n  - { schedule: \"0 3 * * *\", command: \"php backup.php\" }\n".into(),
                ),
            ],
            check_nameservers: true,
        },
        Case {
            name: "a portal step (nameservers while DNSSEC is active)",
            seed: dnssec,
            before: in_sync(),
            after: vec![("a.yaml", zone(WWW, CUSTOM))],
            check_nameservers: false,
        },
        Case {
            name: "nameservers not ready",
            seed: full(),
            before: in_sync(),
            after: vec![(
                "a.yaml",
                zone(&format!("{WWW}  - {{name: api, type: A, content: 192.0.2.7, ttl: 300}}\n"), CUSTOM),
            )],
            check_nameservers: true,
        },
        Case {
            name: "a token without the dns scope",
            seed: base_seed(TokenSeed::full(TOKEN, "owner").with_scopes(&[Scope::Read, Scope::Manage])),
            before: in_sync(),
            after: vec![(
                "a.yaml",
                zone(&format!("{WWW}  - {{name: api, type: A, content: 192.0.2.7, ttl: 300}}\n"), ""),
            )],
            check_nameservers: true,
        },
    ]
}

/// What one side did: its writes by route, the account after, and how it stopped.
#[derive(Debug, PartialEq)]
struct Seen {
    writes: Vec<(String, u64)>,
    account: Vec<String>,
    stop: String,
}

fn account(emu: &Emulator) -> Vec<String> {
    let state = emu.state();
    let mut out: Vec<String> = state
        .visible_records("a.example")
        .iter()
        .map(|r| format!("{} {} {}", r.name, r.rtype, r.content))
        .collect();
    out.push(format!(
        "registry {:?}",
        state.domains["a.example"].registry_nameservers
    ));
    let cron = state
        .sites
        .get("shop")
        .map(|s| s.cron.len())
        .unwrap_or_default();
    out.push(format!("shop cron {cron}"));
    out.sort();
    out
}

fn writes(emu: &Emulator) -> Vec<(String, u64)> {
    emu.counters()
        .per_route
        .into_iter()
        .filter(|(route, _)| !route.starts_with("GET "))
        .collect()
}

fn refusal_stop(refusal: &Refusal) -> String {
    match refusal {
        Refusal::HeldByFinding { .. } => "held".into(),
        Refusal::LimitsHeld { .. } => "limits".into(),
        Refusal::MakePlan(inner)
            if matches!(**inner, MakePlanError::Plan(PlanError::Unsafe(_))) =>
        {
            "limits".into()
        }
        other @ (Refusal::Union(_)
        | Refusal::ApiUrl { .. }
        | Refusal::Unreviewed { .. }
        | Refusal::Plan(_)
        | Refusal::MakePlan(_)) => format!("refused: {other}"),
    }
}

fn report_stop(report: &ApplyReport) -> String {
    match &report.result {
        ApplyResult::Converged => "converged".into(),
        ApplyResult::NeedsPortalStep { .. } => "portal step".into(),
        ApplyResult::NameserversNotReady { .. } => "nameservers not ready".into(),
        ApplyResult::Failed { error, .. } => format!("failed {:?}", error.status),
        other @ (ApplyResult::NoChanges
        | ApplyResult::AlreadyApplied
        | ApplyResult::Differs { .. }
        | ApplyResult::VerifyFailed { .. }
        | ApplyResult::NotVisible { .. }
        | ApplyResult::Interrupted
        | ApplyResult::ChangedSinceReview { .. }
        | ApplyResult::ChangedDuringApply { .. }
        | ApplyResult::CronIndexMoved { .. }) => format!("{other:?}"),
    }
}

fn files(dir: &std::path::Path, files: &[(&str, String)]) {
    for entry in std::fs::read_dir(dir).unwrap() {
        std::fs::remove_file(entry.unwrap().path()).unwrap();
    }
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
}

fn config(emu: &Emulator) -> ApiConfig {
    let config = ApiConfig::new(&emu.base_url(), Token::new(TOKEN).unwrap()).unwrap();
    dnscron_core::controller::api_config(config, 100, 120)
}

fn readiness(case: &Case) -> Option<dnscron_core::apply::dns::DnsOptions> {
    // No nameserver address is known and the system resolver is never asked: a switch's new
    // nameservers can't be reached, so they are not ready.
    let book = AddressBook::new(Vec::new()).without_system_resolver();
    case.check_nameservers.then(|| readiness_check(book))
}

async fn apply_yes(case: &Case) -> Seen {
    let emu = dnscron_emulator::start(case.seed.clone(), "127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    files(tmp.path(), &case.after);
    let texts: Vec<_> = case
        .after
        .iter()
        .map(|(name, text)| (tmp.path().join(name), text.clone()))
        .collect();
    let desired = dnscron_core::config::load_texts(&texts).unwrap();
    let client = WriteClient::new(config(&emu)).unwrap();
    let workflow = Workflow::files(&client, desired, Binding::Nothing);
    let stop = match workflow.prepare().await {
        Err(refusal) => refusal_stop(&refusal),
        Ok(prepared) => {
            let mut execution = Execution::new(&Silent);
            execution.visibility_waits = Vec::new();
            execution.dns = readiness(case);
            match prepared.run(&execution).await {
                Ok(report) => report_stop(&report),
                Err(refusal) => refusal_stop(&refusal),
            }
        }
    };
    Seen {
        writes: writes(&emu),
        account: account(&emu),
        stop,
    }
}

async fn controller(case: &Case) -> Seen {
    let emu = dnscron_emulator::start(case.seed.clone(), "127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    files(&repo, &case.before);
    let settings = Settings {
        visibility_waits: Vec::new(),
        dns: readiness(case),
        ..Settings::new(repo.clone())
    };
    let store = StateStore::new(Some(tmp.path().join("state.json")), repo.clone());
    let mode = Mode::ApplyMerged(WriteClient::new(config(&emu)).unwrap());
    let mut controller = Controller::new(mode, settings, store, None);
    let (base, _) = controller.round(Trigger::Start).await;
    assert!(
        matches!(base.work, Work::Adopted),
        "{}: {base:?}",
        case.name
    );
    files(&repo, &case.after);
    let (report, _) = controller.round(Trigger::Revision).await;
    let stop = match (&report.work, &report.outcome) {
        (_, RoundOutcome::Held(refusal) | RoundOutcome::Refused(refusal)) => refusal_stop(refusal),
        (_, RoundOutcome::Failed(RoundError::Apply(refusal))) => refusal_stop(refusal),
        (
            Work::Applied {
                report: Some(applied),
                ..
            },
            _,
        ) => report_stop(applied),
        other => panic!("{}: {other:?}", case.name),
    };
    if stop == "nameservers not ready" {
        assert_eq!(controller.status().pending, Some(Pending::Nameservers));
    }
    Seen {
        writes: writes(&emu),
        account: account(&emu),
        stop,
    }
}

#[tokio::test(start_paused = true)]
async fn the_controller_refuses_and_stops_as_apply_yes_does() {
    let mut stops = Vec::new();
    for case in cases() {
        let applied = apply_yes(&case).await;
        let controlled = controller(&case).await;
        assert_eq!(controlled, applied, "{}", case.name);
        stops.push(applied.stop);
    }
    // Every kind of stop is covered, and each case is the one it is named after.
    assert_eq!(
        stops,
        [
            "limits",
            "held",
            "portal step",
            "portal step",
            "nameservers not ready",
            "failed Some(403)",
        ]
    );
}
