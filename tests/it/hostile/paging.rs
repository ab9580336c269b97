//! Listings and verification against servers that page badly or serve stale reads (issue 11,
//! items 3, 4 and 6): a stand-in zone on the scripted stub server, paged honestly or not, with
//! GETs optionally served from a cache. Each case asserts what the user sees and what the
//! server received: a listing that is not one list of distinct rows is never planned on (no
//! write after a bad read), and verification never sends a write twice.

mod stale_reads;
pub(crate) mod stand_in;

use std::sync::Arc;

use dnscron_api::{ApiError, PageFault, ReadClient};
use serde_json::{Value, json};

use crate::client::stub::{Reply, Stub};
use crate::common::Test;
use stand_in::{Paging, RECORDS, StandIn, ZONE, serve, zone_file, zone_rows};

/// What one run of the binary against the stand-in gave.
struct Run {
    /// Exit status, stdout and stderr (`Test::snapshot`).
    output: String,
    /// `(method, query)` of every request the server received, in order, but plan's one
    /// `GET /domains` (registrar findings), which goes alongside the zone's first page.
    received: Vec<(String, String)>,
    /// Records the zone holds afterwards.
    records_after: usize,
}

/// Runs `dnscron <command> FILE` (`apply` runs with `--yes`) against a stand-in zone of `rows`
/// paged as `paging`, FILE declaring `h0` … `h{declared-1}` exactly as listed.
fn run(rows: Vec<Value>, declared: usize, paging: Paging, command: &str) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let file = zone_file(dir.path(), declared, &[]);
    let stand_in = StandIn::start(rows, paging, None);
    let (_rt, stub) = serve(&stand_in);
    let mut args = vec![command, file.as_str()];
    if command == "apply" {
        args.push("--yes");
    }
    let output = Test::new()
        .api(&stub.base_url, "tok_paging")
        .plan_stamp()
        .args(&args)
        .snapshot();
    let received = stub
        .requests()
        .iter()
        .filter(|s| s.path != "/domains")
        .map(|s| (s.method.clone(), s.query.clone()))
        .collect();
    let records_after = stand_in.records.lock().unwrap().len();
    Run {
        output,
        received,
        records_after,
    }
}

fn gets(queries: &[&str]) -> Vec<(String, String)> {
    queries
        .iter()
        .map(|q| ("GET".to_string(), q.to_string()))
        .collect()
}

/// The whole output, run-to-run differences masked (`common::filters`).
macro_rules! assert_output {
    ($run:expr) => {
        insta::with_settings!({ filters => crate::common::filters() }, {
            insta::assert_snapshot!($run.output);
        })
    };
}

/// Item 3, accepted: 150 records over two honest pages, declared as they are, plus records of
/// types dnscron does not manage, which are left alone and said so.
#[test]
fn an_honest_listing_of_150_records_plans_nothing() {
    let extra = [
        ("@", "HTTPS", "1 . alpn=h2"),
        ("host", "SSHFP", "4 2 abcd"),
        ("@", "SOA", "ns1. host. 1 2 3 4 5"),
    ];
    let run = run(zone_rows(150, &extra), 150, Paging::Honest, "apply");
    assert_output!(run);
    assert_eq!(run.received, gets(&["limit=100", "limit=100&cursor=o100"]));
}

/// Item 3, refused: page 2 repeats the last row of page 1. Planned on, the repeat made an
/// unchanged account plan deletes; now nothing is planned and nothing is written.
#[test]
fn a_row_repeated_across_pages_is_refused_before_any_write() {
    let run = run(zone_rows(150, &[]), 150, Paging::ShiftedByOne, "apply");
    assert_output!(run);
    assert_eq!(run.received, gets(&["limit=100", "limit=100&cursor=o99"]));
    assert_eq!(run.records_after, 150);
}

/// Item 6: fresh cursors forever with the same rows stop at page 2, not after 100,000 pages.
#[test]
fn fresh_cursors_with_the_same_rows_stop_after_two_pages() {
    let run = run(zone_rows(150, &[]), 150, Paging::SameRowsForever, "plan");
    assert_output!(run);
    assert_eq!(run.received, gets(&["limit=100", "limit=100&cursor=c1"]));
}

/// Item 4, refused: a full page (100 rows) without `meta` is not taken as the end: the 150
/// record zone is refused before any write (it used to plan 50 creates, then repair its way
/// from 150 to 300 records).
#[test]
fn a_full_page_without_meta_is_refused_before_any_write() {
    let run = run(zone_rows(150, &[]), 150, Paging::NoMeta, "apply");
    assert_output!(run);
    assert_eq!(run.received, gets(&["limit=100"]));
    assert_eq!(run.records_after, 150);
}

