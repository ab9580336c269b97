//! Generated accounts: the desired files (written as YAML, loaded by `config::load` like the
//! CLI does) and the emulator seed holding the live side, with a known drift between them, so
//! every theoretical minimum is computed from what was generated, not from what dnscron did.

use std::fmt::Write as _;
use std::path::Path;

use dnscron_emulator::{RateLimit, RecordSeed, Seed, SiteSeed, TokenSeed, ZoneSeed};

/// The token every benchmark client uses, and a second token of the same user.
pub const TOKEN: &str = "bench-token";
pub const TOKEN_2: &str = "bench-token-2";
const USER: &str = "bench";

/// How one zone's live records differ from its file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Drift {
    /// Declared records missing live (the plan creates them).
    pub creates: usize,
    /// Declared records whose live twin differs (content for even ones, ttl for odd ones).
    pub updates: usize,
    /// Live records not declared (the plan deletes them).
    pub deletes: usize,
}

impl Drift {
    /// About `percent` % of `records`, split evenly between creates, updates and deletes.
    pub fn share(records: usize, percent: f64) -> Drift {
        let total = (records as f64 * percent / 100.0).round() as usize;
        let third = total / 3;
        Drift {
            creates: total - 2 * third,
            updates: third,
            deletes: third,
        }
    }

    pub fn changes(&self) -> usize {
        self.creates + self.updates + self.deletes
    }
}

/// Which records a generated zone holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Records `n0 … n{N-1}`, one per name, cycling through A, AAAA, TXT, CNAME, MX.
    Mixed,
    /// Names `n0 … n{N/2-1}` with one A and one TXT record each: the zone of the octoDNS
    /// comparison (issue 14), which both tools can hold (no CNAME beside other records).
    ATxt,
}

/// One generated zone: its file and its live records.
pub struct ZoneGen {
    pub zone: String,
    pub records: usize,
    pub drift: Drift,
    pub shape: Shape,
}

impl ZoneGen {
    pub fn new(zone: &str, records: usize, drift: Drift) -> ZoneGen {
        ZoneGen {
            zone: zone.into(),
            records,
            drift,
            shape: Shape::Mixed,
        }
    }

    pub fn with_shape(self, shape: Shape) -> ZoneGen {
        ZoneGen { shape, ..self }
    }

    /// Visible live records (what the listing pages through).
    pub fn live_records(&self) -> usize {
        self.records - self.drift.creates + self.drift.deletes
    }

    /// Records after the plan is applied (what verification pages through).
    pub fn final_records(&self) -> usize {
        self.records
    }

    /// The zone document (flow style, no `ttl`: every record takes the default, 3600).
    pub fn yaml(&self) -> String {
        let mut out = format!("zone: {}\nrecords:\n", self.zone);
        for r in self.desired() {
            let _ = writeln!(
                out,
                "  - {{ name: {}, type: {}, content: \"{}\" }}",
                r.name, r.rtype, r.content
            );
        }
        out
    }

    /// The declared records, in file order, with the default TTL.
    pub fn desired(&self) -> Vec<RecordSeed> {
        (0..self.records)
            .map(|i| {
                let (name, rtype, content) = self.record(i, i);
                RecordSeed::new(&name, rtype, &content)
            })
            .collect()
    }

    /// Indexes of the declared records that are missing live / differ live.
    fn drifted(&self) -> (Vec<usize>, Vec<usize>) {
        let touched = self.drift.creates + self.drift.updates;
        if touched == 0 {
            return (Vec::new(), Vec::new());
        }
        let stride = (self.records / touched).max(1);
        let picks: Vec<usize> = (0..touched).map(|k| k * stride).collect();
        let (creates, updates) = picks.split_at(self.drift.creates);
        (creates.to_vec(), updates.to_vec())
    }

