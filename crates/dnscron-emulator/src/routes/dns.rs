//! DNS zones and records.

use std::ops::Bound;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::{Extension, Json};
use dnscron_provider::{Endpoint, RecordType};
use serde_json::{Value, json};

use crate::auth::Principal;
use crate::error::{ApiError, ApiResult};
use crate::json_body::list_keys;
use crate::pagination::{PageParams, page};
use crate::render::{self, add_extra, hostnames};
use crate::shared::{Shared, lock};
use crate::state::{State as Account, StoredRecord, ZoneState};
use crate::validate::{RecordInput, record_input};

use super::domains::dnssec_word;

fn zone_key(zone: &str) -> String {
    zone.trim_end_matches('.').to_ascii_lowercase()
}

fn zone_mut<'a>(state: &'a mut Account, zone: &str) -> ApiResult<&'a mut ZoneState> {
    state
        .zones
        .get_mut(&zone_key(zone))
        .ok_or_else(|| ApiError::not_found(format!("no zone `{zone}`; see GET /dns")))
}

pub(crate) async fn list_zones(
    State(shared): State<Arc<Shared>>,
    RawQuery(query): RawQuery,
) -> ApiResult<Json<Value>> {
    let params = PageParams::parse(query.as_deref(), list_keys::ZONES)?;
    let extra = shared.settings().gaps.extra_fields;
    let state = lock(&shared.state);
    let rows = state.zones.iter().map(|(name, zone)| {
        let dnssec = state.domains.get(name).is_some_and(|d| d.dnssec);
        let mut value = json!({ "zone": name, "dnssec": dnssec_word(dnssec) });
        if extra {
            let visible = zone.records.values().filter(|r| !r.hidden).count();
            add_extra(&mut value, json!({ "record_count": visible }));
        }
        (name.clone(), value)
    });
    let (items, meta) = page(rows, &params, list_keys::ZONES)?;
    Ok(Json(json!({ "zones": items, "meta": meta })))
}

pub(crate) async fn list_records(
    State(shared): State<Arc<Shared>>,
    Path(zone): Path<String>,
    RawQuery(query): RawQuery,
) -> ApiResult<Json<Value>> {
    let name = zone_key(&zone);
    let list = format!("records:{name}");
    let params = PageParams::parse(query.as_deref(), &list)?;
    let settings = shared.settings();
    let mut state = lock(&shared.state);
    let zs = zone_mut(&mut state, &zone)?;
    // Start at the cursor's row instead of rendering every earlier row only for `page` to
    // skip it: reading a zone of n records is then O(n), not O(n²/limit).
    let start = params
        .after::<i64>()?
        .map_or(Bound::Unbounded, Bound::Excluded);
    let rows = zs
        .records
        .range((start, Bound::Unbounded))
        .filter(|(_, r)| !r.hidden)
        .map(|(id, r)| (*id, render::record(&settings.gaps, &name, *id, r)));
    let (items, meta) = page(rows, &params, &list)?;
    Ok(Json(json!({
        (list_keys::RECORDS): items,
        "nameservers": hostnames(&settings.gaps, &settings.service_nameservers),
        "meta": meta,
    })))
}

/// Refuses a write that would break a DNS rule the service enforces: a CNAME shares its name
/// with nothing else, and the same record is not stored twice.
fn check_conflicts(zs: &ZoneState, input: &RecordInput, except: Option<i64>) -> ApiResult<()> {
    let same_name = zs
        .records
        .iter()
        .filter(|(id, r)| Some(**id) != except && !r.hidden && r.name == input.name);
    for (id, r) in same_name {
        if input.rtype == RecordType::CNAME || r.api_type() == Some(RecordType::CNAME) {
            return Err(ApiError::invalid(
                "name",
                format!(
                    "`{}` already has a {} record (id {id}); a CNAME cannot share its name with other records, delete that record first",
                    input.name, r.rtype
                ),
            ));
        }
        if r.api_type() == Some(input.rtype)
            && r.content.trim().eq_ignore_ascii_case(&input.content)
        {
            return Err(ApiError::invalid(
                "content",
                format!("the same {} record already exists (id {id})", r.rtype),
            ));
        }
    }
    Ok(())
}

fn stored(input: RecordInput) -> StoredRecord {
    StoredRecord {
        name: input.name,
        rtype: input.rtype.as_str().to_string(),
        ttl: input.ttl,
        content: input.content,
        hidden: false,
    }
}

pub(crate) async fn create_record(
    State(shared): State<Arc<Shared>>,
    Extension(who): Extension<Principal>,
    Path(zone): Path<String>,
    body: Bytes,
) -> ApiResult<(StatusCode, Json<Value>)> {
    who.require(Endpoint::CreateRecord)?;
    let gaps = shared.settings().gaps;
    let name = zone_key(&zone);
    let mut state = lock(&shared.state);
    zone_mut(&mut state, &zone)?;
    let input = record_input(&body, &name)?;
    let id = state.allocate_id();
    let zs = zone_mut(&mut state, &zone)?;
    check_conflicts(zs, &input, None)?;
    let record = stored(input);
    let value = render::record(&gaps, &name, id, &record);
    zs.records.insert(id, record);
    zs.writes = zs.writes.wrapping_add(1);
    shared.dns_written(&name, zs);
    Ok((StatusCode::CREATED, Json(value)))
}

fn record_id(raw: &str) -> ApiResult<i64> {
    raw.parse()
        .map_err(|_| ApiError::invalid("record", format!("`{raw}` is not an integer record id")))
}

/// The record a write may touch: it exists and is not a hidden system/DNSSEC record (those
/// answer 404, as if they did not exist).
fn writable(zs: &ZoneState, zone: &str, id: i64) -> ApiResult<()> {
    match zs.records.get(&id) {
        Some(r) if !r.hidden => Ok(()),
        _ => Err(ApiError::not_found(format!(
            "no record {id} in zone `{zone}`; list the records again"
        ))),
    }
}

pub(crate) async fn update_record(
    State(shared): State<Arc<Shared>>,
    Extension(who): Extension<Principal>,
    Path((zone, record)): Path<(String, String)>,
    body: Bytes,
) -> ApiResult<Json<Value>> {
    who.require(Endpoint::UpdateRecord)?;
    let gaps = shared.settings().gaps;
    let name = zone_key(&zone);
    let id = record_id(&record)?;
    let mut state = lock(&shared.state);
    let zs = zone_mut(&mut state, &zone)?;
    writable(zs, &name, id)?;
    let input = record_input(&body, &name)?;
    check_conflicts(zs, &input, Some(id))?;
    let record = stored(input);
    let value = render::record(&gaps, &name, id, &record);
    zs.records.insert(id, record);
    zs.writes = zs.writes.wrapping_add(1);
    shared.dns_written(&name, zs);
    Ok(Json(value))
}

pub(crate) async fn delete_record(
    State(shared): State<Arc<Shared>>,
    Extension(who): Extension<Principal>,
    Path((zone, record)): Path<(String, String)>,
) -> ApiResult<Json<Value>> {
    who.require(Endpoint::DeleteRecord)?;
    let name = zone_key(&zone);
    let id = record_id(&record)?;
    let mut state = lock(&shared.state);
    let zs = zone_mut(&mut state, &zone)?;
    writable(zs, &name, id)?;
    zs.records.remove(&id);
    zs.writes = zs.writes.wrapping_add(1);
    shared.dns_written(&name, zs);
    Ok(Json(json!({ "result": "deleted", "id": id })))
}
