//! The apply report's text and JSON: every result says what happened and what to do.

use super::*;
use dnscron_core::apply::{ChangeOutcome, Counts, ErrorInfo};
use dnscron_core::plan::{Action, Change, Resource, Status, TargetKind, TargetRef};

fn change(id: usize) -> Change {
    Change {
        id,
        action: Action::Create,
        target: TargetRef {
            kind: TargetKind::Zone,
            name: "example.com".into(),
        },
        resource: Resource::Record {
            name: "www".into(),
            rtype: dnscron_core::dns::RecordType::A,
            record_id: None,
        },
        before: None,
        after: Some(dnscron_core::plan::Value::Record {
            ttl: 300,
            content: "192.0.2.1".into(),
        }),
        status: Status::Ready,
        reason: None,
        declared_at: None,
        next_runs: Vec::new(),
        from_set: None,
    }
}

fn report(result: ApplyResult, outcomes: &[ChangeOutcome]) -> ApplyReport {
    let changes = outcomes
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let mut r = ChangeReport::new(&change(i + 1), 0, "k".into());
            r.outcome = *o;
            r
        })
        .collect::<Vec<_>>();
    ApplyReport {
        plan_id: "p1".into(),
        api_url: "http://127.0.0.1:8080/v1".into(),
        counts: Counts::of(&changes),
        result,
        rounds: 3,
        changes,
        dns_check: None,
        changed_during_apply: Vec::new(),
        read_whole_account: false,
    }
}

#[test]
fn every_result_says_what_happened_and_what_to_do() {
    use ChangeOutcome::*;
    let differs = report(
        ApplyResult::Differs {
            remaining: vec![change(1)],
        },
        &[Done],
    );
    let text = text(&differs);
    assert!(
        text.contains("after 3 round(s) the live account still differs"),
        "{text}"
    );
    assert!(
        text.contains("zone example.com: + www A 192.0.2.1 (ttl 300)"),
        "{text}"
    );

    let interrupted = report(ApplyResult::Interrupted, &[Done, NotAttempted]);
    let text = self::text(&interrupted);
    assert!(
        text.contains("Interrupted: 1 done, 1 not attempted"),
        "{text}"
    );

    let verify = report(
        ApplyResult::VerifyFailed {
            error: ErrorInfo::internal("GET /dns/example.com/records: timed out"),
        },
        &[Done],
    );
    let text = self::text(&verify);
    assert!(
        text.contains("verification could not read the live state"),
        "{text}"
    );
    assert!(text.contains("timed out"), "{text}");

    let json: serde_json::Value = serde_json::from_str(&json(&interrupted, 1)).expect("valid JSON");
    assert_eq!(json["format_version"], 1);
    assert_eq!(json["exit_code"], 1);
    assert_eq!(json["result"], "interrupted");
    assert_eq!(json["counts"]["not_attempted"], 1);
    assert_eq!(json["changes"][1]["outcome"], "not_attempted");
}

#[test]
fn a_refused_switch_names_the_flags_the_core_leaves_out() {
    use dnscron_core::apply::dns::{Problem, Readiness, ServerReadiness, refusal};
    use dnscron_core::dnscheck::ResolveError;
    let readiness = Readiness {
        zone: "example.com".into(),
        servers: vec![
            ServerReadiness {
                host: "ns1.other.net".into(),
                addresses: Vec::new(),
                problems: vec![Problem::Unresolved(ResolveError::NotMapped {
                    host: "ns1.other.net".into(),
                })],
            },
            ServerReadiness {
                host: "ns2.other.net".into(),
                addresses: Vec::new(),
                problems: Vec::new(),
            },
        ],
        queries: 1,
    };
    let mut refused = report(
        ApplyResult::NameserversNotReady {
            change_ids: vec![1],
        },
        &[],
    );
    let mut r = ChangeReport::new(&change(1), 0, "k".into());
    r.outcome = ChangeOutcome::NotReady;
    r.error = Some(refusal(&readiness));
    r.readiness = Some(readiness);
    refused.changes.push(r);
    let unmapped = "nameserver `ns1.other.net` has no --nameserver-address and the system \
                    resolver is turned off; add --nameserver-address ns1.other.net=IP[:PORT]";

    let text = text(&refused);
    assert!(
        text.contains(&format!(
            "  ns1.other.net: {unmapped}\n  ns2.other.net: ready\n"
        )),
        "{text}"
    );
    let json: serde_json::Value = serde_json::from_str(&json(&refused, 1)).expect("valid JSON");
    let error = &json["changes"][0]["error"];
    assert_eq!(
        error["message"],
        "the new nameservers don't serve example.com as the files declare it, so the switch \
         was not sent (resolvers following it would get no answer or other data); load the \
         zone on them, then run apply again, or pass --allow-unready-nameservers to switch \
         anyway"
    );
    assert_eq!(error["details"]["ns1.other.net"][0], unmapped);
    assert_eq!(error["details"]["ns2.other.net"][0], "ready");
    assert_eq!(error["type"], "nameservers_not_ready");
    let keys: Vec<&String> = error
        .as_object()
        .map(|o| o.keys().collect())
        .unwrap_or_default();
    assert_eq!(
        keys,
        ["status", "type", "message", "details", "request_id"],
        "the error's fields in the order ErrorInfo has them"
    );
}

#[test]
fn words_added_to_the_json_keep_their_place() {
    use dnscron_core::apply::dns::{DnsCheck, SkipReason};
    use dnscron_core::apply::{LastRead, Unseen};
    let mut skipped = report(ApplyResult::Converged, &[ChangeOutcome::Done]);
    skipped.dns_check = Some(DnsCheck::Skipped {
        reason: SkipReason::NoRecordWritten,
    });
    let out = json(&skipped, 0);
    assert!(
        out.contains(
            "  \"dns_check\": {\n    \"status\": \"skipped\",\n    \"reason\": \"no record was written\"\n  }\n}\n"
        ),
        "{out}"
    );
    assert!(
        text(&skipped).ends_with("DNS check: skipped, no record was written.\n"),
        "{}",
        text(&skipped)
    );

    let unseen = Unseen {
        change_id: 1,
        round: 0,
        target: change(1).target,
        change: change(1),
        request_id: Some("req_1".into()),
        read: LastRead::StillBefore(Some(dnscron_core::plan::Value::Record {
            ttl: 300,
            content: "192.0.2.9".into(),
        })),
    };
    let not_visible = report(
        ApplyResult::NotVisible {
            unseen: vec![unseen],
            waited_secs: 7.0,
        },
        &[ChangeOutcome::Done],
    );
    let out = json(&not_visible, 1);
    assert!(
        out.contains(
            "      \"request_id\": \"req_1\",\n      \"read\": \"still 192.0.2.9 (ttl 300)\"\n    }\n  ],"
        ),
        "{out}"
    );
    let out = text(&not_visible);
    assert!(
        out.contains("accepted req_1, read again: still 192.0.2.9 (ttl 300)\n"),
        "{out}"
    );
}
