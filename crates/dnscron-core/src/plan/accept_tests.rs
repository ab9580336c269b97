//! Matching `accept:` entries against findings: code, owner and name; `until` against the plan's
//! day; the unused warning only where the findings were looked for.

use std::path::PathBuf;

use chrono::NaiveDate;

use super::{Looked, judge_acceptances};
use crate::config::load_texts;
use crate::config::model::Desired;
use crate::dns::RecordType;
use crate::finding::FindingCode;
use crate::plan::model::{Finding, TargetKind, TargetRef};

const FILES: &str = concat!(
    "zone: example.com\n",
    "records:\n",
    "  - { name: mail._domainkey, type: TXT, content: \"v=DKIM1; p=AAAA\" }\n",
    "accept:\n",
    "  - { finding: dkim-key-too-short, name: mail._domainkey, reason: provider's key, until: 2026-12-31 }\n",
    "  - { finding: domain-expiring, name: \"@\", reason: lapses on purpose }\n",
    "---\n",
    "site: shop\n",
    "cron:\n",
    "  - { schedule: \"* * * * *\", command: php artisan queue }\n",
    "  - { schedule: \"* * * * *\", command: php artisan other }\n",
    "accept:\n",
    "  - { finding: cron-every-minute, name: php artisan queue, reason: a queue worker }\n",
);

fn desired(text: &str) -> Desired {
    load_texts(&[(PathBuf::from("a.yaml"), text.to_string())])
        .unwrap_or_else(|d| panic!("{:?}", d.items))
}

fn target(kind: TargetKind, name: &str) -> TargetRef {
    TargetRef {
        kind,
        name: name.into(),
    }
}

fn findings() -> Vec<Finding> {
    vec![
        Finding::new(
            FindingCode::DkimKeyTooShort,
            target(TargetKind::Zone, "example.com"),
            "short".into(),
        )
        .about_record("mail._domainkey", RecordType::TXT)
        .declared_at("a.yaml:3:5"),
        Finding::new(
            FindingCode::DomainExpiring,
            target(TargetKind::Domain, "example.com"),
            "expiring".into(),
        ),
        Finding::new(
            FindingCode::CronEveryMinute,
            target(TargetKind::Site, "shop"),
            "queue".into(),
        )
        .declared_at("a.yaml:10:5"),
        Finding::new(
            FindingCode::CronEveryMinute,
            target(TargetKind::Site, "shop"),
            "other".into(),
        )
        .declared_at("a.yaml:11:5"),
    ]
}

/// The findings above judged against the entries of `files` on `today`.
fn judge(files: &str, today: Option<NaiveDate>, looked: Looked) -> Vec<Finding> {
    let mut all = findings();
    judge_acceptances(&mut all, &desired(files), today, looked);
    all
}

const EVERYTHING: Looked = Looked::Everything { dns: false };

fn day(text: &str) -> Option<NaiveDate> {
    Some(text.parse().unwrap_or_else(|e| panic!("{e}")))
}

/// (code, accepted reason or `-`, message of the notes) per finding.
fn judged(findings: &[Finding]) -> Vec<(String, String)> {
    findings
        .iter()
        .map(|f| {
            let accepted = f.accepted.as_ref().map_or("-".to_string(), |a| {
                format!("{} ({})", a.reason, a.declared_at)
            });
            (f.code.to_string(), accepted)
        })
        .collect()
}

#[test]
fn each_entry_accepts_the_findings_of_its_code_owner_and_name_only() {
    let all = judge(FILES, day("2026-12-31"), EVERYTHING);
    assert_eq!(
        judged(&all),
        [
            (
                "dkim-key-too-short".into(),
                "provider's key (a.yaml:5:5)".into()
            ),
            (
                "domain-expiring".into(),
                "lapses on purpose (a.yaml:6:5)".into()
            ),
            (
                "cron-every-minute".into(),
                "a queue worker (a.yaml:13:5)".into()
            ),
            ("cron-every-minute".into(), "-".into()),
        ]
    );
    assert_eq!(
        all[0].accepted.as_ref().and_then(|a| a.until),
        day("2026-12-31")
    );
}

