//! The rig of the progress tests (`plan`'s and `import`'s lines in CI logs): an account of many
//! zones read at the rate-limit bucket's pace, a client whose waits feed the progress, and the
//! plain lines it writes, taken apart. The emulator runs in the test's runtime, so a test on
//! tokio's paused clock reads for minutes in no real time.

use std::sync::{Arc, Mutex};

use dnscron::render::plan::progress::PlanProgress;
use dnscron_api::{ApiConfig, ReadClient, Token};
use dnscron_core::plan::{ReadProgress, ReadProgressHook};
use dnscron_emulator::{
    DomainSeed, Emulator, RateLimit, RecordSeed, Seed, SiteSeed, TokenSeed, ZoneSeed,
};

/// An account of `zones` zones (`z00.example`, …, each with one `www` A record and its domain)
/// and one site per slug with a nightly job, paced at 60 requests a minute, 10 at once.
pub fn paced_account(zones: usize, sites: &[&str]) -> Seed {
    let mut seed = Seed::default().with_token(TokenSeed::full("t", "owner"));
    seed.rate_limit = RateLimit {
        enabled: true,
        per_minute: 60,
        burst: 10,
    };
    for i in 0..zones {
        let name = format!("z{i:02}.example");
        seed = seed
            .with_zone(ZoneSeed::new(&name).with_record(RecordSeed::new("www", "A", "192.0.2.1")))
            .with_domain(DomainSeed::new(&name));
    }
    for slug in sites {
        seed = seed.with_site(SiteSeed::new(slug).with_cron("0 3 * * *", "php nightly.php"));
    }
    seed
}

/// A read client on `seed`'s emulator, with the plain-lines progress `command` writes.
pub struct Paced {
    pub client: ReadClient,
    pub progress: Arc<PlanProgress>,
    lines: Arc<Mutex<Vec<String>>>,
    _emulator: Emulator,
}

impl Paced {
    pub async fn start(seed: Seed, command: &'static str) -> Paced {
        let emulator = dnscron_emulator::start(seed, "127.0.0.1:0".parse().unwrap())
            .await
            .unwrap();
        let lines = Arc::new(Mutex::new(Vec::<String>::new()));
        let sink = Arc::clone(&lines);
        let progress = PlanProgress::lines(move |line| sink.lock().unwrap().push(line.to_string()))
            .named(command);
        let mut config = ApiConfig::new(&emulator.base_url(), Token::new("t").unwrap()).unwrap();
        config.on_wait = Some(progress.wait_hook());
        let client = ReadClient::new(config).unwrap();
        let progress = Arc::new(progress.with_stats(client.stats()));
        Paced {
            client,
            progress,
            lines,
            _emulator: emulator,
        }
    }

    /// The progress as the planner and the importer take it.
    pub fn hook(&self) -> ReadProgressHook {
        ReadProgressHook(Arc::clone(&self.progress) as Arc<dyn ReadProgress>)
    }

    /// The lines written so far.
    pub fn lines(&self) -> Vec<String> {
        self.lines.lock().unwrap().clone()
    }
}

/// Several accounts' read clients, each on its own emulator (its own bucket), with the
/// plain-lines progress `command` writes counting each apart, as `plan` over a repository does.
pub struct PacedAccounts {
    pub clients: Vec<ReadClient>,
    pub progress: Arc<PlanProgress>,
    lines: Arc<Mutex<Vec<String>>>,
    _emulators: Vec<Emulator>,
}

