//! A controller against the emulator in this test's runtime (on tokio's paused clock, so hours
//! of backoff or a simulated day take no real time), over a folder of files the test rewrites.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use dnscron_api::{ApiConfig, ReadClient, Token, WriteClient};
use dnscron_core::controller::{
    Controller, Event, Mode, RoundOutcome, RoundReport, Settings, StateStore, Trigger,
    readiness_check,
};
use dnscron_core::dnscheck::AddressBook;
use dnscron_emulator::{DomainSeed, Emulator, RateLimit, RecordSeed, Seed, TokenSeed, ZoneSeed};

pub const TOKEN: &str = "t";
/// Another token of the same user: an account entry holding it at another account's API is a
/// wrong token, not a second entry of that account.
pub const OTHER_TOKEN: &str = "t2";

/// `zone` with `www A 192.0.2.1` (and whatever `extra` lines add) as its file says it.
pub fn zone_file(zone: &str, extra: &str) -> String {
    format!(
        "zone: {zone}\nrecords:\n  - {{name: www, type: A, content: 192.0.2.1, ttl: 300}}\n{extra}"
    )
}

pub fn seed(zones: &[&str]) -> Seed {
    let mut seed = Seed::default()
        .with_token(TokenSeed::full(TOKEN, "owner"))
        .with_token(TokenSeed::full(OTHER_TOKEN, "owner"));
    seed.rate_limit = RateLimit::off();
    for zone in zones {
        let mut record = RecordSeed::new("www", "A", "192.0.2.1");
        record.ttl = 300;
        seed = seed
            .with_zone(ZoneSeed::new(zone).with_record(record))
            .with_domain(DomainSeed::new(zone));
    }
    seed
}

pub struct Rig {
    pub emu: Emulator,
    _tmp: tempfile::TempDir,
    pub repo: PathBuf,
    pub state: PathBuf,
}

impl Rig {
    /// The emulator seeded with `zones`, and a folder whose files declare them as they are live.
    pub async fn start(zones: &[&str]) -> Rig {
        Rig::start_serving(zones, false).await
    }

    /// [`Rig::start`], the emulator also serving the zones over DNS (`emu.dns_addr()`).
    pub async fn start_with_dns(zones: &[&str]) -> Rig {
        Rig::start_serving(zones, true).await
    }

    /// [`Rig::start`] with the emulator seeded by `seed` (say, `seed(zones)` and a token more).
    pub async fn start_seeded(seed: Seed, zones: &[&str]) -> Rig {
        Rig::start_from(seed, zones, false).await
    }

    async fn start_serving(zones: &[&str], dns: bool) -> Rig {
        Rig::start_from(seed(zones), zones, dns).await
    }

    async fn start_from(seed: Seed, zones: &[&str], dns: bool) -> Rig {
        let local = "127.0.0.1:0".parse().unwrap();
        let emu = dnscron_emulator::start_with_dns(seed, local, dns.then_some(local))
            .await
            .unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        std::fs::create_dir(&repo).unwrap();
        let rig = Rig {
            emu,
            repo,
            state: tmp.path().join("state.json"),
            _tmp: tmp,
        };
        for zone in zones {
            rig.write(&format!("{zone}.yaml"), &zone_file(zone, ""));
        }
        rig
    }

    /// Writes a file of the folder (a new revision of a plain folder).
    pub fn write(&self, name: &str, text: &str) {
        std::fs::write(self.repo.join(name), text).unwrap();
    }

    pub fn config(&self) -> ApiConfig {
        let config = ApiConfig::new(&self.emu.base_url(), Token::new(TOKEN).unwrap()).unwrap();
        dnscron_core::controller::api_config(config, 100, 120)
    }

    pub fn mode(&self, policy: &str, config: ApiConfig) -> Mode {
        match policy {
            "observe" => Mode::Observe(ReadClient::new(config).unwrap()),
            "apply" => Mode::ApplyMerged(WriteClient::new(config).unwrap()),
            "heal" => Mode::Heal(WriteClient::new(config).unwrap()),
            other => panic!("no policy {other}"),
        }
    }

