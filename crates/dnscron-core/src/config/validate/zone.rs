//! Zone documents: names, contents, TTLs, duplicates, CNAME rules, ignore rules, nameservers.

use foldhash::{HashMap, HashMapExt};

use std::sync::Arc;

use super::Checker;
use super::accept::{Owner, check_accept};
use super::sets::{self, UsedSet};
use crate::config::diagnostics::{Diagnostic, Diagnostics, SourceFile};
use crate::config::model::{
    IgnoreRule, Location, NameserverMode, NameserversSpec, RecordSpec, RegistrarExpectations,
    SafetyLimits, SetUse, ZoneSpec,
};
use crate::config::raw;
use crate::config::tree::Pos;
use crate::dns::rules::{self, DEFAULT_TTL, NameRule, NameserverHostProblem};
use crate::dns::{RecordType, ZoneName, canonical_content, fold_host, record_name_to_relative};

/// Raw records checked before the raw list is shrunk to what is left (`check_zone`).
const GIVE_BACK: usize = 4096;

/// A zone's records with those of the sets it uses (`sets`, in `use:` order).
pub(super) fn check_zone(
    c: &mut Checker<'_>,
    mut z: raw::ZoneDoc,
    sets: &[UsedSet<'_>],
    warnings: &mut Diagnostics,
) -> Option<ZoneSpec> {
    let zone = match ZoneName::parse(&z.zone.value) {
        Ok(zone) => zone,
        Err(err) => {
            let d = c.error(z.zone.pos, err.to_string());
            d.hint = err.hint();
            return None;
        }
    };
    let default_ttl = z
        .defaults
        .as_ref()
        .and_then(|d| d.ttl.as_ref())
        .map_or(DEFAULT_TTL, |t| t.value);
    let nameservers = z
        .nameservers
        .as_ref()
        .and_then(|ns| nameservers(c, &zone, ns));
    let ignore: Vec<IgnoreRule> = z
        .ignore
        .iter()
        .flatten()
        .filter_map(|rule| ignore_rule(c, rule))
        .collect();
    let uses = sets
        .iter()
        .map(|set| SetUse {
            name: Arc::clone(set.name),
            file: set.source.path.clone(),
        })
        .collect();
    let mut raw_records = z.records.take().unwrap_or_default();
    let mut checked: Vec<Checked> = Vec::with_capacity(raw_records.len());
    let mut overrides: Vec<Override> = Vec::new();
    // Checked from the last, the raw list giving its memory back as it goes: the raw and the
    // checked lists of a 100,000-record zone never both hold every record, which was the
    // loader's peak. Put back in file order below (the diagnostics are sorted by position).
    while let Some(r) = raw_records.pop() {
        if raw_records.capacity() - raw_records.len() >= GIVE_BACK {
            raw_records.shrink_to_fit();
        }
        let over = r.override_sets.as_ref().filter(|o| o.value).map(|o| o.pos);
        let Some(one) = record(c, &zone, r, default_ttl) else {
            continue;
        };
        if let Some(pos) = over {
            overrides.push(Override {
                key: (one.spec.name.clone(), one.spec.rtype),
                pos,
                used: false,
            });
        }
        checked.push(one);
    }
    checked.reverse();
    overrides.reverse();
    if !sets.is_empty() || !overrides.is_empty() {
        let from_sets = set_records(c, &zone, sets, default_ttl);
        let kept = merge_sets(c, &zone, &checked, &mut overrides, from_sets);
        warn_idle_overrides(c, &overrides, warnings);
        checked.extend(kept);
    }
    check_duplicates(c, &mut checked);
    check_rrset_ttls(c, &checked);
    check_cnames(c, &checked);
    check_ignored(c, &checked, &ignore);
    let mut records: Vec<RecordSpec> = checked.into_iter().map(|r| r.spec).collect();
    // Collected in place into the larger `Checked` allocation: give the difference back, as the
    // desired state lives until the plan is written.
    records.shrink_to_fit();
    let ok_nameservers = z.nameservers.is_none() || nameservers.is_some();
    let accept = check_accept(
        c,
        z.accept.as_deref().unwrap_or_default(),
        Owner::Zone(&zone),
    );
    let spec = ZoneSpec {
        zone,
        location: c.location(z.zone.pos),
        nameservers,
        prune: z.prune.as_ref().is_none_or(|p| p.value),
        ignore,
        records,
        safety: safety(z.safety.as_ref()),
        registrar: z.registrar.as_ref().map(|r| RegistrarExpectations {
            auto_renew: r.auto_renew.as_ref().map(|v| v.value),
            lock: r.lock.as_ref().map(|v| v.value),
            whois_privacy: r.whois_privacy.as_ref().map(|v| v.value),
            expiry_warning_days: r.expiry_warning_days.as_ref().map(|v| v.value),
            location: c.location(r.pos),
        }),
        uses,
        accept,
    };
    ok_nameservers.then_some(spec)
}

/// A valid record and where its name was written (rules about the whole zone point there).
struct Checked {
    spec: RecordSpec,
    name_pos: Pos,
    /// The record set's file, for a record that comes from a set (`None`: the zone's file).
    set_file: Option<Arc<SourceFile>>,
}

/// A zone record with `override: true`: its name and type, where the flag is written, and
/// whether a set record was replaced by it.
struct Override {
    key: (String, RecordType),
    pos: Pos,
    used: bool,
}

/// The used sets' records as this zone reads them (`{zone}` replaced), each checked once per
/// zone; a problem in a set record is reported once, however many zones use the set.
fn set_records(
    c: &mut Checker<'_>,
    zone: &ZoneName,
    sets: &[UsedSet<'_>],
    default_ttl: u32,
) -> Vec<Checked> {
    let mut out = Vec::new();
    for set in sets {
        let mut scratch = Diagnostics::default();
        let mut sc = Checker {
            diags: &mut scratch,
            source: Arc::clone(set.source),
        };
        for r in set.records {
            let mut r = r.clone();
            r.content.value = sets::substitute(&r.content.value, zone.as_str());
            if let Some(mut checked) = record(&mut sc, zone, r, default_ttl) {
                checked.spec.set = Some(Arc::clone(set.name));
                checked.set_file = Some(Arc::clone(set.source));
                out.push(checked);
            }
        }
        for d in scratch.items {
            let d = d.with_label(format!("in zone `{zone}`, which uses set `{}`", set.name));
            sets::push_once(c.diags, d);
        }
    }
    out
}

/// The set records this zone keeps: a name and type the zone declares itself is an error at
/// both places, unless the zone's record says `override: true` (then every set record of that
/// name and type is left out); two sets declaring one name and type is an error at both.
fn merge_sets(
    c: &mut Checker<'_>,
    zone: &ZoneName,
    own: &[Checked],
    overrides: &mut [Override],
    from_sets: Vec<Checked>,
) -> Vec<Checked> {
    let mut own_at: HashMap<(&str, RecordType), &Checked> = HashMap::new();
    for r in own {
        own_at
            .entry((r.spec.name.as_str(), r.spec.rtype))
            .or_insert(r);
    }
    // Per name and type: the first set record kept (an index into `kept`).
    let mut set_at: HashMap<(String, RecordType), usize> = HashMap::new();
    // Names and types already reported as a clash: one report each, not one per record.
    let mut clashed: Vec<(String, RecordType)> = Vec::new();
    let mut kept: Vec<Checked> = Vec::with_capacity(from_sets.len());
    for r in from_sets {
        let spec = &r.spec;
        if let Some(o) = overrides
            .iter_mut()
            .find(|o| o.key.0 == spec.name && o.key.1 == spec.rtype)
        {
            o.used = true;
            continue;
        }
        let key = (spec.name.clone(), spec.rtype);
        let reported = clashed.contains(&key);
        if let Some(mine) = own_at.get(&(spec.name.as_str(), spec.rtype)) {
            if !reported {
                zone_set_clash(c, zone, mine, &r);
                clashed.push(key);
            }
            continue;
        }
        match set_at.get(&key) {
            Some(&first) if kept[first].spec.set != spec.set => {
                if !reported {
                    set_set_clash(c, zone, &kept[first], &r);
                    clashed.push(key);
                }
            }
            Some(_) => kept.push(r),
            None => {
                set_at.insert(key, kept.len());
                kept.push(r);
            }
        }
    }
    kept
}

/// A zone's record and a set's record at one name and type: reported at both.
fn zone_set_clash(c: &mut Checker<'_>, zone: &ZoneName, mine: &Checked, r: &Checked) {
    let (name, rtype) = (&r.spec.name, r.spec.rtype);
    let set = r.spec.set.as_deref().unwrap_or_default();
    record_error(
        c,
        mine,
        format!(
            "{name} {rtype} is declared by this zone and by record set `{set}` (at {}), which the zone uses",
            r.spec.location
        ),
        format!(
            "remove one of them, or write `override: true` on this record to replace the set's {name} {rtype} records in `{zone}`"
        ),
    );
    record_error(
        c,
        r,
        format!(
            "{name} {rtype} of record set `{set}` is also declared by zone `{zone}` (at {}), which uses the set",
            mine.spec.location
        ),
        format!(
            "remove one of them, or write `override: true` on the zone's record (at {}) to replace this one in `{zone}`",
            mine.spec.location
        ),
    );
}

/// Two sets used by one zone declaring one name and type: reported at both.
fn set_set_clash(c: &mut Checker<'_>, zone: &ZoneName, first: &Checked, r: &Checked) {
    let (name, rtype) = (&r.spec.name, r.spec.rtype);
    let first_set = first.spec.set.as_deref().unwrap_or_default();
    let set = r.spec.set.as_deref().unwrap_or_default();
    let hint = format!(
        "keep the {name} {rtype} records in one of the two sets, or declare them in the zone \
         with `override: true`"
    );
    for (here, other, here_set, other_set) in
        [(r, first, set, first_set), (first, r, first_set, set)]
    {
        record_error(
            c,
            here,
            format!(
                "{name} {rtype} is declared by record set `{here_set}` (here) and by record set \
                 `{other_set}` (at {}), both used by zone `{zone}`",
                other.spec.location
            ),
            hint.clone(),
        );
    }
}

/// A warning at each `override: true` that replaced no set record.
fn warn_idle_overrides(c: &Checker<'_>, overrides: &[Override], warnings: &mut Diagnostics) {
    for o in overrides.iter().filter(|o| !o.used) {
        let (name, rtype) = (&o.key.0, o.key.1);
        warnings.push(
            Diagnostic::at(
                &c.source,
                o.pos,
                format!("`override: true` on {name} {rtype} replaces nothing: no record set this zone uses declares {name} {rtype}"),
            )
            .with_label("overrides nothing")
            .with_hint("remove `override: true`, or add the set that declares the record to the zone's `use:`"),
        );
    }
}

fn record(
    c: &mut Checker<'_>,
    zone: &ZoneName,
    r: raw::Record,
    default_ttl: u32,
) -> Option<Checked> {
    let name = match record_name_to_relative(&r.name.value, zone) {
        Ok(name) => Some(name),
        Err(err) => {
            let d = c.error(r.name.pos, err.to_string());
            d.hint = err.hint();
            None
        }
    };
    let rtype = r.rtype.value;
    let canonical = match canonical_content(rtype, &r.content.value, zone) {
        Ok(canonical) => Some(canonical),
        Err(err) => {
            let d = c.error(r.content.pos, format!("invalid {rtype} content: {err}"));
            d.hint = err.hint;
            None
        }
    };
    let name = name?;
    if let Some(rule) = rules::broken_name_rule(rtype, &name) {
        let (message, hint) = name_rule_words(rule, &name);
        c.error(r.name.pos, message).hint = Some(hint.into());
        return None;
    }
    let spec = RecordSpec {
        name,
        rtype,
        ttl: r.ttl.as_ref().map_or(default_ttl, |t| t.value),
        // As written, untrimmed: the canonical form above came from exactly this text, and a
        // saved plan's desired state is re-checked from `content` (`config::revalidate`), so a
        // trimmed copy would reload a TXT `" hello "` as `hello`.
        content: r.content.value,
        canonical: canonical?,
        location: c.location(r.pos),
        set: None,
    };
    Some(Checked {
        spec,
        name_pos: r.name.pos,
        set_file: None,
    })
}

/// What a file's author reads when a record breaks a name rule: the problem and the fix.
fn name_rule_words(rule: NameRule, name: &str) -> (String, &'static str) {
    match rule {
        NameRule::SrvOwner => (
            format!("SRV record name `{name}` is not `_service._proto`"),
            "name SRV records after the service and protocol, e.g. `_sip._tcp`",
        ),
        NameRule::ServiceApexNs => (
            "NS records at the zone apex (`@`) are not managed here".into(),
            "the service keeps the apex NS records itself (they are hidden from listings); \
             use the zone's `nameservers:` key to choose the domain's nameservers, or NS records \
             on a subdomain to delegate it",
        ),
        NameRule::ApexCname => (
            "a CNAME cannot be at the zone apex (`@`)".into(),
            "the apex has SOA and NS records; use A/AAAA records there, or a CNAME on a \
             subdomain such as `www`",
        ),
    }
}

/// A problem at a record's name, in the file that declares it (a set's, for a set record).
fn record_error(c: &mut Checker<'_>, r: &Checked, message: String, hint: String) {
    let d = match &r.set_file {
        Some(file) => Diagnostic::at(file, r.name_pos, message),
        None => Diagnostic::at(&c.source, r.name_pos, message),
    };
    let d = d.with_hint(hint);
    if r.set_file.is_some() {
        super::sets::push_once(c.diags, d);
    } else {
        c.diags.push(d);
    }
}

/// No two records with the same name, type and canonical content; later copies are dropped.
fn check_duplicates(c: &mut Checker<'_>, records: &mut Vec<Checked>) {
    // Indexes of the first record of each key; the keys borrow the records (no copies).
    let mut seen: HashMap<(&str, RecordType, &str), usize> = HashMap::with_capacity(records.len());
    let mut dups = Vec::new();
    for (i, r) in records.iter().map(|r| &r.spec).enumerate() {
        let key = (r.name.as_str(), r.rtype, r.canonical.as_str());
        match seen.get(&key) {
            Some(&first) => dups.push((i, first)),
            None => {
                seen.insert(key, i);
            }
        }
    }
    drop(seen);
    let dups: Vec<(usize, Location)> = dups
        .into_iter()
        .map(|(i, first)| (i, records[first].spec.location.clone()))
        .collect();
    for (i, first) in dups.iter().rev() {
        let r = records.remove(*i);
        let spec = &r.spec;
        record_error(
            c,
            &r,
            format!(
                "duplicate record: {} {} `{}` is already declared at {first}",
                spec.name, spec.rtype, spec.canonical
            ),
            format!("remove one of the two (here and {first})"),
        );
    }
}

/// One name and type is one RRset, with one TTL (RFC 2181 §5.2): a record whose TTL differs from
/// the first of its RRset is reported at the later one, naming both lines.
fn check_rrset_ttls(c: &mut Checker<'_>, records: &[Checked]) {
    let conflicts = rules::rrset_ttl_conflicts(
        records
            .iter()
            .map(|r| (r.spec.name.as_str(), r.spec.rtype, r.spec.ttl)),
    );
    for (later, first) in conflicts {
        let (r, first) = (&records[later], &records[first].spec);
        let spec = &r.spec;
        record_error(
            c,
            r,
            format!(
                "the {} records at `{}` have different TTLs: {} here, {} at {}; one name and \
                 type is one RRset, which has one TTL (RFC 2181 §5.2)",
                spec.rtype, spec.name, spec.ttl, first.ttl, first.location
            ),
            format!(
                "give every {} record at `{}` the same `ttl` (here and {}; a record without \
                 one takes `defaults.ttl`)",
                spec.rtype, spec.name, first.location
            ),
        );
    }
}

/// A CNAME owns its name alone: no other record (of any type) may share it. Each clashing
/// pair is reported once, at the later record, naming the earlier one.
fn check_cnames(c: &mut Checker<'_>, records: &[Checked]) {
    /// Per name: its first record and its first CNAME (indexes), so each record finds the
    /// earliest clashing one without scanning every earlier record (zones of 100,000 records).
    #[derive(Default)]
    struct Seen {
        first: Option<usize>,
        first_cname: Option<usize>,
    }
    let mut seen: HashMap<&str, Seen> = HashMap::new();
    for (j, checked) in records.iter().enumerate() {
        let later = &checked.spec;
        let is_cname = rules::must_be_alone(later.rtype);
        let at_name = seen.entry(later.name.as_str()).or_default();
        // A CNAME clashes with the first earlier record of any type; another record only with
        // the first earlier CNAME.
        let clash = if is_cname {
            at_name.first
        } else {
            at_name.first_cname
        }
        .map(|i| &records[i].spec);
        at_name.first.get_or_insert(j);
        if is_cname {
            at_name.first_cname.get_or_insert(j);
        }
        if let Some(earlier) = clash {
            record_error(
                c,
                checked,
                format!(
                    "{} record `{}` clashes with the {} record at {}: a CNAME must be the \
                     only record at its name",
                    later.rtype, later.name, earlier.rtype, earlier.location
                ),
                "remove the other record, or replace the CNAME with A/AAAA records".into(),
            );
        }
    }
}

/// A declared record may not also be ignored.
fn check_ignored(c: &mut Checker<'_>, records: &[Checked], ignore: &[IgnoreRule]) {
    for checked in records {
        let r = &checked.spec;
        if let Some(rule) = ignore
            .iter()
            .find(|rule| rule.matches(&r.name, r.rtype, &r.canonical))
        {
            record_error(
                c,
                checked,
                format!(
                    "{} {} is both declared and ignored (by the rule at {})",
                    r.name, r.rtype, rule.location
                ),
                "a record is either managed or ignored: remove it from `records` or narrow \
                 the ignore rule"
                    .into(),
            );
        }
    }
}

fn ignore_rule(c: &mut Checker<'_>, rule: &raw::IgnoreRule) -> Option<IgnoreRule> {
    if rule.name.is_none() && rule.rtype.is_none() {
        let d = c.error(rule.pos, "an ignore rule needs a `name`, a `type` or both");
        d.hint = Some(
            "a rule matching every record would make `prune` do nothing; write e.g. \
                       `{ name: \"_acme-challenge*\", type: TXT }`"
                .into(),
        );
        return None;
    }
    let name = match &rule.name {
        Some(n) => match crate::config::glob::rule_name(&n.value) {
            Some(name) => name,
            None => {
                c.error(n.pos, "the ignore rule's `name` is empty").hint =
                    Some("write a glob such as `_acme-challenge*`, or `*` for every name".into());
                return None;
            }
        },
        None => "*".into(),
    };
    Some(IgnoreRule {
        name,
        rtype: rule.rtype.as_ref().map(|t| t.value),
        content: rule.content.as_ref().map(|c| c.value.clone()),
        location: c.location(rule.pos),
    })
}

fn nameservers(
    c: &mut Checker<'_>,
    zone: &ZoneName,
    ns: &raw::Nameservers,
) -> Option<NameserversSpec> {
    let location = c.location(ns.pos);
    let mode = match (ns.mode.value, &ns.hosts) {
        (raw::NameserverMode::Hosted, None) => NameserverMode::Hosted,
        (raw::NameserverMode::Hosted, Some(hosts)) => {
            let pos = hosts.first().map_or(ns.pos, |h| h.pos);
            c.error(pos, "`mode: hosted` takes no `hosts`").hint = Some(
                "remove `hosts` to use the service's own nameservers, or write `mode: custom`"
                    .into(),
            );
            return None;
        }
        (raw::NameserverMode::Custom, None) => {
            c.error(ns.mode.pos, "`mode: custom` needs `hosts`").hint =
                Some("list 2 to 6 nameserver host names under `hosts`".into());
            return None;
        }
        (raw::NameserverMode::Custom, Some(hosts)) => {
            NameserverMode::Custom(custom_hosts(c, zone, ns, hosts)?)
        }
    };
    Some(NameserversSpec { mode, location })
}

fn custom_hosts(
    c: &mut Checker<'_>,
    zone: &ZoneName,
    ns: &raw::Nameservers,
    hosts: &[raw::Sp<String>],
) -> Option<Vec<String>> {
    let mut ok = true;
    let (min, max) = (
        rules::NAMESERVER_COUNT.start(),
        rules::NAMESERVER_COUNT.end(),
    );
    if !rules::NAMESERVER_COUNT.contains(&hosts.len()) {
        let pos = hosts.first().map_or(ns.pos, |h| h.pos);
        c.error(
            pos,
            format!(
                "`hosts` lists {} nameservers; the API takes {min} to {max}",
                hosts.len()
            ),
        )
        .hint = Some(format!("list between {min} and {max} host names"));
        ok = false;
    }
    let mut out: Vec<String> = Vec::new();
    for host in hosts {
        let name = fold_host(&host.value);
        let problem = if let Err(problem) = rules::check_nameserver_host(&name) {
            Some(match problem {
                NameserverHostProblem::Invalid(reason) => (
                    format!("`{}` is not a valid host name: {reason}", host.value),
                    None,
                ),
                NameserverHostProblem::NotFull => (
                    format!("`{}` is not a full host name", host.value),
                    Some("write the full name, e.g. `ns1.other-dns.net`".to_string()),
                ),
            })
        } else if zone.contains(&name) {
            Some((
                format!("nameserver `{name}` is inside the zone's own domain `{zone}`"),
                Some("the API refuses nameservers inside the domain (they would need glue records); use hosts of another domain".to_string()),
            ))
        } else if out.contains(&name) {
            Some((
                format!("nameserver `{name}` is listed twice"),
                Some("list each host once".to_string()),
            ))
        } else {
            None
        };
        match problem {
            Some((message, hint)) => {
                c.error(host.pos, message).hint = hint;
                ok = false;
            }
            None => out.push(name),
        }
    }
    ok.then_some(out)
}

fn safety(raw: Option<&raw::Safety>) -> SafetyLimits {
    let mut limits = SafetyLimits::default();
    let Some(s) = raw else {
        return limits;
    };
    if let Some(v) = &s.max_deletes {
        limits.max_deletes = v.value;
    }
    if let Some(v) = &s.delete_floor {
        limits.delete_floor = v.value;
    }
    if let Some(v) = &s.max_delete_percent {
        limits.max_delete_percent = v.value;
    }
    if let Some(v) = &s.update_floor {
        limits.update_floor = v.value;
    }
    if let Some(v) = &s.max_update_percent {
        limits.max_update_percent = v.value;
    }
    if let Some(v) = &s.ttl_update_floor {
        limits.ttl_update_floor = v.value;
    }
    if let Some(v) = &s.max_ttl_update_percent {
        limits.max_ttl_update_percent = v.value;
    }
    if let Some(v) = &s.allow_empty {
        limits.allow_empty = v.value;
    }
    limits
}
