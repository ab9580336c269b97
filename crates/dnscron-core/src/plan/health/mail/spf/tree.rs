//! Following an SPF record's `include:` and `redirect=` into the tree of records a receiver
//! evaluates: from the files inside the account, from the resolver outside it.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;

use crate::dns::{RecordType, ZoneName};
use crate::dnscheck::{Outcome, QueryType, Question, ask};

use super::super::MailDns;
use super::super::account::{Account, Held};
use super::parse::{Parsed, Target, is_spf, parse};

/// Includes nested deeper than this are not followed: a receiver would have exceeded the limit.
const MAX_DEPTH: usize = 10;
/// Includes followed for one record at most, whatever their shape (wide trees of includes).
const MAX_NODES: usize = 64;

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
pub(super) enum Unfollowed {
    NoResolver,
    Undeclared,
    Macro,
    Failed(String),
    TooDeep,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum State {
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
pub(super) struct Node {
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
    pub(super) fn total(&self) -> usize {
        self.lookups + self.children.iter().map(Node::total).sum::<usize>()
    }

    pub(super) fn voids(&self) -> usize {
        let own = usize::from(matches!(self.state, State::NoSpf { void: true }));
        own + self.void_terms.len() + self.children.iter().map(Node::voids).sum::<usize>()
    }

    /// `example.com: 2 (include:_spf.a.example: 1 from DNS, include:b.example: not followed …)`.
    pub(super) fn render(&self) -> String {
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
    pub(super) fn broken<'n>(
        &'n self,
        chain: &mut Vec<String>,
        out: &mut Vec<(String, &'n State)>,
    ) {
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

    /// Whether an include was left for want of a resolver (not for a macro, depth or failure).
    pub(super) fn needs_resolver(&self) -> bool {
        matches!(
            self.state,
            State::Unfollowed(Unfollowed::NoResolver | Unfollowed::Undeclared)
        ) || self.children.iter().any(Node::needs_resolver)
    }

    /// Whether every term not followed is one outside the account that only a resolver could
    /// follow (not a macro, not a name the files can't fully show, not a failed answer).
    pub(super) fn awaits_only_a_resolver(&self) -> bool {
        let own = match &self.state {
            State::Unfollowed(why) => *why == Unfollowed::NoResolver,
            _ => true,
        };
        own && self.children.iter().all(Node::awaits_only_a_resolver)
    }

    pub(super) fn unfollowed(&self, out: &mut Vec<String>) {
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
pub(crate) struct Walker<'a> {
    account: &'a Account<'a>,
    dns: Option<&'a MailDns>,
    cache: BTreeMap<String, Fetched>,
    nodes: usize,
    /// Terms not followed for want of a resolver → the names whose records hold them: said
    /// once for the account rather than once per zone (50 zones sharing one provider's include
    /// would otherwise repeat one line 50 times).
    pub(super) unasked: BTreeMap<String, Vec<String>>,
    /// The zone of the first record in `unasked`: the finding is told there.
    pub(super) unasked_zone: Option<String>,
}

type NodeFuture<'s> = Pin<Box<dyn Future<Output = Node> + Send + 's>>;

impl<'a> Walker<'a> {
    pub(crate) fn new(account: &'a Account<'a>, dns: Option<&'a MailDns>) -> Walker<'a> {
        Walker {
            account,
            dns,
            cache: BTreeMap::new(),
            nodes: 0,
            unasked: BTreeMap::new(),
            unasked_zone: None,
        }
    }

    pub(super) fn has_resolver(&self) -> bool {
        self.dns.is_some()
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

    /// The tree of the record `parsed` at `name`.
    pub(super) async fn walk(&mut self, name: &str, parsed: Parsed) -> Node {
        self.nodes = 0;
        Node {
            via: "",
            domain: name.to_string(),
            lookups: parsed.lookups,
            void_terms: self.void_terms(&parsed, name),
            state: State::Counted,
            children: self.children(parsed, vec![name.to_string()]).await,
        }
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
