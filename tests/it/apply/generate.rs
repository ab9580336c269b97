//! Seeded random desired/live pairs: records of every type (CNAME swaps, long TXT, other
//! spellings), cron lists with duplicates and odd spacing, nameserver modes. The API refuses
//! identical records, so only cron lists hold duplicates.

use dnscron_emulator::{CronSeed, DomainSeed, RecordSeed, Seed, SiteSeed, TokenSeed, ZoneSeed};

pub const TOKEN: &str = "gen-token";
pub const SERVICE_NS: [&str; 2] = ["ns1.veldhost.net", "ns2.veldhost.net"];

pub struct Case {
    /// The live account.
    pub seed: Seed,
    /// Desired-state files: relative path → YAML.
    pub files: Vec<(String, String)>,
}

struct Slot {
    name: &'static str,
    rtype: &'static str,
    options: Vec<String>,
}

fn long_txt(rng: &mut fastrand::Rng) -> String {
    let body: String = (0..300).map(|_| rng.alphanumeric()).collect();
    format!("v=long1; k={body}")
}

fn slots(zone: &str, rng: &mut fastrand::Rng) -> Vec<Slot> {
    let s = |name, rtype, options: Vec<String>| Slot {
        name,
        rtype,
        options,
    };
    vec![
        s(
            "@",
            "A",
            vec!["192.0.2.1".into(), "192.0.2.2".into(), "192.0.2.3".into()],
        ),
        s(
            "@",
            "AAAA",
            vec!["2001:db8::1".into(), "2001:db8:0:0::2".into()],
        ),
        s(
            "@",
            "MX",
            vec![
                format!("10 mail.{zone}."),
                "20 mx2.example.net.".into(),
                "30 MX3.example.net.".into(),
            ],
        ),
        s(
            "@",
            "TXT",
            vec![
                "v=spf1 mx -all".into(),
                "hello world; semi".into(),
                long_txt(rng),
            ],
        ),
        s(
            "@",
            "CAA",
            vec![
                "0 issue \"letsencrypt.org\"".into(),
                "0 iodef \"mailto:sec@example.net\"".into(),
            ],
        ),
        s(
            "www",
            "A",
            vec!["198.51.100.1".into(), "198.51.100.2".into()],
        ),
        s("*", "A", vec!["198.51.100.9".into()]),
        s(
            "_sip._tcp",
            "SRV",
            vec![
                "10 60 5060 sip.example.net.".into(),
                "20 5 5061 sip2.example.net.".into(),
            ],
        ),
        s(
            "dev",
            "NS",
            vec!["ns1.dev-dns.net.".into(), "ns2.dev-dns.net.".into()],
        ),
        s(
            "ptr",
            "PTR",
            vec!["host1.example.net.".into(), "host2.example.net.".into()],
        ),
        // Two policy-like TXT records at one underscore name; at `_dmarc` two would be a
        // `dmarc-multiple` error, which holds the write (`plan::held`).
        s(
            "_policy",
            "TXT",
            vec!["v=DMARC1; p=none".into(), "v=DMARC1; p=reject".into()],
        ),
    ]
}

type Rec = (String, String, u32, String);

/// One side's records: a random subset of every slot, plus the CNAME-only names.
fn side(slots: &[Slot], rng: &mut fastrand::Rng, live: bool) -> Vec<Rec> {
    let ttls = [300, 600, 3600];
    let mut out = Vec::new();
    for slot in slots {
        // A file declares one TTL per RRset (RFC 2181 §5.2); the live side may mix them.
        let mut slot_ttl = None;
        for option in &slot.options {
            if rng.f32() < 0.5 {
                let drawn = ttls[rng.usize(..ttls.len())];
                let ttl = if live {
                    drawn
                } else {
                    *slot_ttl.get_or_insert(drawn)
                };
                out.push((slot.name.into(), slot.rtype.into(), ttl, option.clone()));
            }
        }
    }
    // `alias` holds at most one CNAME; `swap` holds A records or one CNAME.
    if rng.bool() {
        let target = ["a.example.net.", "b.example.net."][rng.usize(..2)];
        out.push(("alias".into(), "CNAME".into(), 300, target.into()));
    }
    if rng.bool() {
        out.push(("swap".into(), "CNAME".into(), 300, "c.example.net.".into()));
    } else {
        out.push(("swap".into(), "A".into(), 300, "203.0.113.7".into()));
        if rng.bool() {
            out.push(("swap".into(), "A".into(), 300, "203.0.113.8".into()));
        }
    }
    if !live && !out.iter().any(|r| r.0 == "@" && r.1 == "A") {
        out.push(("@".into(), "A".into(), 3600, "192.0.2.1".into()));
    }
    out
}