    /// The live records: the declared ones drifted as `drift` says, then the undeclared `x…`.
    pub fn live(&self) -> Vec<RecordSeed> {
        let (creates, updates) = self.drifted();
        let mut records = Vec::with_capacity(self.live_records());
        let mut u = 0;
        for i in 0..self.records {
            if creates.binary_search(&i).is_ok() {
                continue;
            }
            let (name, rtype, content) = self.record(i, i);
            if updates.binary_search(&i).is_ok() {
                u += 1;
                if u % 2 == 0 {
                    // Same content, another ttl.
                    records.push(RecordSeed::new(&name, rtype, &content).with_ttl(300));
                } else {
                    let (_, _, other) = self.record(i, i + 7_000_000);
                    records.push(RecordSeed::new(&name, rtype, &other));
                }
            } else {
                records.push(RecordSeed::new(&name, rtype, &content));
            }
        }
        for j in 0..self.drift.deletes {
            let (_, content) = typed(0, j + 9_000_000);
            records.push(RecordSeed::new(&format!("x{j}"), "A", &content));
        }
        records
    }

    pub fn seed(&self) -> ZoneSeed {
        ZoneSeed::new(&self.zone).with_records(self.live())
    }

    /// Name, type and content of record `i` with variant `v` (its content).
    fn record(&self, i: usize, v: usize) -> (String, &'static str, String) {
        match self.shape {
            Shape::Mixed => {
                let (rtype, content) = typed(i, v);
                (format!("n{i}"), rtype, content)
            }
            Shape::ATxt => {
                // Even records are A (type 0 of `typed`), odd ones TXT (type 2).
                let (rtype, content) = typed((i % 2) * 2, v);
                (format!("n{}", i / 2), rtype, content)
            }
        }
    }
}

/// Type (by `i`) and content (by variant `v`) of a record.
fn typed(i: usize, v: usize) -> (&'static str, String) {
    match i % 5 {
        0 => (
            "A",
            format!("10.{}.{}.{}", (v >> 16) & 255, (v >> 8) & 255, v & 255),
        ),
        1 => ("AAAA", format!("2001:db8::{:x}:{:x}", v >> 16, v & 0xffff)),
        2 => ("TXT", format!("v=spf1 include:_spf{v}.example.net ~all")),
        3 => ("CNAME", format!("t{v}.example.net.")),
        _ => ("MX", format!("10 mx{v}.example.net.")),
    }
}

/// One generated site: its cron list, and how many jobs are replaced live.
pub struct SiteGen {
    pub slug: String,
    pub jobs: usize,
    /// Jobs whose live command differs: each is a delete plus a create.
    pub replaced: usize,
}

impl SiteGen {
    fn job(&self, j: usize, live: bool) -> (String, String) {
        let schedule = format!("{} {} * * *", (j * 7) % 60, j % 24);
        let variant = if live { "old" } else { "run" };
        (schedule, format!("php artisan {variant}:{}-{j}", self.slug))
    }

    pub fn yaml(&self) -> String {
        let mut out = format!("site: {}\ncron:\n", self.slug);
        for j in 0..self.jobs {
            let (schedule, command) = self.job(j, false);
            let _ = writeln!(
                out,
                "  - {{ schedule: \"{schedule}\", command: \"{command}\" }}"
            );
        }
        out
    }

    pub fn seed(&self) -> SiteSeed {
        (0..self.jobs).fold(SiteSeed::new(&self.slug), |site, j| {
            let (schedule, command) = self.job(j, j < self.replaced);
            site.with_cron(&schedule, &command)
        })
    }
}

/// A whole generated account.
#[derive(Default)]
pub struct Account {
    pub zones: Vec<ZoneGen>,
    pub sites: Vec<SiteGen>,
}

impl Account {
    /// Writes one file per zone and site under `dir` (`zones/`, `sites/`).
    pub fn write_files(&self, dir: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(dir.join("zones"))?;
        std::fs::create_dir_all(dir.join("sites"))?;
        for z in &self.zones {
            std::fs::write(dir.join("zones").join(format!("{}.yaml", z.zone)), z.yaml())?;
        }
        for s in &self.sites {
            std::fs::write(dir.join("sites").join(format!("{}.yaml", s.slug)), s.yaml())?;
        }
        Ok(())
    }

