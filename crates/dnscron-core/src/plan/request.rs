//! The one place a planned change becomes an HTTP request: method, route, path and JSON body.
//! The executor sends exactly this, and the idempotency key hashes its method and body, so
//! what a plan file says and what apply sends cannot drift apart.

use reqwest::Method;
use serde_json::Value as Json;

use crate::dns;
use dnscron_api::{WriteRequest, payload};

use super::model::{Action, Change, PlanOptions, Resource, Value};

/// A change that names no request the API has (a hand-edited or corrupted plan file).
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
pub enum RequestError {
    #[error("change {id} ({action} of {what}) lacks the {missing} its request needs")]
    Missing {
        id: usize,
        action: &'static str,
        what: &'static str,
        missing: &'static str,
    },
    #[error("change {id} asks to {action} {what}, which the API has no request for")]
    NoSuchRequest {
        id: usize,
        action: &'static str,
        what: &'static str,
    },
    #[error("change {id} sets nameserver mode `{mode}`; a plan knows only `hosted` and `custom`")]
    UnknownMode { id: usize, mode: String },
}

/// The request for `change`. A cron delete goes to the index the job has *now* (apply re-lists
/// right before, since indexes move), so the caller passes it; other changes ignore it.
pub fn derive(
    change: &Change,
    options: &PlanOptions,
    cron_index: Option<i64>,
) -> Result<WriteRequest, RequestError> {
    let (method, body) = method_and_body(change, options)?;
    let index = cron_index.map(|i| i.to_string());
    let (route, segments) = route(change, index)?;
    Ok(WriteRequest {
        method,
        route,
        segments,
        body,
    })
}

/// What a cron delete's path shows in place of the index, known only when apply sends it.
pub(crate) const CRON_INDEX_PLACEHOLDER: &str = "{index}";

/// The request as a plan shows it to its readers (the plan file's `request`): [`derive()`]'s,
/// with [`CRON_INDEX_PLACEHOLDER`] for a cron delete's index.
pub(crate) fn preview(
    change: &Change,
    options: &PlanOptions,
) -> Result<WriteRequest, RequestError> {
    let (method, body) = method_and_body(change, options)?;
    let (route, segments) = route(change, Some(CRON_INDEX_PLACEHOLDER.to_string()))?;
    Ok(WriteRequest {
        method,
        route,
        segments,
        body,
    })
}

/// The method and body alone: all the idempotency key needs, and known at plan time.
pub(crate) fn method_and_body(
    change: &Change,
    options: &PlanOptions,
) -> Result<(Method, Option<Json>), RequestError> {
    let method = match (&change.resource, change.action) {
        (Resource::Record { .. } | Resource::CronJob { .. }, Action::Create) => Method::POST,
        (Resource::Record { .. } | Resource::Nameservers, Action::Update) => Method::PUT,
        (Resource::Record { .. } | Resource::CronJob { .. }, Action::Delete) => Method::DELETE,
        (Resource::Nameservers, Action::Create | Action::Delete)
        | (Resource::CronJob { .. }, Action::Update) => return Err(no_such_request(change)),
    };
    let body = match change.action {
        Action::Delete => None,
        Action::Create | Action::Update => Some(body(change, options)?),
    };
    Ok((method, body))
}

fn body(change: &Change, options: &PlanOptions) -> Result<Json, RequestError> {
    let json = match (&change.resource, &change.after) {
        (Resource::Record { name, rtype, .. }, Some(Value::Record { ttl, content })) => {
            serde_json::json!(payload::RecordWrite {
                name: name.clone(),
                rtype: rtype.as_str().to_string(),
                ttl: *ttl,
                // The form that reads back to the same canonical content (e.g. TXT unquoted,
                // the server chunks it), rather than however the user happened to write it.
                content: dns::wire_content(*rtype, content),
            })
        }
        (Resource::CronJob { .. }, Some(Value::CronJob { schedule, command })) => {
            serde_json::json!(payload::CronJobWrite {
                schedule: schedule.clone(),
                command: command.clone(),
            })
        }
        (Resource::Nameservers, Some(Value::Nameservers { mode, nameservers })) => {
            let write = match mode.as_str() {
                "hosted" => payload::NameserversWrite {
                    mode: options.hosted_mode_wire_value.clone(),
                    nameservers: Vec::new(),
                },
                "custom" => payload::NameserversWrite {
                    mode: "custom".into(),
                    nameservers: nameservers.clone(),
                },
                other => {
                    return Err(RequestError::UnknownMode {
                        id: change.id,
                        mode: other.to_string(),
                    });
                }
            };
            serde_json::json!(write)
        }
        (
            Resource::Record { .. } | Resource::CronJob { .. } | Resource::Nameservers,
            None | Some(Value::Record { .. } | Value::CronJob { .. } | Value::Nameservers { .. }),
        ) => return Err(missing(change, "`after` value of the matching kind")),
    };
    Ok(json)
}

type Route = (&'static str, Vec<String>);

fn route(change: &Change, cron_index: Option<String>) -> Result<Route, RequestError> {
    let target = change.target.name.clone();
    let segments = |rest: &[String]| {
        let mut all = vec![target.clone()];
        all.extend_from_slice(rest);
        all
    };
    Ok(match (&change.resource, change.action) {
        (Resource::Record { .. }, Action::Create) => (
            "/dns/{zone}/records",
            prefixed("dns", segments(&["records".into()])),
        ),
        (Resource::Record { record_id, .. }, _) => {
            let id = record_id.ok_or_else(|| missing(change, "record id"))?;
            (
                "/dns/{zone}/records/{record}",
                prefixed("dns", segments(&["records".into(), id.to_string()])),
            )
        }
        (Resource::CronJob { .. }, Action::Create) => (
            "/sites/{slug}/cron",
            prefixed("sites", segments(&["cron".into()])),
        ),
        (Resource::CronJob { .. }, _) => {
            let index = cron_index.ok_or_else(|| missing(change, "current cron index"))?;
            (
                "/sites/{slug}/cron/{index}",
                prefixed("sites", segments(&["cron".into(), index])),
            )
        }
        (Resource::Nameservers, _) => (
            "/domains/{domain}/nameservers",
            prefixed("domains", segments(&["nameservers".into()])),
        ),
    })
}

fn prefixed(first: &str, mut rest: Vec<String>) -> Vec<String> {
    rest.insert(0, first.to_string());
    rest
}

fn what(change: &Change) -> &'static str {
    match change.resource {
        Resource::Record { .. } => "a record",
        Resource::CronJob { .. } => "a cron job",
        Resource::Nameservers => "the nameservers",
    }
}

fn missing(change: &Change, missing: &'static str) -> RequestError {
    RequestError::Missing {
        id: change.id,
        action: change.action.as_str(),
        what: what(change),
        missing,
    }
}

fn no_such_request(change: &Change) -> RequestError {
    RequestError::NoSuchRequest {
        id: change.id,
        action: change.action.as_str(),
        what: what(change),
    }
}
