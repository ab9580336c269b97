//! Snapshots of the three formats on the representative example-account plan.

use dnscron::render::plan as render;
use dnscron_core::config::model::Desired;
use dnscron_core::plan::snapshot::LiveSnapshot;

use super::fixtures::*;

fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    for (re, with) in crate::common::filters() {
        s.add_filter(re, with);
    }
    s
}

#[test]
fn example_account_text() {
    let (desired, live) = example_account();
    let plan = plan_of(&desired, &live);
    settings().bind(|| insta::assert_snapshot!(render::text(&plan, false)));
}

#[test]
fn example_account_text_colored() {
    let (desired, live) = example_account();
    let plan = plan_of(&desired, &live);
    let text = render::text(&plan, true);
    // Green create and red delete markers, no plain word-diff notation.
    settings().bind(|| insta::assert_snapshot!(text.replace('\x1b', "<ESC>")));
}

#[test]
fn example_account_json() {
    let (desired, live) = example_account();
    let plan = plan_of(&desired, &live);
    settings().bind(|| insta::assert_snapshot!(render::json(&plan).unwrap()));
}

#[test]
fn example_account_markdown() {
    let (desired, live) = example_account();
    let plan = plan_of(&desired, &live);
    settings().bind(|| insta::assert_snapshot!(render::markdown(&plan)));
}

#[test]
fn no_changes_in_every_format() {
    let desired = Desired {
        unmanaged: Default::default(),
        zones: vec![zone("example.com", &[("@", "A", 3600, "203.0.113.10")])],
        sites: vec![site("blog", &[("0 3 * * *", "wp cache flush")])],
    };
    let live = LiveSnapshot {
        zones: vec![live_zone(
            "example.com",
            &[("@", "A", 3600, "203.0.113.10")],
        )],
        sites: vec![live_site(
            "blog",
            "active",
            0,
            &[("0 3 * * *", "wp cache flush")],
        )],
        ..Default::default()
    };
    let plan = plan_of(&desired, &live);
    assert!(plan.is_empty());
    assert_eq!(
        render::text(&plan, false),
        "Live account: http://127.0.0.1:8080/api/v1\n\nNo changes. The live account matches the files.\n"
    );
    insta::assert_snapshot!(render::markdown(&plan));
}

/// A switch to custom nameservers says that apply asks them first (docs/health.md, "Before a
/// nameserver switch"); a switch to the service's own nameservers is not checked, and says
/// nothing more.
#[test]
fn only_a_switch_to_custom_nameservers_mentions_the_readiness_check() {
    let mut to_custom = zone("example.org", &[]);
    custom(&mut to_custom, &["ns1.other-dns.net", "ns2.other-dns.net"]);
    let mut to_hosted = zone("example.com", &[]);
    hosted(&mut to_hosted);
    let desired = Desired {
        unmanaged: Default::default(),
        zones: vec![to_hosted, to_custom],
        sites: vec![],
    };
    let live = LiveSnapshot {
        zones: vec![live_zone("example.com", &[]), live_zone("example.org", &[])],
        domains: vec![
            live_domain(
                "example.com",
                &["ns1.other-dns.net", "ns2.other-dns.net"],
                "inactive",
            ),
            live_domain("example.org", &SERVICE_NS, "inactive"),
        ],
        ..Default::default()
    };
    let plan = plan_of(&desired, &live);
    settings().bind(|| insta::assert_snapshot!(render::text(&plan, false)));
}

