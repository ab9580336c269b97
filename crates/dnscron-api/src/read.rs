//! The read-only client: every GET the planner needs, with pagination. It has no write
//! methods, so code holding only a `ReadClient` (plan) can't change the account.

use std::fmt;
use std::sync::Arc;

use reqwest::{Method, Url};
use serde::de::DeserializeOwned;
use std::marker::PhantomData;

use serde_json::Value;

use super::config::ApiConfig;
use super::core::{Call, Core, Reply};
use super::decode::{decode, decode_error};
use super::error::ApiError;
use super::pacer::RateHeaders;
use super::page::{Page, PageSeed};
use super::paging::{Batch, PageView, Pager, RowId};
use super::payload::{self, list_keys};
use super::retry::Safety;
use super::rows::RecordRows;
use super::stats::Stats;
use super::untrusted::escape;

/// Page size asked for on every list (the spec's maximum).
pub const PAGE_LIMIT: u32 = dnscron_provider::limits::PAGE_SIZE_MAX;
/// Guard against a server whose pages never end.
const MAX_PAGES: usize = 100_000;

#[derive(Clone)]
pub struct ReadClient {
    // Private to `api`: nothing outside it can send a request but through the methods below.
    pub(super) core: Arc<Core>,
}

/// All records of a zone plus the service's own nameservers that come with the listing.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RecordListing {
    pub records: RecordRows,
    pub nameservers: Vec<String>,
}

impl fmt::Debug for ReadClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReadClient")
            .field("base_url", &self.core.base_url().as_str())
            .finish_non_exhaustive()
    }
}

impl ReadClient {
    /// Checks the URL policy and builds the HTTP client; sends nothing.
    pub fn new(config: ApiConfig) -> Result<ReadClient, ApiError> {
        Ok(ReadClient {
            core: Arc::new(Core::new(config)?),
        })
    }

    pub fn base_url(&self) -> &Url {
        self.core.base_url()
    }

    /// Requests the client's budget (`ApiConfig::budget`) lets through now without waiting;
    /// `None`: it keeps none.
    pub fn budget_room(&self) -> Option<u32> {
        self.core.budget_room()
    }

    /// The client's budget (`ApiConfig::budget`), if it keeps one.
    pub fn budget(&self) -> Option<super::Budget> {
        self.core.budget()
    }

    /// Counters shared by every clone of this client (and its `WriteClient`).
    pub fn stats(&self) -> Stats {
        self.core.stats.clone()
    }

    pub async fn list_sites(&self) -> Result<Vec<payload::Site>, ApiError> {
        Ok(self
            .list("/sites", &["sites"], list_keys::SITES, None)
            .await?
            .0)
    }

    /// One `GET /sites?limit=N` without following the cursor: the cheapest authenticated
    /// request (`doctor` checks the token with it).
    pub async fn sites_page(&self, limit: u32) -> Result<Vec<payload::Site>, ApiError> {
        let query = vec![("limit", limit.to_string())];
        let reply = self.get("/sites", &["sites"], query).await?;
        let key = list_keys::SITES;
        let seed = PageSeed {
            key,
            extra: None,
            marker: PhantomData,
        };
        let page: Page<Vec<payload::Site>> = seed
            .parse(&reply.body)
            .map_err(|e| decode_error::<payload::Site>(&reply, "GET", "/sites", Some(key), &e))?;
        Ok(page.items.unwrap_or_default())
    }

    /// X-RateLimit-Limit / -Remaining of the latest response any clone of this client got.
    pub fn last_rate_headers(&self) -> Option<RateHeaders> {
        self.core.last_rate()
    }

    pub async fn list_cron(&self, slug: &str) -> Result<Vec<payload::CronJob>, ApiError> {
        let segments = ["sites", slug, "cron"];
        Ok(self
            .list("/sites/{slug}/cron", &segments, list_keys::CRON_JOBS, None)
            .await?
            .0)
    }

    pub async fn list_domains(&self) -> Result<Vec<payload::Domain>, ApiError> {
        Ok(self
            .list("/domains", &["domains"], list_keys::DOMAINS, None)
            .await?
            .0)
    }

    pub async fn get_domain(&self, domain: &str) -> Result<payload::Domain, ApiError> {
        self.get_object("/domains/{domain}", &["domains", domain], "domain")
            .await
    }

    pub async fn get_registrar(&self, domain: &str) -> Result<payload::Registrar, ApiError> {
        let segments = ["domains", domain, "registrar"];
        self.get_object("/domains/{domain}/registrar", &segments, "registrar")
            .await
    }

    pub async fn list_zones(&self) -> Result<Vec<payload::Zone>, ApiError> {
        Ok(self.list("/dns", &["dns"], list_keys::ZONES, None).await?.0)
    }

    /// Every page of a zone's records. A 404 means the account has no such zone.
    pub async fn list_records(&self, zone: &str) -> Result<RecordListing, ApiError> {
        let segments = ["dns", zone, "records"];
        let (records, nameservers) = self
            .list(
                "/dns/{zone}/records",
                &segments,
                list_keys::RECORDS,
                Some("nameservers"),
            )
            .await?;
        Ok(RecordListing {
            records,
            nameservers: nameservers.map(|v| host_list(&v)).unwrap_or_default(),
        })
    }

    /// The machine-readable description served at `{base_url}/openapi.json`.
    pub async fn openapi(&self) -> Result<Value, ApiError> {
        let reply = self
            .get("/openapi.json", &["openapi.json"], Vec::new())
            .await?;
        decode(&reply, "GET", "/openapi.json")
    }

