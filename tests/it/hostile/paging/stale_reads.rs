//! Verification behind a read cache (issue 11, item 4): a write that got a fresh 2xx is never
//! sent again; apply re-reads after short waits (tokio's paused clock) and, if the write still
//! does not show, stops with "Not visible yet".

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use dnscron_api::WriteClient;
use dnscron_core::apply::{self, ApplyOptions, ApplyResult, Silent};
use dnscron_core::plan::{self, MakeOptions, PlanStamp};
use tokio::time::Instant;

use super::stand_in::{Paging, StandIn, zone_file, zone_rows};
use crate::client::stub::Stub;

/// Plans the zone file of `h0` … `h{kept-1}` and `new` against the stand-in's zone and
/// applies the plan in-process (tokio's paused clock stands in for the waits).
async fn apply_files(
    stand_in: &Arc<StandIn>,
    kept: usize,
    new: &[(&str, &str)],
) -> (Stub, String, ApplyResult) {
    apply_dir(stand_in, |dir| {
        zone_file(dir, kept, new);
    })
    .await
}

/// Plans the files `write` puts in a folder against the stand-in and applies the plan; the
/// report's text has the stand-in's port masked.
async fn apply_dir(
    stand_in: &Arc<StandIn>,
    write: impl FnOnce(&Path),
) -> (Stub, String, ApplyResult) {
    let state = Arc::clone(stand_in);
    let stub = Stub::start(move |seen| state.answer(seen)).await;
    let dir = tempfile::tempdir().unwrap();
    write(dir.path());
    let desired = dnscron_core::config::load(&[dir.path().to_path_buf()]).unwrap();
    let client = WriteClient::new(stub.config()).unwrap();
    let opts = MakeOptions {
        allow_mass_changes: true,
        stamp: PlanStamp {
            id: format!("{:032x}", 1),
            created_at: "2026-01-02T03:04:05Z".into(),
        },
        ..MakeOptions::default()
    };
    let plan = plan::make_plan(client.read(), &desired, &opts)
        .await
        .unwrap()
        .plan;
    let report = apply::apply(&client, &plan, &ApplyOptions::new(&plan, &Silent)).await;
    let text = crate::common::mask_ports(&dnscron::render::apply::text(&report));
    (stub, text, report.result)
}

const NEW: [(&str, &str); 3] = [("a", "192.0.2.1"), ("b", "192.0.2.2"), ("c", "192.0.2.3")];

/// The methods the server received, in order, but plan's `GET /domains` (registrar findings).
fn methods(stub: &Stub) -> Vec<String> {
    stub.requests()
        .iter()
        .filter(|s| s.path != "/domains")
        .map(|s| s.method.clone())
        .collect()
}

/// Applies the three creates of `NEW` behind a cache that serves GETs for `cache_secs`:
/// whatever verification finds, the server gets one POST per create (never nine) and holds
/// three records. Returns the report as text, the result and the time the apply took.
async fn three_creates_behind_a_cache(cache_secs: u64) -> (String, ApplyResult, Duration) {
    let cache = Some(Duration::from_secs(cache_secs));
    let stand_in = StandIn::start(Vec::new(), Paging::Honest, cache);
    let started = Instant::now();
    let (stub, text, result) = apply_files(&stand_in, 0, &NEW).await;
    assert_eq!(
        methods(&stub),
        ["GET", "POST", "POST", "POST", "GET", "GET", "GET", "GET"]
    );
    assert_eq!(stand_in.records.lock().unwrap().len(), 3);
    (text, result, started.elapsed())
}

/// The report's lines for the three creates.
const THREE_DONE: &str =
    "Apply of plan 00000000000000000000000000000001 to http://127.0.0.1:[PORT]/api/v1:
  done                zone example.com: + a A 192.0.2.1 (ttl 300)
  done                zone example.com: + b A 192.0.2.2 (ttl 300)
  done                zone example.com: + c A 192.0.2.3 (ttl 300)

";

/// Item 4, accepted: behind a cache that serves GETs for 5 s, the three creates stay three
/// POSTs (they used to become nine): verification reads again after 1, 2 and 4 s, and the
/// read after 7 s shows them.
#[tokio::test(start_paused = true)]
async fn behind_a_5s_cache_three_creates_stay_three_posts() {
    let (text, result, took) = three_creates_behind_a_cache(5).await;
    assert!(matches!(result, ApplyResult::Converged), "{text}");
    assert_eq!(took, Duration::from_secs(7));
    assert_eq!(
        text,
        format!(
            "{THREE_DONE}Apply complete, converged: the live account matches the files (3 done).\n3 created, 0 updated, 0 deleted.\n"
        )
    );
}

/// Item 4, refused: when the cache keeps serving the old listing past the waits, apply says the
/// creates are not visible yet and stops (`NotVisible`, exit 1: `cli::error` tests) instead of
/// sending them again.
#[tokio::test(start_paused = true)]
async fn creates_still_unseen_after_the_waits_are_reported_not_sent_again() {
    let (text, result, took) = three_creates_behind_a_cache(60).await;
    assert!(matches!(result, ApplyResult::NotVisible { .. }), "{text}");
    assert_eq!(took, Duration::from_secs(7));
    let expected = format!(
        "{THREE_DONE}Not visible yet: the server accepted 3 change(s) (a fresh 2xx, not a replay), but reading the live state again after waiting 7s still does not show them:
  zone example.com: + a A 192.0.2.1 (ttl 300): accepted req_stub201, read again: not in the listing
  zone example.com: + b A 192.0.2.2 (ttl 300): accepted req_stub201, read again: not in the listing
  zone example.com: + c A 192.0.2.3 (ttl 300): accepted req_stub201, read again: not in the listing
3 done. They were not sent again, which could write them twice: something between dnscron and the API (a cache, a proxy, a lagging replica) may serve stale reads. Run `dnscron plan` in a minute to check.
"
    );
    assert_eq!(text, expected);
}