#[test]
fn summary_line_wording() {
    use dnscron_core::plan::Summary;
    let s = |create, update, delete, portal_step, blocked| Summary {
        create,
        update,
        update_ttl_only: 0,
        delete,
        portal_step,
        blocked,
        held: 0,
    };
    let held = |create, held| Summary {
        create,
        held,
        ..Summary::default()
    };
    assert_eq!(
        render::summary_line(&s(3, 1, 2, 1, 0), &[]),
        "Plan: 3 to create, 1 to update, 2 to delete, 1 needs a portal step."
    );
    assert_eq!(
        render::summary_line(&s(0, 2, 0, 2, 1), &[]),
        "Plan: 0 to create, 2 to update, 0 to delete, 2 need a portal step, 1 blocked."
    );
    assert_eq!(
        render::summary_line(&s(0, 0, 1, 0, 0), &[]),
        "Plan: 0 to create, 0 to update, 1 to delete."
    );
    // TTL-only updates are counted among the updates, and told apart.
    let ttl = Summary {
        update_ttl_only: 24,
        ..s(0, 25, 0, 0, 0)
    };
    assert_eq!(
        render::summary_line(&ttl, &[]),
        "Plan: 0 to create, 25 to update (24 TTL-only), 0 to delete."
    );
    assert_eq!(
        render::summary_line(&held(2, 1), &[]),
        "Plan: 2 to create, 0 to update, 0 to delete, 1 held by a finding."
    );
    assert_eq!(
        render::summary_line(&held(3, 2), &[]),
        "Plan: 3 to create, 0 to update, 0 to delete, 2 held by findings."
    );
}

/// A finding of `severity` about domain example.com, for the summary line's counts.
fn finding(severity: dnscron_core::plan::Severity) -> dnscron_core::plan::Finding {
    use dnscron_core::plan::{Finding, FindingCode, TargetKind, TargetRef};
    let code = FindingCode::ALL
        .iter()
        .copied()
        .find(|c| c.severity() == severity)
        .unwrap();
    let target = TargetRef {
        kind: TargetKind::Domain,
        name: "example.com".into(),
    };
    Finding::new(code, target, "m".into())
}

/// Without changes, the summary still says when error or warning findings need attention; only
/// with neither is it the all-clear sentence (info, portal-step and blocked findings don't count:
/// they come with changes).
#[test]
fn a_summary_without_changes_counts_the_findings_that_need_attention() {
    use dnscron_core::plan::{Finding, Severity, Summary};
    let none = Summary::default();
    let line = |severities: &[Severity]| {
        let findings: Vec<Finding> = severities.iter().map(|s| finding(*s)).collect();
        render::summary_line(&none, &findings)
    };
    let all_clear = "No changes. The live account matches the files.";
    assert_eq!(line(&[]), all_clear);
    assert_eq!(
        line(&[Severity::Info, Severity::NeedsPortalStep, Severity::Blocked]),
        all_clear
    );
    assert_eq!(
        line(&[Severity::Error]),
        "No changes. The live account matches the files. Findings need attention: 1 error."
    );
    assert_eq!(
        line(&[Severity::Warning]),
        "No changes. The live account matches the files. Findings need attention: 1 warning."
    );
    assert_eq!(
        line(&[
            Severity::Warning,
            Severity::Error,
            Severity::Info,
            Severity::Error
        ]),
        "No changes. The live account matches the files. Findings need attention: 2 errors, 1 warning."
    );
}

/// With changes, the summary counts the error and warning findings after them, in the words of
/// the summary without changes; other findings add nothing.
#[test]
fn a_summary_with_changes_counts_the_findings_that_need_attention() {
    use dnscron_core::plan::{Finding, Severity, Summary};
    let summary = Summary {
        create: 1,
        portal_step: 1,
        ..Summary::default()
    };
    let line = |severities: &[Severity]| {
        let findings: Vec<Finding> = severities.iter().map(|s| finding(*s)).collect();
        render::summary_line(&summary, &findings)
    };
    assert_eq!(
        line(&[Severity::Info, Severity::NeedsPortalStep, Severity::Blocked]),
        "Plan: 1 to create, 0 to update, 0 to delete, 1 needs a portal step."
    );
    assert_eq!(
        line(&[Severity::Error, Severity::Warning, Severity::Warning]),
        "Plan: 1 to create, 0 to update, 0 to delete, 1 needs a portal step. Findings need attention: 1 error, 2 warnings."
    );
}

