//! A change as the plan file writes it: typed per kind of resource (record, cron job,
//! nameservers), each with its canonical value before and after, and the HTTP request apply
//! sends for it: written for readers by `plan::request::preview` (the derivation apply sends
//! with), and on load derived again and compared, so a file's request is never what is sent.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::document::TargetRef;
use crate::dns::RecordType;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Change {
    /// 1-based position in execution order.
    pub id: usize,
    pub action: Action,
    pub target: TargetRef,
    pub resource: Resource,
    /// The canonical value before the change; `null` for a create.
    pub before: Option<Value>,
    /// The canonical value after the change; `null` for a delete.
    pub after: Option<Value>,
    pub status: Status,
    /// Why the status is not `ready`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// `file:line:col` of the desired item behind a create or update.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declared_at: Option<String>,
    /// A created cron job's next three run times after `created_at` (RFC 3339, UTC).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub next_runs: Vec<String>,
    /// The request apply sends for this change. Derived from the fields above; a file whose
    /// request differs from the derived one is refused.
    pub request: Request,
    /// For a record from a record set: the set's name (`declared_at` is in the set's file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_set: Option<String>,
}

/// An HTTP request to the API, as apply sends it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Request {
    /// `POST`, `PUT` or `DELETE`.
    pub method: String,
    /// After the API base URL, e.g. `/dns/example.com/records/5`. A cron delete shows
    /// `{index}`: the API deletes by position, known only from the listing apply reads right
    /// before sending.
    pub path: String,
    /// The JSON body; `null` for a delete.
    pub body: Option<serde_json::Value>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Create,
    Update,
    Delete,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Apply sends the request.
    Ready,
    /// Apply stops at this change: a human must take a step in the portal first.
    NeedsPortalStep,
    /// The server is known to refuse it.
    Blocked,
}

/// What a change is about.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Resource {
    /// A DNS record of the target zone.
    Record {
        /// Relative form (`@`, `www`).
        name: String,
        #[serde(rename = "type")]
        rtype: RecordType,
        /// The live record's id, for update and delete.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        record_id: Option<i64>,
    },
    /// A cron job of the target site.
    CronJob {
        schedule: String,
        command: String,
        /// Numbers identical jobs (0, 1, …) so that their changes stay distinct.
        #[serde(default)]
        occurrence: u32,
    },
    /// The registrar nameservers of the target domain.
    Nameservers,
}

/// A canonical value on either side of a change; which one follows from the resource.
// Untagged, so serde's refusal names the type ("untagged enum Value"): keep the name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Value {
    Record {
        ttl: u32,
        content: String,
    },
    CronJob {
        schedule: String,
        command: String,
    },
    Nameservers {
        /// `hosted` or `custom`.
        mode: String,
        nameservers: Vec<String>,
    },
}