/// The same for a delete: a record still listed after a fresh 204 is not deleted again.
#[tokio::test(start_paused = true)]
async fn a_delete_still_listed_after_the_waits_is_not_sent_again() {
    let rows = zone_rows(2, &[]);
    let stand_in = StandIn::start(rows, Paging::Honest, Some(Duration::from_secs(60)));
    let (stub, text, result) = apply_files(&stand_in, 1, &[]).await;
    assert!(matches!(result, ApplyResult::NotVisible { .. }), "{text}");
    assert_eq!(
        methods(&stub),
        ["GET", "DELETE", "GET", "GET", "GET", "GET"]
    );
    assert_eq!(stand_in.records.lock().unwrap().len(), 1);
    assert_eq!(
        text,
        "Apply of plan 00000000000000000000000000000001 to http://127.0.0.1:[PORT]/api/v1:
  done                zone example.com: - h1 A 10.0.0.1 (ttl 300)

Not visible yet: the server accepted 1 change(s) (a fresh 2xx, not a replay), but reading the live state again after waiting 7s still does not show them:
  zone example.com: - h1 A 10.0.0.1 (ttl 300): accepted req_stub204, read again: still in the listing
1 done. They were not sent again, which could write them twice: something between dnscron and the API (a cache, a proxy, a lagging replica) may serve stale reads. Run `dnscron plan` in a minute to check.
"
    );
}

/// Four jobs listed; the files keep the first and the last.
const JOBS: [(&str, &str); 4] = [
    ("0 1 * * *", "php a.php"),
    ("0 2 * * *", "php b.php"),
    ("0 3 * * *", "php c.php"),
    ("0 4 * * *", "php d.php"),
];

/// Deletes the middle two of `JOBS` behind a cache serving GETs for `cache_secs`. The server
/// renumbers after a delete, so once `b` (index 1) is gone a stale listing still shows `c` at
/// index 2, where `d`, a job the files keep, now is. Returns the DELETE paths, the jobs left and
/// the report.
async fn two_cron_deletes_behind_a_cache(
    cache_secs: u64,
) -> (Vec<String>, Vec<String>, String, ApplyResult) {
    let cache = Some(Duration::from_secs(cache_secs));
    let stand_in = StandIn::start(Vec::new(), Paging::Honest, cache);
    *stand_in.cron.lock().unwrap() = JOBS
        .iter()
        .map(|(s, c)| (s.to_string(), c.to_string()))
        .collect();
    let (stub, text, result) = apply_dir(&stand_in, |dir| {
        let [a, _, _, d] = JOBS;
        let site = format!(
            "site: shop\ncron:\n  - {{ schedule: \"{}\", command: \"{}\" }}\n  - {{ schedule: \"{}\", command: \"{}\" }}\n",
            a.0, a.1, d.0, d.1
        );
        std::fs::write(dir.join("shop.yaml"), site).unwrap();
    })
    .await;
    let deletes = stub
        .requests()
        .iter()
        .filter(|s| s.method == "DELETE")
        .map(|s| s.path.clone())
        .collect();
    let left = stand_in
        .cron
        .lock()
        .unwrap()
        .iter()
        .map(|(_, command)| command.clone())
        .collect();
    (deletes, left, text, result)
}

/// Accepted: the second delete's listing still shows the first job it deleted; apply reads
/// again after the waits, finds `c` at its real index and deletes it, never `d`.
#[tokio::test(start_paused = true)]
async fn a_cron_delete_waits_for_a_listing_that_has_seen_the_previous_one() {
    let (deletes, left, text, result) = two_cron_deletes_behind_a_cache(5).await;
    assert!(matches!(result, ApplyResult::Converged), "{text}");
    assert_eq!(deletes, ["/sites/shop/cron/1", "/sites/shop/cron/1"]);
    assert_eq!(left, ["php a.php", "php d.php"]);
}

/// Refused: a listing that never catches up is not used to delete by index: apply stops at the
/// second delete with a stale-read error, and `d` is still there.
#[tokio::test(start_paused = true)]
async fn a_cron_listing_that_never_catches_up_deletes_nothing_more() {
    let (deletes, left, text, result) = two_cron_deletes_behind_a_cache(60).await;
    assert!(
        matches!(result, ApplyResult::Failed { change_id: 2, .. }),
        "{text}"
    );
    assert_eq!(deletes, ["/sites/shop/cron/1"]);
    assert_eq!(left, ["php a.php", "php c.php", "php d.php"]);
    assert_eq!(
        text,
        "Apply of plan 00000000000000000000000000000001 to http://127.0.0.1:[PORT]/api/v1:
  done                site shop: - cron \"0 2 * * *\" php b.php
  failed              site shop: - cron \"0 3 * * *\" php c.php

Failed at change 2 (site shop: - cron \"0 3 * * *\" php c.php):
  stale_read: the cron jobs of site shop read before this delete (the last after waiting 7s) were still the list an earlier delete of this run was made from, as if that delete had not happened: a stale read, whose indexes may point at other jobs now; nothing was deleted
1 done, 1 failed. Nothing after change 2 was attempted; fix the cause, then run apply again (completed changes are not repeated).
0 created, 0 updated, 1 deleted.
"
    );
}