    pub fn settings(&self) -> Settings {
        // Nameservers are reached only where a test says (`--nameserver-address`): no
        // question leaves loopback.
        let book = AddressBook::new(Vec::new()).without_system_resolver();
        Settings {
            visibility_waits: Vec::new(),
            dns: Some(readiness_check(book)),
            ..Settings::new(self.repo.clone())
        }
    }

    /// A controller keeping its state in the rig's state file (`state: false`: none).
    pub fn controller(&self, policy: &str, state: bool) -> Controller {
        self.controller_with(policy, state, self.config(), self.settings())
    }

    pub fn controller_with(
        &self,
        policy: &str,
        state: bool,
        config: ApiConfig,
        settings: Settings,
    ) -> Controller {
        let store = StateStore::new(state.then(|| self.state.clone()), self.repo.clone());
        let converged = store.load().unwrap();
        Controller::new(self.mode(policy, config), settings, store, converged)
    }

    /// `zone`'s visible records as `name type content`, sorted.
    pub fn live(&self, zone: &str) -> Vec<String> {
        let state = self.emu.state();
        let mut out: Vec<String> = state
            .visible_records(zone)
            .iter()
            .map(|r| format!("{} {} {}", r.name, r.rtype, r.content))
            .collect();
        out.sort();
        out
    }

    /// API requests that were not GETs, so far.
    pub fn writes(&self) -> u64 {
        let counters = self.emu.counters();
        counters
            .per_route
            .iter()
            .filter(|(route, _)| !route.starts_with("GET "))
            .map(|(_, n)| n)
            .sum()
    }

    /// API requests by route, so far.
    pub fn routes(&self) -> Vec<(String, u64)> {
        self.emu.counters().per_route.into_iter().collect()
    }

    pub fn repo(&self) -> &Path {
        &self.repo
    }
}

/// Runs `round` and returns its report's outcome name and work name.
pub fn named(report: &RoundReport) -> (&'static str, &'static str) {
    let outcome = match &report.outcome {
        RoundOutcome::Converged => "converged",
        RoundOutcome::Drift => "drift",
        RoundOutcome::Baseline => "baseline",
        RoundOutcome::Conflicted => "conflicted",
        RoundOutcome::Pending(_) => "pending",
        RoundOutcome::Held(_) => "held",
        RoundOutcome::Refused(_) => "refused",
        RoundOutcome::Failed(_) => "failed",
    };
    let work = match &report.work {
        dnscron_core::controller::Work::Adopted => "adopted",
        dnscron_core::controller::Work::Applied { .. } => "applied",
        dnscron_core::controller::Work::Swept { .. } => "swept",
        dnscron_core::controller::Work::Nothing => "nothing",
    };
    (work, outcome)
}

/// One round, named.
pub async fn round(controller: &mut Controller, trigger: Trigger) -> (&'static str, &'static str) {
    let (report, _) = controller.round(trigger).await;
    named(&report)
}

/// What a run's observer saw, as lines a test can compare whole.
#[derive(Clone, Default)]
pub struct Seen {
    pub lines: Arc<Mutex<Vec<String>>>,
}

impl Seen {
    pub fn observe(&self) -> impl Fn(Event<'_>) + Send + Sync + 'static {
        let lines = Arc::clone(&self.lines);
        move |event| {
            let line = match event {
                Event::RoundStarted { trigger } => format!("start {trigger:?}"),
                Event::RoundFinished { report, .. } => {
                    let (work, outcome) = named(report);
                    format!("round {work} {outcome}")
                }
                Event::Alert {
                    kind, transition, ..
                } => format!("alert {kind:?} {transition:?}"),
                Event::Waiting { wait, reason } => format!("wait {reason:?} {wait:?}"),
            };
            lines.lock().unwrap().push(line);
        }
    }

    pub fn lines(&self) -> Vec<String> {
        self.lines.lock().unwrap().clone()
    }
}
