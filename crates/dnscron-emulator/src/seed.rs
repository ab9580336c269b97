//! The seed: everything the emulator starts with (tokens, sites, domains, zones) plus the
//! settings for the spec's gaps, the rate limit and fault injection. Read from YAML, or built in
//! Rust by tests (every field is public and every struct has a `Default`).

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::EmulatorError;

use dnscron_provider::Scope;

use super::settings::{Faults, Gaps, RateLimit, validate_settings};

/// The example account of `examples/emulator-seed.yaml`, compiled in so `dnscron emulator`
/// works without `--seed` and tests can start from the documented account.
const EXAMPLE_SEED: &str = include_str!("../../../examples/emulator-seed.yaml");

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Seed {
    /// The service's own nameservers: what the hosted mode delegates to.
    #[serde(default = "default_service_nameservers")]
    pub service_nameservers: Vec<String>,
    /// Base of every `continue_url` (the portal).
    #[serde(default = "default_portal_url")]
    pub portal_url: String,
    #[serde(default)]
    pub tokens: Vec<TokenSeed>,
    #[serde(default)]
    pub sites: Vec<SiteSeed>,
    #[serde(default)]
    pub domains: Vec<DomainSeed>,
    #[serde(default)]
    pub zones: Vec<ZoneSeed>,
    /// Domains whose DNS is hosted elsewhere: what `POST /dns/zones/probe` can import.
    #[serde(default)]
    pub external_zones: Vec<ExternalZoneSeed>,
    #[serde(default)]
    pub gaps: Gaps,
    #[serde(default)]
    pub rate_limit: RateLimit,
    #[serde(default)]
    pub faults: Faults,
}

impl Default for Seed {
    fn default() -> Self {
        Seed {
            service_nameservers: default_service_nameservers(),
            portal_url: default_portal_url(),
            tokens: Vec::new(),
            sites: Vec::new(),
            domains: Vec::new(),
            zones: Vec::new(),
            external_zones: Vec::new(),
            gaps: Gaps::default(),
            rate_limit: RateLimit::default(),
            faults: Faults::default(),
        }
    }
}

/// What a seed file may hold: a zone of 500,000 records in block style (9 nodes each).
const SEED_MAX_NODES: usize = 5_000_000;

impl Seed {
    pub fn from_yaml_str(yaml: &str) -> Result<Seed, EmulatorError> {
        Self::parse(yaml, "<seed>")
    }

    pub fn from_path(path: impl AsRef<Path>) -> Result<Seed, EmulatorError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| EmulatorError::Seed {
            source_name: path.display().to_string(),
            message: format!("cannot read the file: {e}"),
        })?;
        Self::parse(&text, &path.display().to_string())
    }

    /// The documented example account (`examples/emulator-seed.yaml`).
    pub fn example() -> Seed {
        // The file is compiled in and covered by a test, so this cannot fail at run time;
        // fall back to an empty seed rather than panic all the same.
        Self::from_yaml_str(EXAMPLE_SEED).unwrap_or_default()
    }

    fn parse(yaml: &str, source_name: &str) -> Result<Seed, EmulatorError> {
        Self::parse_within(yaml, source_name, SEED_MAX_NODES)
    }

    fn parse_within(
        yaml: &str,
        source_name: &str,
        max_nodes: usize,
    ) -> Result<Seed, EmulatorError> {
        // serde-saphyr's default budget (250,000 nodes, 1 M events) stops at about 27,000
        // records; a benchmark seeds 100,000 and more. The other limits stay the defaults.
        let options = serde_saphyr::options! {
            budget: serde_saphyr::budget! {
                max_nodes: max_nodes,
                max_events: 2 * max_nodes,
            },
        };
        let seed: Seed = serde_saphyr::from_str_with_options(yaml, options).map_err(|e| {
            EmulatorError::Seed {
                source_name: source_name.to_string(),
                message: e.to_string(),
            }
        })?;
        seed.validate().map_err(|message| EmulatorError::Seed {
            source_name: source_name.to_string(),
            message,
        })?;
        Ok(seed)
    }

    /// Checks what serde cannot: ranges and uniqueness.
    pub fn validate(&self) -> Result<(), String> {
        validate_settings(&self.gaps, &self.rate_limit, &self.faults)?;
        if self.service_nameservers.is_empty() {
            return Err("service_nameservers must name at least one host".into());
        }
        unique(
            "tokens[].token",
            self.tokens.iter().map(|t| t.token.as_str()),
        )?;
        unique("sites[].slug", self.sites.iter().map(|s| s.slug.as_str()))?;
        unique(
            "domains[].domain",
            self.domains.iter().map(|d| d.domain.as_str()),
        )?;
        unique("zones[].zone", self.zones.iter().map(|z| z.zone.as_str()))?;
        Ok(())
    }

    /// Adds a token (builder style).
    pub fn with_token(mut self, token: TokenSeed) -> Seed {
        self.tokens.push(token);
        self
    }

    pub fn with_site(mut self, site: SiteSeed) -> Seed {
        self.sites.push(site);
        self
    }

    pub fn with_domain(mut self, domain: DomainSeed) -> Seed {
        self.domains.push(domain);
        self
    }

    pub fn with_zone(mut self, zone: ZoneSeed) -> Seed {
        self.zones.push(zone);
        self
    }
}