const JOBS: [(&str, &str); 6] = [
    ("*/5 * * * *", "php artisan schedule:run"),
    ("0 3 * * *", "wp transient delete --expired"),
    ("0 * * * *", "wp cache flush"),
    ("30 2 * * 0", "php bin/cleanup.php --days=30"),
    ("15 4 * * 1", "php bin/report.php"),
    ("*/15 * * * *", "wp cron event run --due-now"),
];

fn spaced(text: &str, rng: &mut fastrand::Rng) -> String {
    if rng.f32() < 0.3 {
        text.replace(' ', "  ")
    } else {
        text.to_string()
    }
}

fn q(text: &str) -> String {
    serde_json::to_string(text).unwrap()
}

fn custom_ns(rng: &mut fastrand::Rng) -> Vec<String> {
    let sets = [
        ["ns1.other-dns.net", "ns2.other-dns.net"],
        ["a.ns.example.org", "b.ns.example.org"],
    ];
    sets[rng.usize(..sets.len())]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

pub fn case(seed: u64) -> Case {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut live = Seed::default().with_token(TokenSeed::full(TOKEN, "gen"));
    let mut files = Vec::new();
    for z in 0..rng.usize(1..=2) {
        let zone = format!("zone{z}.example");
        let slots = slots(&zone, &mut rng);
        let mut zs = ZoneSeed::new(&zone);
        for (name, rtype, ttl, content) in side(&slots, &mut rng, true) {
            zs = zs.with_record(RecordSeed::new(&name, &rtype, &content).with_ttl(ttl));
        }
        live = live.with_zone(zs);
        let mut domain = DomainSeed::new(&zone);
        if rng.bool() {
            let ns = custom_ns(&mut rng);
            domain = domain.with_nameservers(&[&ns[0], &ns[1]]);
        }
        live = live.with_domain(domain);

        let mut yaml = format!("zone: {zone}\n");
        match rng.usize(..3) {
            0 => {}
            1 => yaml.push_str("nameservers:\n  mode: hosted\n"),
            _ => {
                let ns = custom_ns(&mut rng);
                yaml.push_str(&format!(
                    "nameservers:\n  mode: custom\n  hosts: [{}, {}]\n",
                    ns[0], ns[1]
                ));
            }
        }
        yaml.push_str("records:\n");
        for (name, rtype, ttl, content) in side(&slots, &mut rng, false) {
            yaml.push_str(&format!(
                "  - {{ name: {}, type: {rtype}, ttl: {ttl}, content: {} }}\n",
                q(&name),
                q(&content)
            ));
        }
        files.push((format!("zones/{zone}.yaml"), yaml));
    }
    for s in 0..rng.usize(1..=2) {
        let slug = format!("site{s}");
        let mut site = SiteSeed::new(&slug);
        for _ in 0..rng.usize(0..=5) {
            let (schedule, command) = JOBS[rng.usize(..JOBS.len())];
            site.cron.push(CronSeed {
                schedule: spaced(schedule, &mut rng),
                command: spaced(command, &mut rng),
            });
        }
        live = live.with_site(site);
        let mut jobs: Vec<usize> = (0..JOBS.len()).collect();
        rng.shuffle(&mut jobs);
        jobs.truncate(rng.usize(0..=5));
        let mut yaml = format!("site: {slug}\ncron:");
        if jobs.is_empty() {
            yaml.push_str(" []\n");
        } else {
            yaml.push('\n');
            for j in jobs {
                let (schedule, command) = JOBS[j];
                yaml.push_str(&format!(
                    "  - {{ schedule: {}, command: {} }}\n",
                    q(schedule),
                    q(command)
                ));
            }
        }
        files.push((format!("sites/{slug}.yaml"), yaml));
    }
    Case { seed: live, files }
}
