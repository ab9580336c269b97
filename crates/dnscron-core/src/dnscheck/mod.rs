//! DNS on the message, client side: ask a zone's nameservers what they serve and compare it with
//! the files. Used by `dnscron check` and by apply's DNS checks; it never talks to the API.
//!
//! # API
//!
//! - `Question` `{ zone: ZoneName, name: "@" | "www" (relative, as the files), qtype }`,
//!   `QueryType` `Soa | Record(dns::RecordType)`; `Question::soa(zone)`, `q.fqdn()`.
//! - `ask(server: SocketAddr, &Question, &QueryOptions) -> Answer` (async, never fails,
//!   never hangs): UDP first (no EDNS, so over 512 octets the server truncates), TCP when the
//!   answer is truncated (TC read from the header, so an answer cut mid-record counts), over
//!   4,096 octets, or the UDP socket fails; `attempts` UDP sends (same random id) of
//!   `timeout` each, then the TCP exchange within `timeout`. Strays (wrong id, question, not a
//!   response, another source) are ignored. [`QueryOptions`] `{ timeout: 2 s, attempts: 2,
//!   recursion_desired: false }` by default.
//! - `Answer` `{ server, question, outcome, transport: Udp|Tcp, queries_sent }`;
//!   [`Outcome`] `Records { authoritative, records: Vec<Served> } | NoData { authoritative }
//!   | NxDomain { authoritative } | Rcode("REFUSED") | Timeout | Network(msg) |
//!   Malformed(reason)`; `outcome.authoritative()`, `.unreachable()`, `.records()`, `.values_of("A")`.
//!   [`Served`] `{ rtype: "A", value, ttl }` with `value` canonical (`dns::RecordData`'s
//!   `Display`, so it equals `RecordSpec::canonical` for the same content). Server text:
//!   print through `untrusted::escape` / `Untrusted`.
//! - `ask_all(Vec<(SocketAddr, Question)>, &QueryOptions, concurrency) -> Vec<Answer>`
//!   in job order, at most `concurrency` in flight (`DEFAULT_CONCURRENCY`);
//!   `queries_sent(&[Answer])` is the cost.
//! - [`NameserverAddress`] (`FromStr` of `HOST=IP[:PORT]` / `HOST=IP` → port 53; error
//!   `AddressParseError` names the value and the expected form); [`AddressBook`]`::new(vec)`
//!   (`.without_system_resolver()`), `book.resolve(host).await -> Result<Vec<SocketAddr>,
//!   ResolveError>`: mappings (host case/final dot ignored) win, else the system resolver.
//! - `zone_nameservers(&ZoneName, resolvers: &[SocketAddr], &QueryOptions) ->
//!   (Result<Vec<String>, DiscoverError>, Vec<Answer>)`: the zone's NS hosts (folded, sorted)
//!   from the first resolver answering NS (RD set); `system_resolvers(Path, &ZoneName)`
//!   reads resolv.conf ([`RESOLV_CONF`]); [`parse_resolver`] reads a `--resolver` value.
//! - `compare(&[Expected { value: canonical, ttl }], RecordType, &Outcome) ->
//!   Vec<Difference>` (empty: in sync); `compare_rrset` the same after leaving out what the
//!   zone's `ignore` rules cover (`check` and apply's pre-switch check); `authority(&Outcome of the SOA question) ->
//!   Option<Difference>`. [`Difference`] `Missing { expected, answer: "NXDOMAIN"|"NODATA" } |
//!   Values { missing, extra } | Ttl { value, expected, served } | NotAuthoritative |
//!   Refused { rcode } | Unreachable { outcome }`; `is_minor()` (TTL) and `is_failure()`
//!   (unreachable: the check did not run).
//! - `dnscron check` on top: [`check_zones`]`(&Desired, &CheckSettings) -> CheckReport`
//!   (per zone: where its nameservers came from, per nameserver address its status and
//!   [`RrsetDifference`]s), rendered by the `dnscron` binary.

mod address;
mod answer;
mod batch;
mod compare;
mod discover;
mod message;
mod report;
mod run;
mod transport;
#[cfg(test)]
mod transport_tests;

pub use address::{AddressBook, AddressParseError, NameserverAddress, ResolveError};
pub(crate) use answer::{Answer, QueryType, Question};
pub use answer::{Outcome, Served};
pub(crate) use batch::{DEFAULT_CONCURRENCY, ask_all, queries_sent};
pub use compare::{Difference, Expected};
pub(crate) use compare::{authority, compare_rrset};
pub use discover::{DiscoverError, RESOLV_CONF, parse_resolv_conf, parse_resolver};
pub use report::{
    CheckReport, NameserverSource, RrsetDifference, ServerReport, Status, Totals, ZoneReport,
};
pub use run::{CheckSettings, check_zones};
pub use transport::QueryOptions;
pub(crate) use transport::ask;
