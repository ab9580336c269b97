//! SPF (RFC 7208): one `v=spf1` record per name, its syntax, and the DNS lookups a receiver
//! makes to evaluate it, following `include:` and `redirect=` (§4.6.4: more than 10 is a
//! permerror; more than 2 void lookups too; an `mx` of more than 10 hosts too). Includes and
//! hosts in the account's zones are read from the files, the others from the resolver when
//! there is one. A finding that needed DNS answers has its own code: only what the files alone
//! prove may stop a write.

mod hosts;
mod lookup;
mod parse;
mod render;
mod tree;

use crate::config::model::{RecordSpec, ZoneSpec};
use crate::dns::RecordType;
use crate::finding::Figure;
use crate::finding::FindingCode;
use dnscron_api::untrusted::escape;

use super::Out;
use super::account::by_name;
use hosts::MX_HOST_LIMIT;

pub(crate) use parse::{Parsed, is_spf, parse};
pub(crate) use tree::Walker;
use tree::{Broken, Node, State};

/// RFC 7208 §4.6.4: the DNS-querying terms a receiver evaluates before it gives permerror.
const LOOKUP_LIMIT: usize = 10;
/// From this many lookups on, one more include breaks the record: a warning.
const LOOKUP_WARNING: usize = 9;
/// §4.6.4: lookups that find no name or no records, before permerror.
const VOID_LIMIT: usize = 2;

const PERMERROR: &str = "receivers return permerror and treat the mail as unauthenticated, so it is often rejected or junked";
const TRIM: &str =
    "replace includes with the ip4:/ip6: ranges they list, or drop the ones no longer used";
const OCTODNS: &str = "`\\;` is octoDNS's escape for `;`; in dnscron files write `;`";