/// A zone of thousands of changes: the markdown stays under the limit, says it was cut, and
/// still leads with the summary and the deletions.
#[test]
fn markdown_is_truncated_with_a_note() {
    let records: Vec<(String, String)> = (0..3000)
        .map(|i| {
            (
                format!("host{i:04}"),
                format!("198.51.{}.{}", i / 250, i % 250),
            )
        })
        .collect();
    let desired_records: Vec<(&str, &str, u32, &str)> = records
        .iter()
        .map(|(n, c)| (n.as_str(), "A", 3600, c.as_str()))
        .collect();
    let mut big = zone("big.example", &desired_records);
    big.safety.delete_floor = 100;
    let live_records: Vec<(String, String)> = (0..40)
        .map(|i| (format!("gone{i:02}"), format!("192.0.2.{i}")))
        .collect();
    let live: Vec<(&str, &str, u32, &str)> = live_records
        .iter()
        .map(|(n, c)| (n.as_str(), "A", 3600, c.as_str()))
        .collect();
    let desired = Desired {
        unmanaged: Default::default(),
        zones: vec![big, zone("small.example", &[("@", "A", 3600, "192.0.2.1")])],
        sites: vec![],
    };
    let live = LiveSnapshot {
        zones: vec![
            live_zone("big.example", &live),
            live_zone("small.example", &[]),
        ],
        ..Default::default()
    };
    let plan = plan_of(&desired, &live);
    let md = render::markdown(&plan);
    assert!(md.len() <= render::MARKDOWN_MAX_LEN, "{} bytes", md.len());
    assert!(
        md.len() > 50_000,
        "uses the room it has: {} bytes",
        md.len()
    );
    assert!(
        md.starts_with(
            "### dnscron plan\n\nLive account: <code>http://127.0.0.1:8080/api/v1</code>\n\n\
             **Plan: 3001 to create, 0 to update, 40 to delete.**"
        ),
        "{}",
        &md[..200]
    );
    // The head (summary, the deletions) and the tail (where and why it was cut) in full.
    let lines: Vec<&str> = md.lines().collect();
    insta::assert_snapshot!(format!(
        "{}\n[…]\n{}",
        lines[..14].join("\n"),
        lines[lines.len() - 12..].join("\n")
    ));
    assert_eq!(
        md.matches("<details>").count(),
        md.matches("</details>").count()
    );
    assert_eq!(md.matches("```").count() % 2, 0, "fences are closed");
}

#[test]
fn server_data_cannot_inject_terminal_escapes() {
    let desired = Desired {
        unmanaged: Default::default(),
        zones: vec![zone(
            "example.com",
            &[("www", "CNAME", 300, "example.com.")],
        )],
        sites: vec![site("blog", &[])],
    };
    let mut live_blog = live_site(
        "blog",
        "active",
        0,
        &[("0 * * * *", "wp x\u{1b}[2J\nFAKE LINE")],
    );
    live_blog.state = Some("active".into());
    let live = LiveSnapshot {
        zones: vec![live_zone(
            "example.com",
            &[("www", "CNAME", 300, "evil\u{1b}]0;title\u{7}.example.")],
        )],
        sites: vec![live_blog],
        ..Default::default()
    };
    let plan = plan_of(&desired, &live);
    let ours = ["0", "1", "2", "31", "32", "33", "35", "1;4;31", "1;4;32"];
    let mut colored = render::text(&plan, true);
    for code in ours {
        colored = colored.replace(&format!("\x1b[{code}m"), "");
    }
    let [text, colored, md] = [render::text(&plan, false), colored, render::markdown(&plan)];
    for out in [&text, &colored, &md] {
        assert!(!out.chars().any(|c| c.is_control() && c != '\n'), "{out:?}");
    }
    // The escapes are shown as `\u{1b}`, the newline does not start a line of its own.
    assert_eq!(colored, text);
    insta::assert_snapshot!(format!("{text}--- markdown\n{md}"));
}