fn unique<'a>(what: &str, items: impl Iterator<Item = &'a str>) -> Result<(), String> {
    let mut seen = std::collections::BTreeSet::new();
    for item in items {
        if !seen.insert(item.to_ascii_lowercase()) {
            return Err(format!("{what}: `{item}` appears twice"));
        }
    }
    Ok(())
}

fn default_service_nameservers() -> Vec<String> {
    vec!["ns1.veldhost.net".into(), "ns2.veldhost.net".into()]
}

fn default_portal_url() -> String {
    "https://portal.veldhost.example".into()
}

fn default_true() -> bool {
    true
}

/// A personal API token. `read` is always on, whatever `scopes` says.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TokenSeed {
    pub token: String,
    /// Tokens of one user share one rate-limit bucket.
    pub user: String,
    #[serde(default)]
    pub scopes: Vec<Scope>,
    /// Sites pinned to the token; absent means all sites.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sites: Option<Vec<String>>,
}

impl TokenSeed {
    /// A token with every scope on every site.
    pub fn full(token: &str, user: &str) -> TokenSeed {
        TokenSeed {
            token: token.into(),
            user: user.into(),
            scopes: vec![Scope::Read, Scope::Deploy, Scope::Manage, Scope::Dns],
            sites: None,
        }
    }

    pub fn with_scopes(mut self, scopes: &[Scope]) -> TokenSeed {
        self.scopes = scopes.to_vec();
        self
    }

    pub fn pinned_to(mut self, sites: &[&str]) -> TokenSeed {
        self.sites = Some(sites.iter().map(|s| s.to_string()).collect());
        self
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SiteSeed {
    pub slug: String,
    /// `active`, `suspended`, `provisioning`, …; only `active` accepts cron writes.
    #[serde(default = "default_site_state")]
    pub state: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default)]
    pub cron: Vec<CronSeed>,
}

impl SiteSeed {
    pub fn new(slug: &str) -> SiteSeed {
        SiteSeed {
            slug: slug.into(),
            state: default_site_state(),
            url: None,
            cron: Vec::new(),
        }
    }

    pub fn with_state(mut self, state: &str) -> SiteSeed {
        self.state = state.into();
        self
    }

    pub fn with_cron(mut self, schedule: &str, command: &str) -> SiteSeed {
        self.cron.push(CronSeed {
            schedule: schedule.into(),
            command: command.into(),
        });
        self
    }
}

