//! `/status.broken_revision` as scripts read it (issue #37, "A broken revision is visible until
//! it is fixed"): the document the loop serves, built from real rounds against the emulator and
//! read back as JSON data.

use std::sync::Arc;

use dnscron::cli::controller::http::Shared;
use dnscron::cli::controller::metrics::Metrics;
use dnscron::cli::controller::status_json::document;
use dnscron_core::controller::{Controller, Trigger};
use serde_json::Value;

use super::Served;
use super::rig::{Rig, zone_file};

const API: &str = "  - {name: api, type: A, content: 192.0.2.7, ttl: 300}\n";

/// One round, then `/status` as served over HTTP with the document that round made.
async fn status_after(controller: &mut Controller, trigger: Trigger) -> Value {
    let (report, _) = controller.round(trigger).await;
    let shared = Arc::new(Shared::new(Metrics::new()));
    shared.set_status(document(&report, controller.status(), "apply", None));
    let served = Served::start(Arc::clone(&shared)).await;
    let body = reqwest::get(served.url("/status"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    served.stop().await.unwrap();
    serde_json::from_str(&body).unwrap()
}

/// Each error as `(the file:line:col's last part, message)`, the file named relative to DIR.
fn errors(status: &Value, rig: &Rig) -> Vec<(String, String)> {
    let prefix = format!("{}/", rig.repo().display());
    status["broken_revision"]["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let at = e["at"].as_str().unwrap();
            let at = at.strip_prefix(&prefix).unwrap_or(at).to_string();
            (at, e["message"].as_str().unwrap().to_string())
        })
        .collect()
}

/// The broken revision's located errors stay in `/status` round after round while it is the
/// newest revision, a newer broken one replaces them with its own, and a fix clears them; the
/// revision in use stays the last good one throughout.
#[tokio::test(start_paused = true)]
async fn status_carries_the_broken_revisions_located_errors_until_a_fix_loads() {
    let rig = Rig::start(&["a.example", "b.example"]).await;
    let mut controller = rig.controller("apply", true);
    let first = status_after(&mut controller, Trigger::Start).await;
    assert_eq!(first["broken_revision"], Value::Null);
    let good = first["revision"].clone();
    rig.write("a.example.yaml", "zone: a.example\nrecords: [\n");
    rig.write(
        "b.example.yaml",
        &zone_file(
            "b.example",
            "  - {name: www, type: CNAME, content: x.example., ttl: 300}\n",
        ),
    );
    let broken = status_after(&mut controller, Trigger::Revision).await;
    let seen = errors(&broken, &rig);
    let b_file = rig.repo().join("b.example.yaml");
    assert_eq!(
        seen,
        [
            (
                "a.example.yaml:2:10".to_string(),
                "invalid YAML: unclosed bracket '['".to_string()
            ),
            (
                "b.example.yaml:4:12".to_string(),
                format!(
                    "CNAME record `www` clashes with the A record at {}:3:5: a CNAME must be the only record at its name",
                    b_file.display()
                )
            ),
        ]
    );
    assert_eq!(broken["revision"], good);
    assert_ne!(broken["broken_revision"]["id"], good["id"]);
    assert_eq!(broken["round"]["outcome"], "converged");
    // Still there rounds later, while it is the newest revision.
    for _ in 0..3 {
        let later = status_after(&mut controller, Trigger::Interval).await;
        assert_eq!(later["broken_revision"], broken["broken_revision"]);
    }
    // A newer broken revision: its own errors, not the previous one's.
    rig.write("b.example.yaml", &zone_file("b.example", ""));
    let newer = status_after(&mut controller, Trigger::Revision).await;
    assert_ne!(
        newer["broken_revision"]["id"],
        broken["broken_revision"]["id"]
    );
    assert_eq!(errors(&newer, &rig), seen[..1]);
    // The fix loads: cleared, and the fixed revision is applied.
    rig.write("a.example.yaml", &zone_file("a.example", API));
    let fixed = status_after(&mut controller, Trigger::Revision).await;
    assert_eq!(fixed["broken_revision"], Value::Null);
    assert_eq!(fixed["round"]["outcome"], "converged");
    assert_eq!(fixed["converged"], fixed["revision"]);
    assert_ne!(fixed["revision"], good);
}

/// A broken first revision: no good revision to go on with, so the round fails and nothing is
/// written, and `/status` names the broken revision and its located errors all the same.
#[tokio::test(start_paused = true)]
async fn a_broken_first_revision_fails_the_round_and_status_locates_its_errors() {
    let rig = Rig::start(&["a.example"]).await;
    rig.write("a.example.yaml", "zone: a.example\nrecords: [\n");
    let mut controller = rig.controller("apply", true);
    let status = status_after(&mut controller, Trigger::Start).await;
    assert_eq!(status["round"]["outcome"], "error", "{status:#}");
    assert_eq!(status["revision"], Value::Null);
    assert_eq!(status["converged"], Value::Null);
    assert_eq!(errors(&status, &rig).len(), 1, "{status:#}");
    assert!(status["broken_revision"]["id"].is_string());
    assert_eq!(rig.writes(), 0);
    rig.write("a.example.yaml", &zone_file("a.example", ""));
    let fixed = status_after(&mut controller, Trigger::Revision).await;
    assert_eq!(fixed["broken_revision"], Value::Null);
    assert_eq!(fixed["round"]["outcome"], "baseline", "{fixed:#}");
}
