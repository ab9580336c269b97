//! Following an SPF record's `include:` and `redirect=` into the tree of records a receiver
//! evaluates: from the files inside the account, from the resolver outside it. Each record
//! knows whether it was read over DNS, so a finding can tell what the files alone prove from
//! what needed DNS answers (only the first may stop a write).

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;

use crate::dns::RecordType;
use dnscron_api::untrusted::escape;

use super::super::MailDns;
use super::super::account::{Account, Held};
use super::hosts::{HostCheck, HostNote, HostVerdict};
use super::lookup::{Answered, resolve};
use super::parse::{Parsed, Target, is_spf, parse};

/// Includes nested deeper than this are not followed: a receiver would have exceeded the limit.
const MAX_DEPTH: usize = 10;
/// Names looked up for one record at most (includes, and `a`/`mx` hosts asked over DNS),
/// whatever their shape (wide trees of includes).
pub(super) const MAX_NODES: usize = 64;

#[derive(Clone, Debug)]
enum Fetched {
    /// The TXT texts at the name, and whether DNS answered them (else the files hold them).
    Texts(Vec<String>, bool),
    /// No such name, or no TXT at it: a void lookup; whether DNS said so.
    Void(bool),
    NoResolver,
    /// In the account, but the files may not hold every TXT record there.
    Undeclared,
    Failed(String),
}

/// Why a lookup was not counted further, or a host not checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Unfollowed {
    NoResolver,
    Undeclared,
    Macro,
    Failed(String),
    TooDeep,
    TooMany,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum State {
    Counted,
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
    pub(super) via: &'static str,
    /// The name, escaped for display (a macro is the record's text).
    pub(super) domain: String,
    pub(super) lookups: usize,
    /// What DNS answered decided this record (its text, or that it has none).
    pub(super) from_dns: bool,
    /// The record's `a`/`mx` terms worth a word: void, too many MX hosts, not checked.
    pub(super) hosts: Vec<HostNote>,
    pub(super) state: State,
    pub(super) children: Vec<Node>,
}

/// A broken record in the tree: the chain of includes to it, its state, and whether DNS answers
/// were needed to get there.
pub(super) struct Broken<'n> {
    pub(super) chain: String,
    pub(super) state: &'n State,
    pub(super) from_dns: bool,
}

impl Node {
    pub(super) fn total(&self) -> usize {
        self.lookups + self.children.iter().map(Node::total).sum::<usize>()
    }

    /// The lookups the files alone show: records reached without a DNS answer.
    pub(super) fn files_total(&self) -> usize {
        if self.from_dns {
            return 0;
        }
        self.lookups + self.children.iter().map(Node::files_total).sum::<usize>()
    }

    pub(super) fn voids(&self) -> usize {
        let own = usize::from(matches!(self.state, State::NoSpf { void: true }));
        let hosts = self
            .hosts
            .iter()
            .filter(|h| h.verdict == HostVerdict::Void)
            .count();
        own + hosts + self.children.iter().map(Node::voids).sum::<usize>()
    }

    /// The void lookups the files alone show.
    pub(super) fn files_voids(&self) -> usize {
        if self.from_dns {
            return 0;
        }
        let own = usize::from(matches!(self.state, State::NoSpf { void: true }));
        let hosts = self
            .hosts
            .iter()
            .filter(|h| h.verdict == HostVerdict::Void && !h.from_dns)
            .count();
        own + hosts + self.children.iter().map(Node::files_voids).sum::<usize>()
    }