fn default_site_state() -> String {
    "active".into()
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CronSeed {
    pub schedule: String,
    pub command: String,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DomainSeed {
    pub domain: String,
    #[serde(default = "default_expiry")]
    pub expiry: String,
    #[serde(default = "default_true")]
    pub auto_renew: bool,
    #[serde(default = "default_transfer_state")]
    pub transfer_state: String,
    /// DNSSEC active at the registry (then nameserver changes need the portal).
    #[serde(default)]
    pub dnssec: bool,
    /// What the registry delegates to; absent means the service's own nameservers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nameservers: Option<Vec<String>>,
    #[serde(default = "default_true")]
    pub lock: bool,
    #[serde(default = "default_true")]
    pub whois_privacy: bool,
    /// What public resolvers see; absent means the same as `nameservers` (no lag).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolver_nameservers: Option<Vec<String>>,
    /// The registrar's nameserver `state` word; absent: `synced` when registry and resolver
    /// name the same hosts (order, case and final dots aside), else `pending`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nameserver_state: Option<String>,
    /// The DS set the service publishes for the zone; absent: one derived from the name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub our_ds: Option<Vec<String>>,
    /// The DS set at the registry; absent: `our_ds` while DNSSEC is on, else none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registry_ds: Option<Vec<String>>,
}

impl DomainSeed {
    pub fn new(domain: &str) -> DomainSeed {
        DomainSeed {
            domain: domain.into(),
            expiry: default_expiry(),
            auto_renew: true,
            transfer_state: default_transfer_state(),
            dnssec: false,
            nameservers: None,
            lock: true,
            whois_privacy: true,
            resolver_nameservers: None,
            nameserver_state: None,
            our_ds: None,
            registry_ds: None,
        }
    }

    pub fn with_dnssec(mut self, active: bool) -> DomainSeed {
        self.dnssec = active;
        self
    }

    pub fn with_nameservers(mut self, nameservers: &[&str]) -> DomainSeed {
        self.nameservers = Some(nameservers.iter().map(|s| s.to_string()).collect());
        self
    }
}

fn default_expiry() -> String {
    "2027-06-30".into()
}

fn default_transfer_state() -> String {
    "none".into()
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ZoneSeed {
    pub zone: String,
    #[serde(default)]
    pub records: Vec<RecordSeed>,
}

impl ZoneSeed {
    pub fn new(zone: &str) -> ZoneSeed {
        ZoneSeed {
            zone: zone.into(),
            records: Vec::new(),
        }
    }

    pub fn with_record(mut self, record: RecordSeed) -> ZoneSeed {
        self.records.push(record);
        self
    }

    /// Adds many records at once (e.g. a generated 10,000-record zone).
    pub fn with_records(mut self, records: impl IntoIterator<Item = RecordSeed>) -> ZoneSeed {
        self.records.extend(records);
        self
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RecordSeed {
    pub name: String,
    #[serde(rename = "type")]
    pub rtype: String,
    #[serde(default = "default_ttl")]
    pub ttl: u32,
    /// Stored exactly as written (so a seed can hold drifted spellings).
    pub content: String,
    /// Absent: hidden when it is a system or DNSSEC record (SOA, apex NS, DNSKEY, RRSIG, NSEC,
    /// NSEC3, DS, CDS, CDNSKEY).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hidden: Option<bool>,
}

impl RecordSeed {
    pub fn new(name: &str, rtype: &str, content: &str) -> RecordSeed {
        RecordSeed {
            name: name.into(),
            rtype: rtype.into(),
            ttl: default_ttl(),
            content: content.into(),
            hidden: None,
        }
    }

    pub fn with_ttl(mut self, ttl: u32) -> RecordSeed {
        self.ttl = ttl;
        self
    }
}

fn default_ttl() -> u32 {
    3600
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ExternalZoneSeed {
    pub domain: String,
    /// Who registers the domain today (`null`: registered with the service).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registrar: Option<String>,
    /// The nameservers it is delegated to today.
    #[serde(default)]
    pub nameservers: Vec<String>,
    #[serde(default)]
    pub dnssec: bool,
    #[serde(default)]
    pub records: Vec<RecordSeed>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_example_seed_parses() {
        let seed = Seed::from_yaml_str(EXAMPLE_SEED).unwrap();
        assert_eq!(seed.tokens.len(), 3);
        assert_eq!(seed.zones.len(), 4);
        assert_eq!(seed.gaps, Gaps::default());
    }

    #[test]
    fn unknown_keys_and_bad_ranges_are_refused() {
        assert!(Seed::from_yaml_str("tokenz: []").is_err());
        assert!(Seed::from_yaml_str("gaps: {cron_index_base: 2}").is_err());
        assert!(Seed::from_yaml_str("faults: {upstream_error_share: 1.5}").is_err());
    }

    /// One zone of `n` records, 9 YAML nodes each (the mapping, 4 keys, 4 values).
    fn zone_of(n: usize) -> String {
        let mut yaml = String::from("zones:\n  - zone: example.com\n    records:\n");
        for i in 0..n {
            yaml.push_str(&format!(
                "      - {{ name: n{i}, type: A, ttl: 300, content: 192.0.2.1 }}\n"
            ));
        }
        yaml
    }

    #[test]
    fn a_seed_beyond_serde_saphyrs_default_node_budget_loads() {
        // 30,000 records are 270,000 nodes: over the default 250,000.
        let seed = Seed::from_yaml_str(&zone_of(30_000)).unwrap();
        assert_eq!(seed.zones[0].records.len(), 30_000);
    }

    #[test]
    fn a_seed_beyond_the_node_budget_is_refused() {
        let err = Seed::parse_within(&zone_of(20), "big.yaml", 100).unwrap_err();
        let EmulatorError::Seed {
            source_name,
            message,
        } = err
        else {
            panic!("not a seed error: {err:?}");
        };
        assert_eq!(source_name, "big.yaml");
        let first_line = message.lines().next().unwrap_or_default();
        assert_eq!(
            first_line,
            "error: line 14 column 17: budget breached: Nodes { nodes: 101 }"
        );
    }
}