    async fn get(
        &self,
        route: &'static str,
        segments: &[&str],
        query: Vec<(&'static str, String)>,
    ) -> Result<Reply, ApiError> {
        self.core
            .send(Call {
                method: Method::GET,
                route,
                segments,
                query,
                body: None,
                key: None,
                safety: Safety::Read,
            })
            .await
    }

    /// A single object, accepted bare or wrapped under `wrapper` (`{"domain": {...}}`).
    async fn get_object<T: DeserializeOwned>(
        &self,
        route: &'static str,
        segments: &[&str],
        wrapper: &str,
    ) -> Result<T, ApiError> {
        let path = format!("/{}", segments.join("/"));
        let reply = self.get(route, segments, Vec::new()).await?;
        let mut value: Value = decode(&reply, "GET", &path)?;
        if let Some(inner) = value.get_mut(wrapper).filter(|v| v.is_object()) {
            value = inner.take();
        }
        serde_path_to_error::deserialize(&value).map_err(|e| ApiError::Decode {
            method: "GET".into(),
            path: path.clone(),
            status: reply.status,
            message: escape(&format!("field `{}`: {}", e.path(), e.inner())).into_owned(),
            request_id: reply.request_id.clone(),
        })
    }

    /// Follows `next_cursor` with `limit=100` until `has_more` is false. Returns the items under
    /// `key` from every page and the first value of `extra` seen on any page. Every page goes
    /// through the `Pager`'s checks, so a listing planned on is one list of distinct rows.
    async fn list<T: DeserializeOwned + RowId, R: Rows<T>>(
        &self,
        route: &'static str,
        segments: &[&str],
        key: &str,
        extra: Option<&str>,
    ) -> Result<(R, Option<Value>), ApiError> {
        let path = format!("/{}", segments.join("/"));
        let fault = |fault| ApiError::Pagination {
            path: path.clone(),
            fault,
        };
        let mut items = R::default();
        let mut extra_value = None;
        let mut cursor: Option<String> = None;
        let mut pager = Pager::default();
        for _ in 0..MAX_PAGES {
            let mut query = vec![("limit", PAGE_LIMIT.to_string())];
            if let Some(c) = &cursor {
                query.push(("cursor", c.clone()));
            }
            let reply = self.get(route, segments, query).await?;
            self.core.stats.page();
            let page = self.parse_page::<T, R::Batch>(&reply, &path, key, extra)?;
            let batch = page.items.unwrap_or_default();
            let has_more = page.meta.as_ref().is_some_and(|m| m.has_more);
            let view = PageView {
                rows: &batch,
                has_meta: page.meta.is_some(),
                has_more,
                request_id: reply.request_id.as_deref(),
            };
            pager.check(&view, PAGE_LIMIT as usize).map_err(fault)?;
            items
                .append(batch)
                .map_err(|max| fault(pager.too_large(max)))?;
            if extra_value.is_none() {
                extra_value = page.extra;
            }
            if !has_more {
                return Ok((items, extra_value));
            }
            let next = page.meta.and_then(|m| m.next_cursor);
            cursor = Some(pager.next_cursor(next).map_err(fault)?);
        }
        Err(fault(pager.too_many_pages(MAX_PAGES)))
    }

    /// One page, refused when it has no array under `key`.
    fn parse_page<T: DeserializeOwned, B: DeserializeOwned>(
        &self,
        reply: &Reply,
        path: &str,
        key: &str,
        extra: Option<&str>,
    ) -> Result<Page<B>, ApiError> {
        let seed = PageSeed {
            key,
            extra,
            marker: PhantomData,
        };
        let page: Page<B> = seed
            .parse(&reply.body)
            .map_err(|e| decode_error::<T>(reply, "GET", path, Some(key), &e))?;
        if page.items.is_none() {
            return Err(ApiError::Decode {
                method: "GET".into(),
                path: path.into(),
                status: reply.status,
                message: format!("the page has no `{key}` array"),
                request_id: reply.request_id.clone(),
            });
        }
        Ok(page)
    }
}

/// Where a listing's pages go, and what one page's array is read into: a `Vec`, or the compact
/// rows of a zone's records.
trait Rows<T>: Default {
    type Batch: DeserializeOwned + Default + Batch<Row = T>;
    /// Refused with the byte limit the rows would pass.
    fn append(&mut self, batch: Self::Batch) -> Result<(), u64>;
}

impl<T: DeserializeOwned + RowId> Rows<T> for Vec<T> {
    type Batch = Vec<T>;
    fn append(&mut self, batch: Vec<T>) -> Result<(), u64> {
        self.extend(batch);
        Ok(())
    }
}

impl Rows<payload::Record> for RecordRows {
    type Batch = RecordRows;
    fn append(&mut self, batch: RecordRows) -> Result<(), u64> {
        RecordRows::append(self, batch).map_err(|e| e.max)
    }
}

/// Nameservers as strings, or as objects naming the host (`name`, `host`, `hostname`).
fn host_list(value: &Value) -> Vec<String> {
    let Some(list) = value.as_array() else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|item| match item {
            Value::String(s) => Some(s.clone()),
            Value::Object(map) => ["name", "host", "hostname", "nameserver"]
                .iter()
                .find_map(|k| map.get(*k).and_then(Value::as_str))
                .map(str::to_string),
            Value::Null | Value::Bool(_) | Value::Number(_) | Value::Array(_) => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_lists_in_every_shape() {
        let v = serde_json::json!(["ns1.x.net.", {"name": "ns2.x.net"}, {"host": "NS3.x.net"}, 7]);
        assert_eq!(host_list(&v), ["ns1.x.net.", "ns2.x.net", "NS3.x.net"]);
        assert!(host_list(&serde_json::json!("ns1")).is_empty());
    }
}
