//! SPF (RFC 7208): one `v=spf1` record per name, its syntax, and the DNS lookups a receiver
//! makes to evaluate it, following `include:` and `redirect=` (§4.6.4: more than 10 is a
//! permerror; more than 2 void lookups too). Includes in the account's zones are read from the
//! files, the others from the resolver when there is one.

use std::collections::BTreeMap;
use std::future::Future;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::pin::Pin;

use crate::config::model::{RecordSpec, ZoneSpec};
use crate::dns::{RecordType, ZoneName};
use crate::dnscheck::{Outcome, QueryType, Question, ask};
use crate::plan::model::Severity;

use super::account::{Account, Held, by_name, host};
use super::{MailDns, Out};

/// RFC 7208 §4.6.4: the DNS-querying terms a receiver evaluates before it gives permerror.
const LOOKUP_LIMIT: usize = 10;
/// From this many lookups on, one more include breaks the record: a warning.
const LOOKUP_WARNING: usize = 9;
/// §4.6.4: lookups that find no name or no records, before permerror.
const VOID_LIMIT: usize = 2;
/// Includes nested deeper than this are not followed: a receiver would have exceeded the limit.
const MAX_DEPTH: usize = 10;
/// Includes followed for one record at most, whatever their shape (wide trees of includes).
const MAX_NODES: usize = 64;

/// Whether a TXT text is an SPF record (§4.5: `v=spf1` then a space or the end).
pub(super) fn is_spf(text: &str) -> bool {
    let t = text.as_bytes();
    t.len() >= 6 && t[..6].eq_ignore_ascii_case(b"v=spf1") && (t.len() == 6 || t[6] == b' ')
}

/// A domain an `include:` or `redirect=` names: `host` is `None` for a macro (`%{d}`), which
/// only a receiver can expand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Target {
    pub text: String,
    pub host: Option<String>,
}

/// What evaluating a record costs, read from its text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Parsed {
    /// `include`, `a`, `mx`, `ptr`, `exists`, and `redirect` when it is followed.
    pub lookups: usize,
    pub includes: Vec<Target>,
    /// Ignored by receivers when the record has an `all` (§6.1).
    pub redirect: Option<Target>,
    /// `a` and `mx` terms: their word and the domain they name (`None`: the record's own).
    pub hosts: Vec<HostTerm>,
}

/// An `a` or `mx` term, whose lookup is void when the name has no address (or no MX).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct HostTerm {
    pub mx: bool,
    pub word: String,
    pub target: Option<Target>,
}

/// The record's terms, or the first one a receiver rejects (permerror), in our words.
pub(super) fn parse(text: &str) -> Result<Parsed, String> {
    let mut parsed = Parsed::default();
    let mut all = false;
    let mut exp = false;
    for word in text.split(' ').filter(|w| !w.is_empty()).skip(1) {
        if let Some((name, value)) = word.split_once('=')
            && is_modifier_name(name)
        {
            let name = name.to_ascii_lowercase();
            let seen = match name.as_str() {
                "redirect" => parsed.redirect.replace(domain_spec(word, value)?).is_some(),
                "exp" => std::mem::replace(&mut exp, domain_spec(word, value).is_ok()),
                // §6: receivers ignore modifiers they don't know.
                _ => false,
            };
            if seen {
                return Err(format!("`{name}=` appears twice"));
            }
            continue;
        }
        all |= mechanism(word, &mut parsed)?;
    }
    if all {
        parsed.redirect = None;
    }
    if parsed.redirect.is_some() {
        parsed.lookups += 1;
    }
    Ok(parsed)
}

fn is_modifier_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// One mechanism; `Ok(true)` for `all`.
fn mechanism(word: &str, parsed: &mut Parsed) -> Result<bool, String> {
    let rest = word.strip_prefix(['+', '-', '~', '?']).unwrap_or(word);
    let split = rest.find([':', '/']).unwrap_or(rest.len());
    let (name, arg) = rest.split_at(split);
    match name.to_ascii_lowercase().as_str() {
        "all" if arg.is_empty() => return Ok(true),
        "include" | "exists" => {
            let value = arg
                .strip_prefix(':')
                .ok_or_else(|| format!("`{word}` needs a domain (`{name}:domain`)"))?;
            let target = domain_spec(word, value)?;
            if name.eq_ignore_ascii_case("include") {
                parsed.includes.push(target);
            }
            parsed.lookups += 1;
        }
        "a" | "mx" | "ptr" => {
            let (target, cidr) = match arg.strip_prefix(':') {
                Some(value) => {
                    let end = value.find('/').unwrap_or(value.len());
                    (Some(domain_spec(word, &value[..end])?), &value[end..])
                }
                None => (None, arg),
            };
            let lower = name.to_ascii_lowercase();
            if lower == "ptr" && !cidr.is_empty() {
                return Err(format!("`{word}`: `ptr` takes no prefix length"));
            }
            dual_cidr(word, cidr)?;
            parsed.lookups += 1;
            if lower != "ptr" {
                parsed.hosts.push(HostTerm {
                    mx: lower == "mx",
                    word: word.to_string(),
                    target,
                });
            }
        }
        "ip4" | "ip6" => address(word, name, arg)?,
        _ => return Err(format!("`{word}` is not an SPF mechanism or modifier")),
    }
    Ok(false)
}

