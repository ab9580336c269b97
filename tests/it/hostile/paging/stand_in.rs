//! A stand-in account for the paging tests: one zone (and one site's cron jobs) on the
//! scripted stub server, paged honestly or not, with GETs optionally served from a cache (a
//! caching proxy in front of the API).

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

use crate::client::stub::{Reply, Seen, Stub};

pub const ZONE: &str = "example.com";
pub const RECORDS: &str = "/dns/example.com/records";
/// The one site, with cron jobs indexed from 0 and renumbered after a delete.
pub const CRON: &str = "/sites/shop/cron";

/// How the stand-in pages a listing (cursors are offsets, `o100`, like an offset-paginated
/// server's).
#[derive(Clone, Copy)]
pub enum Paging {
    Honest,
    /// Each next page starts one row early: a row inserted before the cursor under concurrent
    /// writes shifts the last row of a page onto the next.
    ShiftedByOne,
    /// The same first 100 rows on every page, each time with a fresh cursor.
    SameRowsForever,
    /// Honest rows, but never a `meta`.
    NoMeta,
    /// Honest rows, but every page after the first gives back the first page's cursor.
    CursorComesBack,
    /// Honest rows, but `has_more` without a `next_cursor`.
    NoCursor,
}

pub struct StandIn {
    pub records: Mutex<Vec<Value>>,
    /// The site's cron jobs as (schedule, command).
    pub cron: Mutex<Vec<(String, String)>>,
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
pub fn zone_rows(n: usize, extra: &[(&str, &str, &str)]) -> Vec<Value> {
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
    pub fn start(rows: Vec<Value>, paging: Paging, cache_for: Option<Duration>) -> Arc<StandIn> {
        Arc::new(StandIn {
            next_id: Mutex::new(rows.len() as i64 + 1),
            records: Mutex::new(rows),
            cron: Mutex::new(Vec::new()),
            paging,
            cache_for,
            cache: Mutex::new(HashMap::new()),
        })
    }

    pub fn answer(&self, seen: &Seen) -> Reply {
        match (seen.method.as_str(), seen.path.as_str()) {
            ("GET", RECORDS) => self.cached(seen, || self.page(seen)),
            ("GET", "/sites") => Reply::ok(json!({"sites": [{"slug": "shop", "state": "active"}]})),
            // The zone is not a registered domain: plan's registrar findings read nothing more.
            ("GET", "/domains") => Reply::ok(json!({"domains": []})),
            ("GET", CRON) => self.cached(seen, || self.cron_page()),
            ("DELETE", path) if path.starts_with(CRON) => {
                let index: usize = path.rsplit('/').next().unwrap().parse().unwrap();
                let mut jobs = self.cron.lock().unwrap();
                if index >= jobs.len() {
                    return Reply::error(404, "not_found", "no such cron job");
                }
                jobs.remove(index);
                Reply::ok(json!({"removed": index}))
            }
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

    /// A GET answered from the cache while its entry is younger than `cache_for`.
    fn cached(&self, seen: &Seen, fresh: impl FnOnce() -> Value) -> Reply {
        let now = Instant::now();
        let key = format!("{}?{}", seen.path, seen.query);
        let mut cache = self.cache.lock().unwrap();
        let body = match (self.cache_for, cache.get(&key)) {
            (Some(ttl), Some((at, body))) if now.duration_since(*at) < ttl => body.clone(),
            _ => {
                let body = fresh().to_string();
                cache.insert(key, (now, body.clone()));
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

    fn cron_page(&self) -> Value {
        let jobs: Vec<Value> = (self.cron.lock().unwrap().iter().enumerate())
            .map(|(index, (schedule, command))| {
                json!({"index": index, "schedule": schedule, "command": command})
            })
            .collect();
        json!({"cron_jobs": jobs, "meta": {"has_more": false}})
    }

    fn page(&self, seen: &Seen) -> Value {
        let rows = self.records.lock().unwrap();
        let offset = seen
            .query_param("cursor")
            .and_then(|c| c.strip_prefix('o').map(|o| o.parse::<usize>().unwrap()))
            .unwrap_or(0);
        let (start, next_cursor) = match self.paging {
            Paging::SameRowsForever => (0, format!("c{}", seen.nth)),
            Paging::ShiftedByOne => (offset, format!("o{}", offset + 99)),
            Paging::Honest | Paging::NoMeta | Paging::NoCursor => {
                (offset, format!("o{}", offset + 100))
            }
            Paging::CursorComesBack => (offset, "o100".to_string()),
        };
        let end = (start + 100).min(rows.len());
        let has_more = matches!(
            self.paging,
            Paging::SameRowsForever | Paging::CursorComesBack
        ) || end < rows.len();
        let mut page = json!({"records": rows[start..end], "nameservers": ["ns1.veldhost.net."]});
        if !matches!(self.paging, Paging::NoMeta) {
            let next = has_more && !matches!(self.paging, Paging::NoCursor);
            page["meta"] =
                json!({"next_cursor": next.then_some(next_cursor), "has_more": has_more});
        }
        page
    }
}

/// The stand-in served on 127.0.0.1 by a runtime of its own, for tests that run the binary.
pub fn serve(stand_in: &Arc<StandIn>) -> (tokio::runtime::Runtime, Stub) {
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
pub fn zone_file(dir: &Path, n: usize, more: &[(&str, &str)]) -> String {
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
