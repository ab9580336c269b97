//! Listings and verification against servers that page badly or serve stale reads (issue 11,
//! items 3, 4 and 6): a stand-in zone on the scripted stub server, paged honestly or not, with
//! GETs optionally served from a cache. Each case asserts what the user sees and what the
//! server received: a listing that is not one list of distinct rows is never planned on (no
//! write after a bad read), and verification never sends a write twice.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dnscron::api::{ApiError, PageFault, ReadClient, WriteClient};
use dnscron::apply::{self, ApplyOptions, ApplyResult, Silent};
use dnscron::plan::{self, MakeOptions, PlanStamp};
use serde_json::{Value, json};
use tokio::time::Instant;

use crate::client::stub::{Reply, Seen, Stub};
use crate::common::Test;

const ZONE: &str = "example.com";
const RECORDS: &str = "/dns/example.com/records";

/// How the stand-in pages a listing (cursors are offsets, `o100`, like an offset-paginated
/// server's).
#[derive(Clone, Copy)]
enum Paging {
    Honest,
    /// Each next page starts one row early: a row inserted before the cursor under concurrent
    /// writes shifts the last row of a page onto the next.
    ShiftedByOne,
    /// The same first 100 rows on every page, each time with a fresh cursor.
    SameRowsForever,
    /// Honest rows, but never a `meta`.
    NoMeta,
}

struct StandIn {
    records: Mutex<Vec<Value>>,
    next_id: Mutex<i64>,
    paging: Paging,
    /// GETs answered from a cache this long (a caching proxy in front of the API).
    cache_for: Option<Duration>,
    cache: Mutex<HashMap<String, (Instant, String)>>,
}

fn record(id: i64, name: &str, rtype: &str, content: &str) -> Value {
    json!({"id": id, "name": name, "type": rtype, "ttl": 300, "content": content})
}

/// `n` A records `h0` … with ids 1 …, and the zone's extra records.
fn zone_rows(n: usize, extra: &[(&str, &str, &str)]) -> Vec<Value> {
    let mut rows: Vec<Value> = (0..n)
        .map(|i| record(i as i64 + 1, &format!("h{i}"), "A", &address(i)))
        .collect();
    for (name, rtype, content) in extra {
        rows.push(record(rows.len() as i64 + 1, name, rtype, content));
    }
    rows
}

fn address(i: usize) -> String {
    format!("10.0.{}.{}", i / 256, i % 256)
}

impl StandIn {
    fn start(rows: Vec<Value>, paging: Paging, cache_for: Option<Duration>) -> Arc<StandIn> {
        Arc::new(StandIn {
            next_id: Mutex::new(rows.len() as i64 + 1),
            records: Mutex::new(rows),
            paging,
            cache_for,
            cache: Mutex::new(HashMap::new()),
        })
    }

    fn answer(&self, seen: &Seen) -> Reply {
        match (seen.method.as_str(), seen.path.as_str()) {
            ("GET", RECORDS) => self.cached_page(seen),
            ("POST", RECORDS) => {
                let body: Value = serde_json::from_str(&seen.body).unwrap();
                let mut id = self.next_id.lock().unwrap();
                let row = record(
                    *id,
                    body["name"].as_str().unwrap(),
                    body["type"].as_str().unwrap(),
                    body["content"].as_str().unwrap(),
                );
                *id += 1;
                self.records.lock().unwrap().push(row.clone());
                Reply::json(201, json!({ "record": row }))
            }
            ("DELETE", path) if path.starts_with(RECORDS) => {
                let id: i64 = path.rsplit('/').next().unwrap().parse().unwrap();
                self.records.lock().unwrap().retain(|r| r["id"] != id);
                Reply::json(204, Value::Null)
            }
            _ => Reply::error(404, "not_found", "no endpoint"),
        }
    }

    fn cached_page(&self, seen: &Seen) -> Reply {
        let now = Instant::now();
        let mut cache = self.cache.lock().unwrap();
        let body = match (self.cache_for, cache.get(&seen.query)) {
            (Some(ttl), Some((at, body))) if now.duration_since(*at) < ttl => body.clone(),
            _ => {
                let body = self.page(seen).to_string();
                cache.insert(seen.query.clone(), (now, body.clone()));
                body
            }
        };
        Reply {
            status: 200,
            headers: vec![("x-request-id", format!("req_page{}", seen.nth))],
            body,
            delay: None,
        }
    }