    /// Each broken record in the tree with the chain of includes that leads to it.
    pub(super) fn broken<'n>(
        &'n self,
        chain: &mut Vec<String>,
        dns: bool,
        out: &mut Vec<Broken<'n>>,
    ) {
        chain.push(format!("{}{}", self.via, self.domain));
        let dns = dns || self.from_dns;
        match &self.state {
            State::NoSpf { .. } | State::Loop | State::Multiple | State::Invalid(_) => {
                out.push(Broken {
                    chain: chain.join(" → "),
                    state: &self.state,
                    from_dns: dns,
                });
            }
            State::Counted | State::Unfollowed(_) => {}
        }
        for child in &self.children {
            child.broken(chain, dns, out);
        }
        chain.pop();
    }

    /// Every `mx` term with more than 10 MX hosts: the term, its count, whether DNS told it.
    pub(super) fn crowded_mx(&self, dns: bool, out: &mut Vec<(String, usize, bool)>) {
        let dns = dns || self.from_dns;
        for note in &self.hosts {
            if let HostVerdict::TooManyMx(n) = note.verdict {
                out.push((note.word.clone(), n, dns || note.from_dns));
            }
        }
        for child in &self.children {
            child.crowded_mx(dns, out);
        }
    }

    /// Whether a lookup was left for want of a resolver (not for a macro, depth or failure).
    pub(super) fn needs_resolver(&self) -> bool {
        let wants =
            |why: &Unfollowed| matches!(why, Unfollowed::NoResolver | Unfollowed::Undeclared);
        matches!(&self.state, State::Unfollowed(why) if wants(why))
            || self.hosts.iter().any(|h| h.unchecked().is_some_and(wants))
            || self.children.iter().any(Node::needs_resolver)
    }

    /// Whether every term not followed or checked is one outside the account that only a
    /// resolver could follow (not a macro, not a name the files can't fully show, not a
    /// failed answer).
    pub(super) fn awaits_only_a_resolver(&self) -> bool {
        let own = match &self.state {
            State::Unfollowed(why) => *why == Unfollowed::NoResolver,
            State::Counted
            | State::NoSpf { .. }
            | State::Loop
            | State::Multiple
            | State::Invalid(_) => true,
        };
        own && self.hosts.iter().all(|h| {
            h.unchecked()
                .is_none_or(|why| *why == Unfollowed::NoResolver)
        }) && self.children.iter().all(Node::awaits_only_a_resolver)
    }

    /// The includes and redirects not followed, with why.
    pub(super) fn unfollowed(&self, out: &mut Vec<String>) {
        if let State::Unfollowed(why) = &self.state {
            out.push(format!("{}{} ({})", self.via, self.domain, why.words()));
        }
        for child in &self.children {
            child.unfollowed(out);
        }
    }

    /// The `a`/`mx` terms whose hosts were not checked for a void lookup, with why.
    pub(super) fn unchecked(&self, out: &mut Vec<String>) {
        for note in &self.hosts {
            if let Some(why) = note.unchecked() {
                out.push(format!("{} ({})", escape(&note.word), why.words()));
            }
        }
        for child in &self.children {
            child.unchecked(out);
        }
    }
}

impl Unfollowed {
    pub(super) fn words(&self) -> String {
        match self {
            Unfollowed::NoResolver => "outside the account, no resolver to ask".into(),
            Unfollowed::Undeclared => {
                "its zone's `ignore` rules or `prune: false` keep records the files don't show, no resolver to ask".into()
            }
            Unfollowed::Macro => "a macro only a receiver can expand".into(),
            Unfollowed::Failed(why) => format!("the resolver did not answer: {why}"),
            Unfollowed::TooDeep => "nested too deep".into(),
            Unfollowed::TooMany => format!("more than {MAX_NODES} names looked up for one record"),
        }
    }
}

/// Follows includes, reading each name once per plan (zones often share one provider's).
pub(crate) struct Walker<'a> {
    pub(super) account: &'a Account<'a>,
    pub(super) dns: Option<&'a MailDns>,
    cache: BTreeMap<String, Fetched>,
    pub(super) host_cache: BTreeMap<(String, bool), HostCheck>,
    /// Names looked up for the record being walked (bounded by [`MAX_NODES`]).
    pub(super) nodes: usize,
}

type NodeFuture<'s> = Pin<Box<dyn Future<Output = Node> + Send + 's>>;

impl<'a> Walker<'a> {
    pub(crate) fn new(account: &'a Account<'a>, dns: Option<&'a MailDns>) -> Walker<'a> {
        Walker {
            account,
            dns,
            cache: BTreeMap::new(),
            host_cache: BTreeMap::new(),
            nodes: 0,
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
            Some(true) if texts.is_empty() => Fetched::Void(false),
            Some(complete) if complete || texts.iter().any(|t| is_spf(t)) => {
                Fetched::Texts(texts, false)
            }
            // Outside the account, or the files may not hold every TXT there.
            _ => match self.dns {
                Some(dns) => match resolve(dns, host, RecordType::TXT).await {
                    Answered::Values(texts) => Fetched::Texts(texts, true),
                    Answered::Void => Fetched::Void(true),
                    Answered::Failed(why) => Fetched::Failed(why),
                },
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
                domain: target
                    .host
                    .clone()
                    .unwrap_or_else(|| escape(&target.text).into_owned()),
                lookups: 0,
                from_dns: false,
                hosts: Vec::new(),
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
            if path.len() > MAX_DEPTH {
                node.state = State::Unfollowed(Unfollowed::TooDeep);
                return node;
            }
            if self.nodes > MAX_NODES {
                node.state = State::Unfollowed(Unfollowed::TooMany);
                return node;
            }
            let (texts, from_dns) = match self.fetch(&host).await {
                Fetched::Texts(texts, from_dns) => (texts, from_dns),
                Fetched::Void(from_dns) => {
                    node.from_dns = from_dns;
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
            node.from_dns = from_dns;
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
                    node.hosts = self.host_notes(&parsed, &host).await;
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

    /// The tree of the record `parsed` at `name`.
    pub(super) async fn walk(&mut self, name: &str, parsed: Parsed) -> Node {
        self.nodes = 0;
        let hosts = self.host_notes(&parsed, name).await;
        Node {
            via: "",
            domain: name.to_string(),
            lookups: parsed.lookups,
            from_dns: false,
            hosts,
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