#[test]
fn an_entry_past_its_day_accepts_nothing_and_says_when_it_expired() {
    let all = judge(FILES, day("2027-01-01"), EVERYTHING);
    assert_eq!(all[0].accepted, None);
    let expired = &all[4];
    assert_eq!(
        (
            expired.code,
            expired.target.clone(),
            expired.declared_at.as_deref()
        ),
        (
            FindingCode::AcceptanceExpired,
            target(TargetKind::Zone, "example.com"),
            Some("a.yaml:5:5")
        )
    );
    assert_eq!(
        expired.message,
        "the acceptance of `dkim-key-too-short` of `mail._domainkey` expired on 2026-12-31 (\"provider's key\"), so the finding counts again; fix what the finding is about, or extend `until` if the reason still holds"
    );
    assert_eq!(all.len(), 5);
}

#[test]
fn an_unknown_plan_day_judges_no_until() {
    let all = judge(FILES, None, EVERYTHING);
    assert_eq!(all[0].accepted, None);
    assert!(all[1].accepted.is_some());
    assert_eq!(
        all.len(),
        4,
        "neither expired nor unused: {:?}",
        judged(&all)
    );
}

#[test]
fn an_entry_matching_nothing_is_unused_only_where_its_finding_was_looked_for() {
    let files = concat!(
        "zone: example.com\n",
        "accept:\n",
        "  - { finding: dkim-key-too-short, name: other._domainkey, reason: r }\n",
        "  - { finding: dkim-key-too-short, name: gone._domainkey, reason: r, until: 2020-01-01 }\n",
    );
    let all = judge(files, day("2026-01-02"), EVERYTHING);
    let notes: Vec<(FindingCode, &str)> = all[4..]
        .iter()
        .map(|f| (f.code, f.message.as_str()))
        .collect();
    assert_eq!(
        notes,
        [
            (
                FindingCode::AcceptanceUnused,
                "the acceptance of `dkim-key-too-short` of `other._domainkey` matches no finding of this plan: what it accepted is gone or the name differs from the finding's; remove the entry, or write the name the finding's head line shows"
            ),
            (
                FindingCode::AcceptanceExpired,
                "the acceptance of `dkim-key-too-short` of `gone._domainkey` expired on 2020-01-01 (\"r\"), so it would not accept the finding any more (none was found); fix what the finding is about, or extend `until` if the reason still holds"
            ),
        ]
    );
    let partly = judge(files, day("2026-01-02"), Looked::Partly);
    assert_eq!(
        partly[4..].iter().map(|f| f.code).collect::<Vec<_>>(),
        [FindingCode::AcceptanceExpired]
    );
}

#[test]
fn a_site_entry_of_at_accepts_every_finding_of_its_code_on_the_site() {
    let files = concat!(
        "site: shop\n",
        "accept:\n",
        "  - { finding: cron-every-minute, name: \"@\", reason: workers }\n",
        "  - { finding: cron-never-runs, name: \"@\", reason: r }\n",
    );
    let all = judge(files, day("2026-01-02"), EVERYTHING);
    assert_eq!(
        judged(&all)[2..],
        [
            ("cron-every-minute".into(), "workers (a.yaml:3:5)".into()),
            ("cron-every-minute".into(), "workers (a.yaml:3:5)".into()),
            ("acceptance-unused".into(), "-".into()),
        ]
    );
}

/// A finding of `code` at `name` of example.com measuring `now`, judged on `today` against one
/// entry of `code` whose `value` is `value` (none: an entry written before figures were
/// recorded); the finding's acceptance and the notes the entry gave.
fn judged_figure(
    code: FindingCode,
    name: &str,
    now: crate::plan::Figure,
    value: Option<&str>,
    today: &str,
) -> (Option<crate::plan::model::Acceptance>, Vec<String>) {
    let value = value.map(|v| format!(", value: {v}")).unwrap_or_default();
    let files = format!(
        "zone: example.com\nrecords: []\naccept:\n  - {{ finding: {code}, name: \"{name}\", reason: r{value} }}\n"
    );
    let finding = match name {
        "@" => Finding::new(code, target(TargetKind::Domain, "example.com"), "m".into()),
        _ => Finding::new(code, target(TargetKind::Zone, "example.com"), "m".into())
            .about_record(name, RecordType::TXT),
    }
    .measured(now);
    let mut all = vec![finding];
    let today = NaiveDate::parse_from_str(today, "%Y-%m-%d").ok();
    judge_acceptances(&mut all, &desired(&files), today, EVERYTHING);
    let notes = all[1..]
        .iter()
        .map(|n| format!("{} {}", n.code, n.message))
        .collect();
    (all[0].accepted.clone(), notes)
}