impl PacedAccounts {
    pub async fn start(accounts: Vec<(&str, Seed)>, command: &'static str) -> PacedAccounts {
        let lines = Arc::new(Mutex::new(Vec::<String>::new()));
        let sink = Arc::clone(&lines);
        let names: Vec<&str> = accounts.iter().map(|(name, _)| *name).collect();
        let progress = PlanProgress::lines(move |line| sink.lock().unwrap().push(line.to_string()))
            .named(command)
            .for_accounts(&names);
        let (mut clients, mut emulators) = (Vec::new(), Vec::new());
        for (index, (_, seed)) in accounts.into_iter().enumerate() {
            let emulator = dnscron_emulator::start(seed, "127.0.0.1:0".parse().unwrap())
                .await
                .unwrap();
            let reads = progress.account(index).unwrap();
            let mut config =
                ApiConfig::new(&emulator.base_url(), Token::new("t").unwrap()).unwrap();
            config.on_wait = Some(reads.wait_hook());
            let client = ReadClient::new(config).unwrap();
            reads.set_stats(client.stats());
            clients.push(client);
            emulators.push(emulator);
        }
        PacedAccounts {
            clients,
            progress: Arc::new(progress),
            lines,
            _emulators: emulators,
        }
    }

    /// The lines written so far.
    pub fn lines(&self) -> Vec<String> {
        self.lines.lock().unwrap().clone()
    }
}

/// One account in a line of several: `` `NAME` (N of M[, Ss of it waiting for the rate limit]) ``.
#[derive(Debug)]
pub struct Reading {
    pub name: String,
    pub done: usize,
    pub total: usize,
    pub waited: Option<u64>,
}

/// A line of several accounts, `COMMAND: read N of M in K accounts after Jm[; still reading
/// READING, …]`, taken apart: the sums, and each account still reading.
pub fn parse_accounts(command: &str, line: &str) -> (Line, Vec<Reading>) {
    let (head, reading) = match line.split_once("; still reading ") {
        Some((head, reading)) => (head, Some(reading)),
        None => (line, None),
    };
    let (sums, after) = head
        .split_once(" accounts after ")
        .unwrap_or_else(|| panic!("{line}"));
    let (sums, _) = sums.rsplit_once(" in ").unwrap_or_else(|| panic!("{line}"));
    let sums = parse(command, &format!("{sums} after {after}"));
    let reading = reading
        .map(|list| {
            list.split("), ")
                .map(|one| {
                    let one = one.trim_end_matches(')');
                    let (name, figures) = one.split_once("` (").unwrap_or_else(|| panic!("{line}"));
                    let (counts, waited) = match figures.split_once(", ") {
                        Some((counts, waited)) => (counts, Some(waiting(line, waited))),
                        None => (figures, None),
                    };
                    let (done, total) = counts
                        .split_once(" of ")
                        .unwrap_or_else(|| panic!("{line}"));
                    Reading {
                        name: name.trim_start_matches('`').to_string(),
                        done: done.parse().unwrap(),
                        total: total.parse().unwrap(),
                        waited,
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    (sums, reading)
}

/// One plain line, `COMMAND: read N of M after Km[, Ss of it waiting for the rate limit]`.
#[derive(Debug)]
pub struct Line {
    pub done: usize,
    pub total: usize,
    pub after: String,
    /// The seconds of the wall clock some read waited for the bucket.
    pub waited: Option<u64>,
}

/// `line` taken apart; panics on any other form, or on a line naming another command.
pub fn parse(command: &str, line: &str) -> Line {
    let rest = line
        .strip_prefix(command)
        .and_then(|rest| rest.strip_prefix(": read "))
        .unwrap_or_else(|| panic!("{line}"));
    let (done, rest) = rest.split_once(" of ").unwrap();
    let (total, rest) = rest.split_once(" after ").unwrap();
    let (after, waited) = match rest.split_once(", ") {
        Some((after, waited)) => (after, Some(waiting(line, waited))),
        None => (rest, None),
    };
    Line {
        done: done.parse().unwrap(),
        total: total.parse().unwrap(),
        after: after.to_string(),
        waited,
    }
}

/// The seconds of `Ss of it waiting for the rate limit`.
fn waiting(line: &str, words: &str) -> u64 {
    words
        .strip_suffix("s of it waiting for the rate limit")
        .and_then(|secs| secs.parse().ok())
        .unwrap_or_else(|| panic!("{line}"))
}