/// Issue 22: a cursor that comes back is refused before any write, the error quoting the
/// request id of the page that gave it again.
#[test]
fn a_cursor_that_comes_back_is_refused_with_its_request_id() {
    let run = run(zone_rows(150, &[]), 150, Paging::CursorComesBack, "apply");
    assert_output!(run);
    assert_eq!(run.received, gets(&["limit=100", "limit=100&cursor=o100"]));
    assert_eq!(run.records_after, 150);
}

/// Issue 22: `has_more` without a cursor is refused before any write, the error quoting the
/// request id of that page.
#[test]
fn has_more_without_a_cursor_is_refused_with_its_request_id() {
    let run = run(zone_rows(150, &[]), 150, Paging::NoCursor, "apply");
    assert_output!(run);
    assert_eq!(run.received, gets(&["limit=100"]));
    assert_eq!(run.records_after, 150);
}

/// Item 4, accepted: a page with fewer rows than asked for and no `meta` is the whole listing
/// (meta is an additive field a server may lack).
#[test]
fn a_short_page_without_meta_is_the_whole_listing() {
    let run = run(zone_rows(99, &[]), 99, Paging::NoMeta, "plan");
    assert_output!(run);
    assert_eq!(run.received, gets(&["limit=100"]));
}

/// Repeats are found in every listing, named by what identifies a row there.
#[tokio::test(start_paused = true)]
async fn repeats_are_named_by_cron_index_and_by_name() {
    let stub = Stub::start(|seen| match (seen.path.as_str(), seen.nth) {
        ("/sites/shop/cron", _) => Reply::ok(json!({"cron_jobs": [
            {"index": 0, "schedule": "* * * * *", "command": "php a"},
            {"index": 0, "schedule": "5 * * * *", "command": "php b"}]})),
        ("/sites", 1) => Reply::ok(json!({"sites": [{"slug": "shop"}, {"slug": "blog"}],
            "meta": {"next_cursor": "n", "has_more": true}})),
        ("/sites", _) => Reply::ok(json!({"sites": [{"slug": "SHOP"}, {"slug": "wiki"}],
            "meta": {"has_more": false}})),
        _ => Reply::error(404, "not_found", "no endpoint"),
    })
    .await;
    let client = ReadClient::new(stub.config()).unwrap();
    let cron = client.list_cron("shop").await.unwrap_err().to_string();
    let sites = client.list_sites().await.unwrap_err().to_string();
    assert_eq!(
        [cron, sites],
        [
            "GET /sites/shop/cron: page 1 repeats cron job index 0, already listed on page 1 (request_id req_stub200): the listing shifted while it was read (rows moved between pages under concurrent writes), so it is not planned on; run again, and report it to the API provider if it persists",
            "GET /sites: page 2 repeats site shop, already listed on page 1 (request_id req_stub200): the listing shifted while it was read (rows moved between pages under concurrent writes), so it is not planned on; run again, and report it to the API provider if it persists",
        ]
    );
}

/// The library error carries the fault as data.
#[tokio::test(start_paused = true)]
async fn the_fault_is_data_for_callers() {
    let stand_in = StandIn::start(zone_rows(150, &[]), Paging::SameRowsForever, None);
    let state = Arc::clone(&stand_in);
    let stub = Stub::start(move |seen| state.answer(seen)).await;
    let client = ReadClient::new(stub.config()).unwrap();
    let err = client.list_records(ZONE).await.unwrap_err();
    let ApiError::Pagination { path, fault } = err else {
        panic!("{err}")
    };
    assert_eq!(path, RECORDS);
    assert_eq!(
        fault,
        PageFault::NoNewRows {
            page: 2,
            rows: 100,
            request_id: Some("req_page2".into()),
        }
    );
}

/// Item 6: an empty page that still promises more is the end of what the server can give.
#[tokio::test(start_paused = true)]
async fn an_empty_page_that_promises_more_is_refused() {
    let stub = Stub::start(|seen| {
        Reply::ok(json!({"zones": [], "meta": {"next_cursor": format!("c{}", seen.nth), "has_more": true}}))
    })
    .await;
    let client = ReadClient::new(stub.config()).unwrap();
    let err = client.list_zones().await.unwrap_err().to_string();
    assert_eq!(
        err,
        "GET /dns: page 1 has no rows yet says has_more (request_id req_stub200): the pagination does not advance, so listing stopped at page 1; report this to the API provider"
    );
    assert_eq!(stub.requests().len(), 1);
}