/// The SPF findings of one zone: per name, its records, then each record's evaluation.
pub(super) async fn findings(walker: &mut Walker<'_>, spec: &ZoneSpec, out: &mut Out<'_>) {
    for (name, records) in by_name(spec, RecordType::TXT, |r| is_spf(&r.canonical)) {
        if let [_, second, ..] = records.as_slice() {
            let at: Vec<String> = records.iter().map(|r| r.location.to_string()).collect();
            out.push(
                FindingCode::SpfMultiple,
                second,
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
            Err(why) if record.canonical.contains("\\;") => out.push(
                FindingCode::SpfOctodnsEscape,
                record,
                format!(
                    "the SPF record of {name} is invalid: {why}; {OCTODNS}; {PERMERROR} (RFC 7208 §4.6)"
                ),
            ),
            Err(why) => out.push(
                FindingCode::SpfInvalid,
                record,
                format!(
                    "the SPF record of {name} is invalid: {why}; {PERMERROR}; correct the term (RFC 7208 §4.6, §5, §6, §7.1, §12)"
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
    let after_all = parsed.after_all.clone();
    let root = walker.walk(name, parsed).await;
    let tree = render::lines(&root);
    count(walker, name, record, &root, &tree, out);
    voids(name, record, &root, &tree, out);
    crowded_mx(name, record, &root, out);
    broken(name, record, &root, out);
    if !after_all.is_empty() {
        let terms: Vec<String> = after_all.iter().map(|t| escape(t).into_owned()).collect();
        out.push(
            FindingCode::SpfTermsAfterAll,
            record,
            format!(
                "the SPF record of {name} has terms after `all` ({}): receivers stop at `all` and never evaluate them (RFC 7208 §5.1), so they authorize nothing and are not counted; move them before `all`, or remove them",
                terms.join(" ")
            ),
        );
    }
}

/// The lookup count: an error over the limit, a warning near it (both with the tree), one line of
/// information when some includes could not be followed (or hosts not checked) and the count is
/// below the warning.
fn count(
    walker: &Walker<'_>,
    name: &str,
    record: &RecordSpec,
    root: &Node,
    tree: &str,
    out: &mut Out<'_>,
) {
    let total = root.total();
    let mut unfollowed = Vec::new();
    root.unfollowed(&mut unfollowed);
    let mut unchecked = Vec::new();
    root.unchecked(&mut unchecked);
    let lookups = if total == 1 { "lookup" } else { "lookups" };
    let counted = if unfollowed.is_empty() {
        format!("{total} DNS {lookups}")
    } else {
        format!("at least {total} DNS {lookups}")
    };
    // The files alone prove it, or DNS answers were needed: the latter must not stop a write.
    let from_files = |limit: usize| root.files_total() >= limit;
    let with_dns = |files: bool| {
        if files {
            ""
        } else {
            " (counted with records read over DNS)"
        }
    };
    if total > LOOKUP_LIMIT {
        let files = from_files(LOOKUP_LIMIT + 1);
        let code = if files {
            FindingCode::SpfTooManyLookups
        } else {
            FindingCode::SpfTooManyLookupsFromDns
        };
        let with_dns = with_dns(files);
        out.push(
            code,
            record,
            format!(
                "the SPF record of {name} needs {counted}{with_dns}, more than the {LOOKUP_LIMIT} receivers allow (RFC 7208 §4.6.4): {PERMERROR}; {TRIM}. Lookups per record:\n{tree}"
            ),
        );
        out.measure_last(Figure::Lookups(u32::try_from(total).unwrap_or(u32::MAX)));
        return;
    }
    if total >= LOOKUP_WARNING {
        let files = from_files(LOOKUP_WARNING);
        let code = if files {
            FindingCode::SpfLookupsNearLimit
        } else {
            FindingCode::SpfLookupsNearLimitFromDns
        };
        let with_dns = with_dns(files);
        out.push(
            code,
            record,
            format!(
                "the SPF record of {name} needs {counted}{with_dns} of the {LOOKUP_LIMIT} receivers allow: one more include (or a provider adding one to theirs) makes it a permerror, and the mail unauthenticated; {TRIM}. Lookups per record:\n{tree}"
            ),
        );
        out.measure_last(Figure::Lookups(u32::try_from(total).unwrap_or(u32::MAX)));
        return;
    }
    if unfollowed.is_empty() && unchecked.is_empty() {
        return;
    }
    let only_a_resolver = !walker.has_resolver() && root.awaits_only_a_resolver();
    let code = if only_a_resolver {
        FindingCode::SpfNotFollowed
    } else {
        FindingCode::SpfLookupsUncounted
    };
    let mut parts = vec![format!(
        "the SPF record of {name} needs {counted} of the {LOOKUP_LIMIT} receivers allow"
    )];
    if !unfollowed.is_empty() {
        parts.push(format!("not followed: {}", unfollowed.join(", ")));
    }
    if !unchecked.is_empty() {
        parts.push(format!(
            "not checked for a void lookup: {}",
            unchecked.join(", ")
        ));
    }
    // Only terms nobody could ask about would a resolver settle; a failed answer needs a
    // working one, which the reason already says.
    if root.needs_resolver() && !walker.has_resolver() {
        parts.push("a resolver would settle them".into());
    }
    // One line: many zones share one provider's include, and each says so.
    out.push(code, record, parts.join("; "));
}

/// The terms an `spf-not-followed` (or `spf-lookups-uncounted`) message names as not followed,
/// each with why, as `count` words them: `("include:_spf.mail.example", "outside the account,
/// no resolver to ask")`. A view that shows one line per include across the account (a pull
/// request's comment) groups the findings by them; the findings themselves stay one per record.
pub fn not_followed_terms(message: &str) -> Vec<(&str, &str)> {
    let Some((_, rest)) = message.split_once("; not followed: ") else {
        return Vec::new();
    };
    let list = rest.split("; ").next().unwrap_or_default();
    list.split("), ")
        .map(|item| {
            let item = item.strip_suffix(')').unwrap_or(item);
            item.split_once(" (").unwrap_or((item, ""))
        })
        .collect()
}

fn voids(name: &str, record: &RecordSpec, root: &Node, tree: &str, out: &mut Out<'_>) {
    let voids = root.voids();
    if voids <= VOID_LIMIT {
        return;
    }
    let (code, with_dns) = if root.files_voids() > VOID_LIMIT {
        (FindingCode::SpfTooManyVoidLookups, "")
    } else {
        (
            FindingCode::SpfTooManyVoidLookupsFromDns,
            " (counted with answers read over DNS)",
        )
    };
    out.push(
        code,
        record,
        format!(
            "the SPF record of {name} makes {voids} void lookups (names without records){with_dns}, more than the {VOID_LIMIT} receivers allow (RFC 7208 §4.6.4): they return permerror and treat the mail as unauthenticated; remove the terms that name hosts without records (includes of names that no longer publish SPF, `a:`/`mx:` of names that are gone). Lookups per record:\n{tree}"
        ),
    );
}

/// Each `mx` term whose name has more than 10 MX hosts.
fn crowded_mx(name: &str, record: &RecordSpec, root: &Node, out: &mut Out<'_>) {
    let mut crowded = Vec::new();
    root.crowded_mx(false, &mut crowded);
    for (word, hosts, from_dns) in crowded {
        let (code, source) = if from_dns {
            (FindingCode::SpfMxTooManyHostsFromDns, "the resolver lists")
        } else {
            (FindingCode::SpfMxTooManyHosts, "the files declare")
        };
        out.push(
            code,
            record,
            format!(
                "the SPF record of {name} has `{}`, whose name has {hosts} MX hosts ({source}), more than the {MX_HOST_LIMIT} receivers look up for one `mx` (RFC 7208 §4.6.4): {PERMERROR}; list the mail servers' addresses with ip4:/ip6: instead",
                escape(&word)
            ),
        );
    }
}

fn broken(name: &str, record: &RecordSpec, root: &Node, out: &mut Out<'_>) {
    let mut broken = Vec::new();
    root.broken(&mut Vec::new(), false, &mut broken);
    for Broken {
        chain,
        state,
        from_dns,
    } in broken
    {
        let what = match state {
            State::NoSpf { .. } => "finds no SPF record there".to_string(),
            State::Loop => "includes a record already being evaluated (a loop)".to_string(),
            State::Multiple => "finds several SPF records there".to_string(),
            State::Invalid(why) => format!("finds an invalid SPF record there ({why})"),
            State::Counted | State::Unfollowed(_) => continue,
        };
        let code = if from_dns {
            FindingCode::SpfIncludeBrokenFromDns
        } else {
            FindingCode::SpfIncludeBroken
        };
        out.push(
            code,
            record,
            format!(
                "the SPF record of {name} {what}: {chain}; {PERMERROR}; fix or remove that include"
            ),
        );
    }
}
