//! Settings of the emulator that may change at run time: the choices for the spec's gaps,
//! the rate limit and fault injection. Part of the seed (`gaps:`, `rate_limit:`, `faults:`).

use serde::{Deserialize, Serialize};

/// Range checks of the settings that may also change at run time.
pub(crate) fn validate_settings(
    gaps: &Gaps,
    rate_limit: &RateLimit,
    faults: &Faults,
) -> Result<(), String> {
    if gaps.cron_index_base > 1 {
        return Err(format!(
            "gaps.cron_index_base is {}; use 0 or 1",
            gaps.cron_index_base
        ));
    }
    for (name, share) in [
        ("faults.upstream_error_share", faults.upstream_error_share),
        (
            "faults.drop_after_commit_share",
            faults.drop_after_commit_share,
        ),
    ] {
        if !(0.0..=1.0).contains(&share) {
            return Err(format!("{name} is {share}; use a share between 0 and 1"));
        }
    }
    if rate_limit.per_minute == 0 || rate_limit.burst == 0 {
        return Err(
            "rate_limit.per_minute and rate_limit.burst must be at least 1 (set rate_limit.enabled: false to turn it off)"
                .into(),
        );
    }
    if let Some(b) = faults.rate_limit_bursts
        && (b.length == 0 || b.length >= b.every)
    {
        return Err("faults.rate_limit_bursts needs 0 < length < every".into());
    }
    Ok(())
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
    /// What `DELETE /sites/{slug}/cron/{index}` answers besides 200 (the spec: "removed").
    pub cron_delete_answer: CronDeleteAnswer,
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
            cron_delete_answer: CronDeleteAnswer::Job,
        }
    }
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum CronDeleteAnswer {
    /// The removed job (`index`, `schedule`, `command`) plus `"result": "removed"`.
    Job,
    /// `{"result": "removed"}`: which job went, the answer doesn't say.
    Result,
    /// No body at all.
    Empty,
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
            per_minute: dnscron_provider::limits::RATE_PER_MINUTE,
            burst: dnscron_provider::limits::RATE_BURST,
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
    /// How long a record write takes to show over DNS (the spec: at once).
    #[serde(skip_serializing_if = "DnsLag::is_none")]
    pub dns_lag_ms: DnsLag,
    /// How many DNS questions after a record write are still answered without it (the spec:
    /// none); with `dns_lag_ms` too, a write waits for both.
    #[serde(skip_serializing_if = "is_zero", deserialize_with = "question_count")]
    pub dns_lag_queries: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// A count with an error that names the key (serde's own says only "invalid u64").
fn question_count<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<u64, D::Error> {
    u64::deserialize(deserializer).map_err(|_| {
        serde::de::Error::custom(
            "dns_lag_queries: expected a number of DNS questions (0 or more), e.g. 2",
        )
    })
}

impl Default for Faults {
    fn default() -> Self {
        Faults {
            seed: 1,
            latency_ms: 0,
            upstream_error_share: 0.0,
            drop_after_commit_share: 0.0,
            rate_limit_bursts: None,
            dns_lag_ms: DnsLag::None,
            dns_lag_queries: 0,
        }
    }
}

/// How far the DNS listener lags behind the API: a record write shows over DNS after this
/// many milliseconds, or never (a nameserver that stopped syncing). Written as a number of
/// milliseconds or `never`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DnsLag {
    /// At once, as the spec promises.
    #[default]
    None,
    Millis(u64),
    Never,
}

impl DnsLag {
    pub(crate) fn is_none(&self) -> bool {
        matches!(self, DnsLag::None | DnsLag::Millis(0))
    }

    /// 0 is no lag, however written: the example seed spells it out.
    fn from_millis(ms: u64) -> DnsLag {
        if ms == 0 {
            DnsLag::None
        } else {
            DnsLag::Millis(ms)
        }
    }

    /// `200`, `never`: the form the seed and `--dns-lag-ms` take.
    pub fn parse(text: &str) -> Result<DnsLag, String> {
        match text.trim() {
            "never" => Ok(DnsLag::Never),
            ms => ms.parse::<u64>().map(DnsLag::from_millis).map_err(|_| {
                format!("dns_lag_ms `{ms}`: expected a number of milliseconds or `never`")
            }),
        }
    }
}

impl Serialize for DnsLag {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            DnsLag::None => serializer.serialize_u64(0),
            DnsLag::Millis(ms) => serializer.serialize_u64(*ms),
            DnsLag::Never => serializer.serialize_str("never"),
        }
    }
}

impl<'de> Deserialize<'de> for DnsLag {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Millis(u64),
            Word(String),
        }
        match Raw::deserialize(deserializer).map_err(|_| {
            serde::de::Error::custom("dns_lag_ms: expected a number of milliseconds or `never`")
        })? {
            Raw::Millis(ms) => Ok(DnsLag::from_millis(ms)),
            Raw::Word(word) => DnsLag::parse(&word).map_err(serde::de::Error::custom),
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
