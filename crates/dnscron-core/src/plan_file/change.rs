//! A change as the plan file writes it: typed per kind of resource (record, cron job,
//! nameservers), each with its canonical value before and after, and the HTTP request apply
//! sends for it: written for readers by `plan::request::preview` (the derivation apply sends
//! with), and on load derived again and compared, so a file's request is never what is sent.
//! The request is what sets it apart from `plan::Change`; its leaves (action, target, resource,
//! values, status) are the model's own.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::FromFileError;
use crate::plan::model::{self as plan, Action, Resource, Status, TargetRef, Value};
use crate::plan::request::{self, RequestError};
use dnscron_api::WriteRequest;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub(crate) struct Change {
    /// 1-based position in execution order.
    pub(crate) id: usize,
    pub(crate) action: Action,
    pub(crate) target: TargetRef,
    pub(crate) resource: Resource,
    /// The canonical value before the change; `null` for a create.
    pub(crate) before: Option<Value>,
    /// The canonical value after the change; `null` for a delete.
    pub(crate) after: Option<Value>,
    pub(crate) status: Status,
    /// Why the status is not `ready`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) reason: Option<String>,
    /// `file:line:col` of the desired item behind a create or update.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) declared_at: Option<String>,
    /// A created cron job's next three run times after `created_at` (RFC 3339, UTC).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) next_runs: Vec<String>,
    /// The request apply sends for this change. Derived from the fields above; a file whose
    /// request differs from the derived one is refused.
    pub(crate) request: Request,
    /// For a record from a record set: the set's name (`declared_at` is in the set's file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) from_set: Option<String>,
}

/// An HTTP request to the API, as apply sends it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub(crate) struct Request {
    /// `POST`, `PUT` or `DELETE`.
    pub(crate) method: String,
    /// After the API base URL, e.g. `/dns/example.com/records/5`. A cron delete shows
    /// `{index}`: the API deletes by position, known only from the listing apply reads right
    /// before sending.
    pub(crate) path: String,
    /// The JSON body; `null` for a delete.
    pub(crate) body: Option<serde_json::Value>,
}

impl Change {
    /// The change as the file writes it, with the request apply derives for it. Taken apart
    /// field by field (no `..`), so a field added to the model fails to compile here until
    /// someone decides whether the file carries it. Fails only for a change that names no
    /// request (which no planner makes).
    pub(super) fn of(
        c: &plan::Change,
        options: &plan::PlanOptions,
    ) -> Result<Change, RequestError> {
        let plan::Change {
            id,
            action,
            target,
            resource,
            before,
            after,
            status,
            reason,
            declared_at,
            next_runs,
            from_set,
        } = c;
        Ok(Change {
            id: *id,
            action: *action,
            target: target.clone(),
            resource: resource.clone(),
            before: before.clone(),
            after: after.clone(),
            status: *status,
            reason: reason.clone(),
            declared_at: declared_at.clone(),
            next_runs: next_runs.clone(),
            request: Request::of(&request::preview(c, options)?),
            from_set: from_set.clone(),
        })
    }

    /// The model's change, and the request the file showed for it (to be compared with the
    /// derived one: [`Request::check`]).
    pub(super) fn into_model(self) -> (plan::Change, Request) {
        let Change {
            id,
            action,
            target,
            resource,
            before,
            after,
            status,
            reason,
            declared_at,
            next_runs,
            request,
            from_set,
        } = self;
        let change = plan::Change {
            id,
            action,
            target,
            resource,
            before,
            after,
            status,
            reason,
            declared_at,
            next_runs,
            from_set,
        };
        (change, request)
    }
}

impl Request {
    /// The request as the file shows it.
    fn of(r: &WriteRequest) -> Request {
        Request {
            method: r.method.to_string(),
            path: r.path(),
            body: r.body.clone(),
        }
    }

    /// The request a file shows must be the one apply derives for `change` (it is there for
    /// readers and tools; what is sent is always derived again). `index` is the change's
    /// position in the file's `changes`.
    pub(super) fn check(
        &self,
        index: usize,
        change: &plan::Change,
        options: &plan::PlanOptions,
    ) -> Result<(), FromFileError> {
        let derived = Request::of(&request::preview(change, options)?);
        let field = if self.method != derived.method {
            "method"
        } else if self.path != derived.path {
            "path"
        } else if self.body != derived.body {
            "body"
        } else {
            return Ok(());
        };
        Err(FromFileError::RequestDiffers {
            id: change.id,
            index,
            field,
        })
    }
}