/// `/24`, `//64` or `/24//64` after `a` or `mx`.
fn dual_cidr(word: &str, cidr: &str) -> Result<(), String> {
    let (v4, v6) = match cidr.split_once("//") {
        Some((v4, v6)) => (v4, Some(v6)),
        None => (cidr, None),
    };
    let bad = || format!("`{word}` has an invalid prefix length");
    if !v4.is_empty() {
        prefix(v4.strip_prefix('/').ok_or_else(bad)?, 32).ok_or_else(bad)?;
    }
    if let Some(v6) = v6 {
        prefix(v6, 128).ok_or_else(bad)?;
    }
    Ok(())
}

fn prefix(text: &str, max: u8) -> Option<u8> {
    let n: u8 = text.parse().ok()?;
    (text.len() <= 3 && !text.starts_with('+') && n <= max).then_some(n)
}

fn address(word: &str, name: &str, arg: &str) -> Result<(), String> {
    let bad = || format!("`{word}` needs an address (`{name}:address` or `{name}:address/bits`)");
    let value = arg.strip_prefix(':').ok_or_else(bad)?;
    let (ip, bits) = match value.split_once('/') {
        Some((ip, bits)) => (ip, Some(bits)),
        None => (value, None),
    };
    let max = if name.eq_ignore_ascii_case("ip4") {
        ip.parse::<Ipv4Addr>().map_err(|_| bad())?;
        32
    } else {
        ip.parse::<Ipv6Addr>().map_err(|_| bad())?;
        128
    };
    if let Some(bits) = bits {
        prefix(bits, max).ok_or_else(bad)?;
    }
    Ok(())
}

/// A domain-spec (§7.1): a host name of at least two labels, or text with macros.
fn domain_spec(word: &str, value: &str) -> Result<Target, String> {
    let text = value.to_string();
    if value.contains('%') {
        return macros(value)
            .map(|()| Target { text, host: None })
            .map_err(|why| format!("`{word}`: {why}"));
    }
    match host(value) {
        Some(h) if h.contains('.') => Ok(Target {
            text,
            host: Some(h),
        }),
        _ => Err(format!("`{word}`: `{value}` is not a domain name")),
    }
}

/// `%{s}`, `%{d4r.}`, `%%`, `%_`, `%-` (§7.1).
fn macros(value: &str) -> Result<(), String> {
    let mut rest = value;
    while let Some(at) = rest.find('%') {
        rest = &rest[at + 1..];
        if let Some(after) = rest.strip_prefix(['%', '_', '-']) {
            rest = after;
            continue;
        }
        let body = rest
            .strip_prefix('{')
            .and_then(|r| r.split_once('}'))
            .filter(|(m, _)| {
                let mut c = m.chars();
                c.next()
                    .is_some_and(|l| "slodiphcrtv".contains(l.to_ascii_lowercase()))
            })
            .ok_or_else(|| {
                format!(
                    "`%{}` is not a macro",
                    rest.chars().take(4).collect::<String>()
                )
            })?;
        rest = body.1;
    }
    Ok(())
}

/// Where an included record came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    Files,
    Dns,
}

#[derive(Clone, Debug)]
enum Fetched {
    Texts(Vec<String>, Source),
    /// No such name, or no TXT at it: a void lookup.
    Void,
    NoResolver,
    /// In the account, but the files may not hold every TXT record there.
    Undeclared,
    Failed(String),
}

/// Why a lookup was not counted further.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Unfollowed {
    NoResolver,
    Undeclared,
    Macro,
    Failed(String),
    TooDeep,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum State {
    Counted,
    FromDns,
    Unfollowed(Unfollowed),
    /// The name has no SPF record, or no records at all (`void`).
    NoSpf {
        void: bool,
    },
    Loop,
    Multiple,
    Invalid(String),
}