    fn page(&self, seen: &Seen) -> Value {
        let rows = self.records.lock().unwrap();
        let offset = seen
            .query_param("cursor")
            .and_then(|c| c.strip_prefix('o').map(|o| o.parse::<usize>().unwrap()))
            .unwrap_or(0);
        let (start, next) = match self.paging {
            Paging::SameRowsForever => (0, format!("c{}", seen.nth)),
            Paging::ShiftedByOne => (offset, format!("o{}", offset + 99)),
            Paging::Honest | Paging::NoMeta => (offset, format!("o{}", offset + 100)),
        };
        let end = (start + 100).min(rows.len());
        let has_more = matches!(self.paging, Paging::SameRowsForever) || end < rows.len();
        let mut page = json!({"records": rows[start..end], "nameservers": ["ns1.veldhost.net."]});
        if !matches!(self.paging, Paging::NoMeta) {
            page["meta"] = json!({"next_cursor": has_more.then_some(next), "has_more": has_more});
        }
        page
    }
}

/// The stand-in served on 127.0.0.1 by a runtime of its own, for tests that run the binary.
fn serve(stand_in: &Arc<StandIn>) -> (tokio::runtime::Runtime, Stub) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let state = Arc::clone(stand_in);
    let stub = rt.block_on(Stub::start(move |seen| state.answer(seen)));
    (rt, stub)
}

/// A zone file declaring `h0` … `h{n-1}` exactly as `zone_rows(n, ..)` lists them, plus `more`.
fn zone_file(dir: &Path, n: usize, more: &[(&str, &str)]) -> String {
    let mut text = format!("zone: {ZONE}\ndefaults:\n  ttl: 300\nrecords:\n");
    for i in 0..n {
        text.push_str(&format!(
            "  - {{ name: h{i}, type: A, content: {} }}\n",
            address(i)
        ));
    }
    for (name, content) in more {
        text.push_str(&format!(
            "  - {{ name: {name}, type: A, content: {content} }}\n"
        ));
    }
    let path = dir.join(format!("{ZONE}.yaml"));
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// What one run of the binary against the stand-in gave.
struct Run {
    /// Exit status, stdout and stderr (`Test::snapshot`).
    output: String,
    /// `(method, query)` of every request the server received, in order.
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

/// Plans the zone file of `h0` … `h{kept-1}` and `new` against the stand-in's zone and
/// applies the plan in-process (tokio's paused clock stands in for the waits).
async fn apply_files(
    stand_in: &Arc<StandIn>,
    kept: usize,
    new: &[(&str, &str)],
) -> (Stub, String, ApplyResult) {
    let state = Arc::clone(stand_in);
    let stub = Stub::start(move |seen| state.answer(seen)).await;
    let dir = tempfile::tempdir().unwrap();
    zone_file(dir.path(), kept, new);
    let desired = dnscron::config::load(&[dir.path().to_path_buf()]).unwrap();
    let client = WriteClient::new(stub.config()).unwrap();
    let opts = MakeOptions {
        allow_mass_changes: true,
        stamp: PlanStamp {
            id: format!("{:032x}", 1),
            created_at: "2026-01-02T03:04:05Z".into(),
        },
    };
    let plan = plan::make_plan(client.read(), &desired, &opts)
        .await
        .unwrap()
        .plan;
    let report = apply::apply(&client, &plan, &ApplyOptions::new(&plan, &Silent)).await;
    (stub, apply::report::text(&report), report.result)
}

const NEW: [(&str, &str); 3] = [("a", "192.0.2.1"), ("b", "192.0.2.2"), ("c", "192.0.2.3")];

fn methods(stub: &Stub) -> Vec<String> {
    stub.requests().iter().map(|s| s.method.clone()).collect()
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
const THREE_DONE: &str = "Apply of plan 00000000000000000000000000000001:
  done                zone example.com: + a A 192.0.2.1 (ttl 300)  req_stub201
  done                zone example.com: + b A 192.0.2.2 (ttl 300)  req_stub201
  done                zone example.com: + c A 192.0.2.3 (ttl 300)  req_stub201

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
            "{THREE_DONE}Apply complete, converged: the live account matches the files (3 done).\n"
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
        "Apply of plan 00000000000000000000000000000001:
  done                zone example.com: - h1 A 10.0.0.1 (ttl 300)  req_stub204

Not visible yet: the server accepted 1 change(s) (a fresh 2xx, not a replay), but reading the live state again after waiting 7s still does not show them:
  zone example.com: - h1 A 10.0.0.1 (ttl 300): accepted req_stub204, read again: still in the listing
1 done. They were not sent again, which could write them twice: something between dnscron and the API (a cache, a proxy, a lagging replica) may serve stale reads. Run `dnscron plan` in a minute to check.
"
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