#[test]
fn an_acceptance_covers_the_figure_it_records_and_better_not_worse() {
    use crate::finding::{DmarcPolicy, Figure};
    let day = |d: &str| Figure::Expires(NaiveDate::parse_from_str(d, "%Y-%m-%d").unwrap());
    let today = "2026-01-10";
    // (code, name, accepted, covered now, worse now, words of the worse one)
    let cases = [
        (
            FindingCode::SpfTooManyLookups,
            "@",
            "11",
            Figure::Lookups(11),
            Figure::Lookups(14),
            "accepted at 11 lookups, now 14 lookups",
        ),
        (
            FindingCode::DmarcReportUnauthorized,
            "_dmarc",
            "quarantine",
            Figure::DmarcPolicy(DmarcPolicy::Reject),
            Figure::DmarcPolicy(DmarcPolicy::None),
            "accepted at p=quarantine, now p=none",
        ),
        (
            FindingCode::DkimKeyWeak,
            "mail._domainkey",
            "1024",
            Figure::KeyBits(1024),
            Figure::KeyBits(768),
            "accepted at 1024 bits, now 768 bits",
        ),
        (
            FindingCode::DomainExpiring,
            "@",
            "2026-02-01",
            day("2026-02-01"),
            day("2027-02-01"),
            "accepted at expiry 2026-02-01, now expiry 2027-02-01",
        ),
    ];
    for (code, name, value, covered, worse, words) in cases {
        let (accepted, notes) = judged_figure(code, name, covered, Some(value), today);
        let recorded = Figure::parse(crate::finding::FigureKind::of(code).unwrap(), value);
        assert_eq!(accepted.and_then(|a| a.figure), recorded, "{code} covered");
        assert_eq!(notes, Vec::<String>::new(), "{code} covered");
        let (accepted, notes) = judged_figure(code, name, worse, Some(value), today);
        assert_eq!(accepted, None, "{code} got worse: not covered");
        assert_eq!(notes.len(), 1, "{code}: {notes:?}");
        assert!(
            notes[0].starts_with("acceptance-outgrown ") && notes[0].contains(words),
            "{code}: {notes:?}"
        );
        assert!(notes[0].contains(&format!("write `value: {}`", worse.value())));
        // An entry written before figures were recorded covers any figure, as it did.
        let (accepted, notes) = judged_figure(code, name, worse, None, today);
        assert!(
            accepted.is_some_and(|a| a.figure.is_none()),
            "{code} old entry"
        );
        assert!(notes.is_empty(), "{code} old entry: {notes:?}");
    }
}

#[test]
fn an_acceptance_of_an_expiry_ends_on_the_day_the_domain_expires() {
    use crate::plan::Figure;
    let expires = Figure::Expires(NaiveDate::from_ymd_opt(2026, 2, 1).unwrap());
    let code = FindingCode::DomainExpiring;
    // The day before, it holds, with or without `value`.
    for value in [Some("2026-02-01"), None] {
        let (accepted, notes) = judged_figure(code, "@", expires, value, "2026-01-31");
        assert!(accepted.is_some(), "{value:?}");
        assert!(notes.is_empty());
    }
    // On the day, it ends: no `until` keeps it.
    for value in [Some("2026-02-01"), None] {
        let (accepted, notes) = judged_figure(code, "@", expires, value, "2026-02-01");
        assert_eq!(accepted, None, "{value:?}");
        assert_eq!(notes.len(), 1);
        assert!(
            notes[0].contains("ended on 2026-02-01, the day the domain expires"),
            "{notes:?}"
        );
    }
}