/// One record of the evaluation: the root, or what an include or redirect leads to.
#[derive(Clone, Debug)]
struct Node {
    /// `include:` or `redirect=`; empty for the root.
    via: &'static str,
    domain: String,
    lookups: usize,
    /// The record's `a`/`mx` terms whose names the files declare without an address (or MX).
    void_terms: Vec<String>,
    state: State,
    children: Vec<Node>,
}

impl Node {
    fn total(&self) -> usize {
        self.lookups + self.children.iter().map(Node::total).sum::<usize>()
    }

    fn voids(&self) -> usize {
        let own = usize::from(matches!(self.state, State::NoSpf { void: true }));
        own + self.void_terms.len() + self.children.iter().map(Node::voids).sum::<usize>()
    }

    /// `example.com: 2 (include:_spf.a.example: 1 from DNS, include:b.example: not followed …)`.
    fn render(&self) -> String {
        let mut s = format!("{}{}", self.via, self.domain);
        match &self.state {
            State::Counted => s.push_str(&format!(": {}", self.lookups)),
            State::FromDns => s.push_str(&format!(": {} from DNS", self.lookups)),
            State::Unfollowed(why) => s.push_str(&format!(": not followed ({})", why.words())),
            State::NoSpf { void: true } => s.push_str(": no such name or no TXT (void)"),
            State::NoSpf { void: false } => s.push_str(": no SPF record"),
            State::Loop => s.push_str(": loop"),
            State::Multiple => s.push_str(": several SPF records"),
            State::Invalid(_) => s.push_str(": invalid"),
        }
        if !self.void_terms.is_empty() {
            s.push_str(&format!(" [void: {}]", self.void_terms.join(", ")));
        }
        if !self.children.is_empty() {
            let inner: Vec<String> = self.children.iter().map(Node::render).collect();
            s.push_str(&format!(" ({})", inner.join(", ")));
        }
        s
    }

    /// Each broken record in the tree with the chain of includes that leads to it.
    fn broken<'n>(&'n self, chain: &mut Vec<String>, out: &mut Vec<(String, &'n State)>) {
        chain.push(format!("{}{}", self.via, self.domain));
        match &self.state {
            State::NoSpf { .. } | State::Loop | State::Multiple | State::Invalid(_) => {
                out.push((chain.join(" → "), &self.state));
            }
            _ => {}
        }
        for child in &self.children {
            child.broken(chain, out);
        }
        chain.pop();
    }

    fn unfollowed(&self, out: &mut Vec<String>) {
        if let State::Unfollowed(why) = &self.state {
            out.push(format!("{}{} ({})", self.via, self.domain, why.words()));
        }
        for child in &self.children {
            child.unfollowed(out);
        }
    }
}

impl Unfollowed {
    fn words(&self) -> String {
        match self {
            Unfollowed::NoResolver => "outside the account, no resolver to ask".into(),
            Unfollowed::Undeclared => {
                "its zone's `ignore` rules or `prune: false` keep records the files don't show, no resolver to ask".into()
            }
            Unfollowed::Macro => "a macro only a receiver can expand".into(),
            Unfollowed::Failed(why) => format!("the resolver did not answer: {why}"),
            Unfollowed::TooDeep => "nested too deep".into(),
        }
    }
}

/// Follows includes, reading each name once per plan (zones often share one provider's).
pub(super) struct Walker<'a> {
    account: &'a Account<'a>,
    dns: Option<&'a MailDns>,
    cache: BTreeMap<String, Fetched>,
    nodes: usize,
}

type NodeFuture<'s> = Pin<Box<dyn Future<Output = Node> + Send + 's>>;

