//! The seed: everything the emulator starts with (tokens, sites, domains, zones) plus the
//! settings for the spec's gaps, the rate limit and fault injection. Read from YAML, or built in
//! Rust by tests (every field is public and every struct has a `Default`).

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::EmulatorError;

/// The example account of `examples/emulator-seed.yaml`, compiled in so `dnscron emulator`
/// works without `--seed` and tests can start from the documented account.
const EXAMPLE_SEED: &str = include_str!("../../examples/emulator-seed.yaml");

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
        let seed: Seed = serde_saphyr::from_str(yaml).map_err(|e| EmulatorError::Seed {
            source_name: source_name.to_string(),
            message: e.to_string(),
        })?;
        seed.validate().map_err(|message| EmulatorError::Seed {
            source_name: source_name.to_string(),
            message,
        })?;
        Ok(seed)
    }

    /// Checks what serde cannot: ranges and uniqueness.
    pub fn validate(&self) -> Result<(), String> {
        if self.gaps.cron_index_base > 1 {
            return Err(format!(
                "gaps.cron_index_base is {}; use 0 or 1",
                self.gaps.cron_index_base
            ));
        }
        for (name, share) in [
            (
                "faults.upstream_error_share",
                self.faults.upstream_error_share,
            ),
            (
                "faults.drop_after_commit_share",
                self.faults.drop_after_commit_share,
            ),
        ] {
            if !(0.0..=1.0).contains(&share) {
                return Err(format!("{name} is {share}; use a share between 0 and 1"));
            }
        }
        if self.rate_limit.per_minute == 0 || self.rate_limit.burst == 0 {
            return Err(
                "rate_limit.per_minute and rate_limit.burst must be at least 1 (set rate_limit.enabled: false to turn it off)"
                    .into(),
            );
        }
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

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    Read,
    Deploy,
    Manage,
    Dns,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Read => "read",
            Scope::Deploy => "deploy",
            Scope::Manage => "manage",
            Scope::Dns => "dns",
        }
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

/// Settings for what the spec leaves open. A client must not depend on any of them.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Gaps {
    /// Index of the first cron job: 0 or 1.
    pub cron_index_base: u8,
    pub cron_index_after_delete: CronIndexAfterDelete,
    pub record_names: RecordNames,
    pub txt_format: TxtFormat,
    /// Unknown extra fields in responses (clients must ignore them).
    pub extra_fields: bool,
    /// The wire value of the nameserver mode that selects the service's own nameservers.
    pub hosted_mode_value: String,
    /// How host names in record content and registrar nameserver lists are echoed.
    pub hostname_echo: HostnameEcho,
}

impl Default for Gaps {
    fn default() -> Self {
        Gaps {
            cron_index_base: 0,
            cron_index_after_delete: CronIndexAfterDelete::Renumber,
            record_names: RecordNames::Relative,
            txt_format: TxtFormat::AsStored,
            extra_fields: true,
            hosted_mode_value: "veldhost".into(),
            hostname_echo: HostnameEcho::AsStored,
        }
    }
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum CronIndexAfterDelete {
    /// Indexes are positions: the jobs after a deleted one move up by one.
    Renumber,
    /// Every job keeps its index; new jobs get one past the highest ever used.
    Stable,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RecordNames {
    /// `www`, `@`.
    Relative,
    /// `www.example.com.`, `example.com.`.
    Absolute,
    /// `www.example.com`, `example.com`.
    AbsoluteNoDot,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TxtFormat {
    /// Exactly as written (seed or API write).
    AsStored,
    /// The logical text, without quotes.
    Raw,
    /// Quoted, split into 255-octet quoted strings.
    Quoted,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum HostnameEcho {
    AsStored,
    /// `MAIL.EXAMPLE.COM.`
    Upper,
    /// `mail.example.com` (final dot removed).
    NoFinalDot,
}

/// Token bucket per user. `X-RateLimit-Limit` states `per_minute`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RateLimit {
    pub enabled: bool,
    /// Refill rate, in requests per minute.
    pub per_minute: u32,
    /// Bucket size: how many requests may come at once.
    pub burst: u32,
}

impl Default for RateLimit {
    fn default() -> Self {
        RateLimit {
            enabled: true,
            per_minute: 120,
            burst: 120,
        }
    }
}

impl RateLimit {
    pub fn off() -> RateLimit {
        RateLimit {
            enabled: false,
            ..RateLimit::default()
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Faults {
    /// Seed of the random choices (same seed + same request order = same faults).
    pub seed: u64,
    /// Added to every API request before it is handled.
    pub latency_ms: u64,
    /// Share (0–1) of writes answered 502 upstream_error before anything changes.
    pub upstream_error_share: f64,
    /// Share (0–1) of writes that commit and then lose the connection without a response.
    pub drop_after_commit_share: f64,
    /// Forced 429 bursts, independent of the bucket.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate_limit_bursts: Option<Bursts>,
}

impl Default for Faults {
    fn default() -> Self {
        Faults {
            seed: 1,
            latency_ms: 0,
            upstream_error_share: 0.0,
            drop_after_commit_share: 0.0,
            rate_limit_bursts: None,
        }
    }
}

/// Of every `every` API requests, the last `length` are answered 429 (`length < every`).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Bursts {
    pub every: u32,
    pub length: u32,
    /// Retry-After of a forced 429, seconds.
    #[serde(default = "default_retry_after")]
    pub retry_after: u32,
}

fn default_retry_after() -> u32 {
    1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_example_seed_parses() {
        let seed = Seed::from_yaml_str(EXAMPLE_SEED).unwrap();
        assert_eq!(seed.tokens.len(), 3);
        assert_eq!(seed.zones.len(), 3);
        assert_eq!(seed.gaps, Gaps::default());
    }

    #[test]
    fn unknown_keys_and_bad_ranges_are_refused() {
        assert!(Seed::from_yaml_str("tokenz: []").is_err());
        assert!(Seed::from_yaml_str("gaps: {cron_index_base: 2}").is_err());
        assert!(Seed::from_yaml_str("faults: {upstream_error_share: 1.5}").is_err());
    }
}