    /// The live side, two tokens of one user, rate limiting as given.
    pub fn seed(&self, rate_limit: RateLimit) -> Seed {
        let mut seed = Seed::default()
            .with_token(TokenSeed::full(TOKEN, USER))
            .with_token(TokenSeed::full(TOKEN_2, USER));
        seed.rate_limit = rate_limit;
        seed.zones = self.zones.iter().map(ZoneGen::seed).collect();
        seed.sites = self.sites.iter().map(SiteGen::seed).collect();
        seed
    }

    pub fn record_changes(&self) -> Drift {
        self.zones.iter().fold(Drift::default(), |acc, z| Drift {
            creates: acc.creates + z.drift.creates,
            updates: acc.updates + z.drift.updates,
            deletes: acc.deletes + z.drift.deletes,
        })
    }

    pub fn cron_replacements(&self) -> usize {
        self.sites.iter().map(|s| s.replaced).sum()
    }

    /// Writes the plan sends (one per change; a cron replacement is a delete plus a create).
    pub fn changes(&self) -> usize {
        self.record_changes().changes() + 2 * self.cron_replacements()
    }
}

/// Workload W of issue 7 (scaled down by `scale` for smoke runs): 200 zones × 50 records,
/// one zone of 20,000, 50 sites × 5 cron jobs, about 2 % of it drifted.
pub fn workload_w(smoke: bool) -> Account {
    let (small_zones, big) = if smoke { (10, 1_000) } else { (200, 20_000) };
    let sites = if smoke { 5 } else { 50 };
    let mut account = Account::default();
    for i in 0..small_zones {
        // One change per 50-record zone is 2 %; rotate its kind.
        let drift = match i % 3 {
            0 => Drift {
                creates: 1,
                ..Drift::default()
            },
            1 => Drift {
                updates: 1,
                ..Drift::default()
            },
            _ => Drift {
                deletes: 1,
                ..Drift::default()
            },
        };
        account
            .zones
            .push(ZoneGen::new(&format!("z{i:03}.example.com"), 50, drift));
    }
    account
        .zones
        .push(ZoneGen::new("big.example.com", big, Drift::share(big, 2.0)));
    for i in 0..sites {
        // 2 % of 250 jobs: one job replaced on every tenth site.
        let replaced = usize::from(i % 10 == 0);
        account.sites.push(SiteGen {
            slug: format!("s{i:02}"),
            jobs: 5,
            replaced,
        });
    }
    account
}

/// `zones` zones of 100 records with 50 changes each (20 creates, 20 updates, 10 deletes):
/// inside the default safety limits, so no `--allow-mass-changes`.
pub fn changes_account(zones: usize, per_zone: Drift) -> Account {
    Account {
        zones: (0..zones)
            .map(|i| ZoneGen::new(&format!("a{i:02}.example.com"), 100, per_zone))
            .collect(),
        sites: Vec::new(),
    }
}

/// One zone of `records` records, 2 % drifted.
pub fn single_zone(records: usize, shape: Shape) -> Account {
    let zone = ZoneGen::new("big.example.com", records, Drift::share(records, 2.0));
    Account {
        zones: vec![zone.with_shape(shape)],
        sites: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drift_is_what_the_seed_holds() {
        let z = ZoneGen::new("a.example.com", 100, Drift::share(100, 30.0));
        assert_eq!(z.drift.changes(), 30);
        let seed = z.seed();
        assert_eq!(seed.records.len(), z.live_records());
        let declared = z.yaml().lines().filter(|l| l.contains("name: n")).count();
        assert_eq!(declared, 100);
        let extra = seed.records.iter().filter(|r| r.name.starts_with('x'));
        assert_eq!(extra.count(), z.drift.deletes);
        let ttl_changed = seed.records.iter().filter(|r| r.ttl == 300).count();
        assert_eq!(ttl_changed, z.drift.updates / 2);
    }

    #[test]
    fn workload_w_counts() {
        let w = workload_w(false);
        assert_eq!(w.zones.len(), 201);
        assert_eq!(w.record_changes().changes(), 200 + 400);
        assert_eq!(w.cron_replacements(), 5);
        assert_eq!(w.changes(), 610);
    }
}