impl<'a> Walker<'a> {
    pub(super) fn new(account: &'a Account<'a>, dns: Option<&'a MailDns>) -> Walker<'a> {
        Walker {
            account,
            dns,
            cache: BTreeMap::new(),
            nodes: 0,
        }
    }

    async fn fetch(&mut self, host: &str) -> Fetched {
        if let Some(hit) = self.cache.get(host) {
            return hit.clone();
        }
        let (records, complete) = match self.account.records(host, RecordType::TXT) {
            Held::Outside => (Vec::new(), None),
            Held::Files { records, complete } => (records, Some(complete)),
        };
        let texts: Vec<String> = records.iter().map(|r| r.canonical.clone()).collect();
        let fetched = match complete {
            Some(true) if texts.is_empty() => Fetched::Void,
            Some(complete) if complete || texts.iter().any(|t| is_spf(t)) => {
                Fetched::Texts(texts, Source::Files)
            }
            // Outside the account, or the files may not hold every TXT there.
            _ => match self.dns {
                Some(dns) => ask_txt(dns, host).await,
                None if complete.is_some() => Fetched::Undeclared,
                None => Fetched::NoResolver,
            },
        };
        self.cache.insert(host.to_string(), fetched.clone());
        fetched
    }

    fn follow<'s>(
        &'s mut self,
        via: &'static str,
        target: Target,
        path: Vec<String>,
    ) -> NodeFuture<'s>
    where
        'a: 's,
    {
        Box::pin(async move {
            let mut node = Node {
                via,
                domain: target.host.clone().unwrap_or(target.text),
                lookups: 0,
                void_terms: Vec::new(),
                state: State::Counted,
                children: Vec::new(),
            };
            let Some(host) = target.host else {
                node.state = State::Unfollowed(Unfollowed::Macro);
                return node;
            };
            if path.contains(&host) {
                node.state = State::Loop;
                return node;
            }
            self.nodes += 1;
            if path.len() > MAX_DEPTH || self.nodes > MAX_NODES {
                node.state = State::Unfollowed(Unfollowed::TooDeep);
                return node;
            }
            let (texts, source) = match self.fetch(&host).await {
                Fetched::Texts(texts, source) => (texts, source),
                Fetched::Void => {
                    node.state = State::NoSpf { void: true };
                    return node;
                }
                Fetched::NoResolver => {
                    node.state = State::Unfollowed(Unfollowed::NoResolver);
                    return node;
                }
                Fetched::Undeclared => {
                    node.state = State::Unfollowed(Unfollowed::Undeclared);
                    return node;
                }
                Fetched::Failed(why) => {
                    node.state = State::Unfollowed(Unfollowed::Failed(why));
                    return node;
                }
            };
            let spf: Vec<&String> = texts.iter().filter(|t| is_spf(t)).collect();
            let text = match spf.as_slice() {
                [] => {
                    node.state = State::NoSpf { void: false };
                    return node;
                }
                [one] => one.as_str(),
                _ => {
                    node.state = State::Multiple;
                    return node;
                }
            };
            match parse(text) {
                Ok(parsed) => {
                    if source == Source::Dns {
                        node.state = State::FromDns;
                    }
                    node.void_terms = self.void_terms(&parsed, &host);
                    let mut path = path;
                    path.push(host);
                    node.lookups = parsed.lookups;
                    node.children = self.children(parsed, path).await;
                }
                Err(why) => node.state = State::Invalid(why),
            }
            node
        })
    }

    /// The `a`/`mx` terms of a record at `domain` that name, in the account's files, a name
    /// without an A/AAAA/CNAME (for `a`) or an MX (for `mx`). Names outside the account are
    /// not asked: only includes are read over DNS.
    fn void_terms(&self, parsed: &Parsed, domain: &str) -> Vec<String> {
        let mut out = Vec::new();
        for term in &parsed.hosts {
            let host = match &term.target {
                Some(Target { host: Some(h), .. }) => h.as_str(),
                Some(Target { host: None, .. }) => continue,
                None => domain,
            };
            let types: &[RecordType] = if term.mx {
                &[RecordType::MX]
            } else {
                &[RecordType::A, RecordType::AAAA, RecordType::CNAME]
            };
            // Void only when the files say so for every type: none declared, none kept.
            let void = types
                .iter()
                .all(|t| self.account.has(host, *t) == Some(false));
            if void {
                out.push(term.word.clone());
            }
        }
        out
    }

    async fn children(&mut self, parsed: Parsed, path: Vec<String>) -> Vec<Node> {
        let mut children = Vec::new();
        for include in parsed.includes {
            children.push(self.follow("include:", include, path.clone()).await);
        }
        if let Some(redirect) = parsed.redirect {
            children.push(self.follow("redirect=", redirect, path).await);
        }
        children
    }
}

async fn ask_txt(dns: &MailDns, host: &str) -> Fetched {
    let Ok(zone) = ZoneName::parse(host) else {
        return Fetched::Failed("not a name DNS can look up".into());
    };
    let question = Question::new(zone, "@", QueryType::Record(RecordType::TXT));
    let answer = ask(dns.resolver, &question, &dns.query).await;
    match &answer.outcome {
        Outcome::Records { .. } => {
            let texts = answer.outcome.values_of("TXT");
            if texts.is_empty() {
                return Fetched::Void;
            }
            let texts = texts.into_iter().map(|s| s.value.clone()).collect();
            Fetched::Texts(texts, Source::Dns)
        }
        Outcome::NoData { .. } | Outcome::NxDomain { .. } => Fetched::Void,
        other => Fetched::Failed(other.to_string()),
    }
}

/// The SPF findings of one zone: per name, its records, then each record's evaluation.
pub(super) async fn findings(walker: &mut Walker<'_>, spec: &ZoneSpec, out: &mut Out<'_>) {
    for (name, records) in by_name(spec, RecordType::TXT, |r| is_spf(&r.canonical)) {
        if let [_, second, ..] = records.as_slice() {
            let at: Vec<String> = records.iter().map(|r| r.location.to_string()).collect();
            out.push(
                Severity::Error,
                &second.location,
                format!(
                    "{name} has {} SPF records ({}): receivers return permerror for every message and treat the mail as unauthenticated, so it is often rejected or junked; merge them into one `v=spf1` record",
                    records.len(),
                    at.join(", ")
                ),
            );
            continue;
        }
        let record = records[0];
        match parse(&record.canonical) {
            Ok(parsed) => evaluate(walker, &name, record, parsed, out).await,
            Err(why) => out.push(
                Severity::Error,
                &record.location,
                format!(
                    "the SPF record of {name} is invalid: {why}; receivers return permerror and treat the mail as unauthenticated, so it is often rejected or junked; correct the term (RFC 7208 §5, §6)"
                ),
            ),
        }
    }
}

async fn evaluate(
    walker: &mut Walker<'_>,
    name: &str,
    record: &RecordSpec,
    parsed: Parsed,
    out: &mut Out<'_>,
) {
    walker.nodes = 0;
    let root = Node {
        via: "",
        domain: name.to_string(),
        lookups: parsed.lookups,
        void_terms: walker.void_terms(&parsed, name),
        state: State::Counted,
        children: walker.children(parsed, vec![name.to_string()]).await,
    };
    let at = &record.location;
    let total = root.total();
    let tree = root.render();
    let mut unfollowed = Vec::new();
    root.unfollowed(&mut unfollowed);
    let counted = if unfollowed.is_empty() {
        format!("{total} DNS lookups")
    } else {
        format!("at least {total} DNS lookups")
    };
    if total > LOOKUP_LIMIT {
        out.push(
            Severity::Error,
            at,
            format!(
                "the SPF record of {name} needs {counted}, more than the {LOOKUP_LIMIT} receivers allow (RFC 7208 §4.6.4): they return permerror and treat the mail as unauthenticated, so it is often rejected or junked; lookups per record: {tree}; replace includes with the ip4:/ip6: ranges they list, or drop the ones no longer used"
            ),
        );
    } else if total >= LOOKUP_WARNING {
        out.push(
            Severity::Warning,
            at,
            format!(
                "the SPF record of {name} needs {counted} of the {LOOKUP_LIMIT} receivers allow: one more include (or a provider adding one to theirs) makes it a permerror, and the mail unauthenticated; lookups per record: {tree}; replace includes with the ip4:/ip6: ranges they list, or drop the ones no longer used"
            ),
        );
    } else if !unfollowed.is_empty() {
        out.push(
            Severity::Info,
            at,
            format!(
                "the SPF record of {name} needs {counted} of the {LOOKUP_LIMIT} receivers allow; not followed: {}; lookups per record: {tree}; a resolver would count them",
                unfollowed.join(", ")
            ),
        );
    }
    let voids = root.voids();
    if voids > VOID_LIMIT {
        out.push(
            Severity::Error,
            at,
            format!(
                "the SPF record of {name} makes {voids} void lookups (names without records), more than the {VOID_LIMIT} receivers allow (RFC 7208 §4.6.4): they return permerror and treat the mail as unauthenticated; lookups per record: {tree}; remove the terms that name hosts without records (includes of names that no longer publish SPF, `a:`/`mx:` of names that are gone)"
            ),
        );
    }
    let mut broken = Vec::new();
    root.broken(&mut Vec::new(), &mut broken);
    for (chain, state) in broken {
        let what = match state {
            State::NoSpf { .. } => "finds no SPF record there".to_string(),
            State::Loop => "includes a record already being evaluated (a loop)".to_string(),
            State::Multiple => "finds several SPF records there".to_string(),
            State::Invalid(why) => format!("finds an invalid SPF record there ({why})"),
            _ => continue,
        };
        out.push(
            Severity::Error,
            at,
            format!(
                "the SPF record of {name} {what}: {chain}; receivers return permerror and treat the mail as unauthenticated, so it is often rejected or junked; fix or remove that include"
            ),
        );
    }
}
