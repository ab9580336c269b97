//! The plan: what `plan` shows, `plan --out` saves and `apply` executes. Saved, it is the plan
//! file (`crate::plan_file`, docs/plan.md): `Plan` and `Change` have file types of their own,
//! converted from and to these, while the leaves (targets, summary, resources, values, findings,
//! options) are written as they are here. A leaf's serde form is therefore the plan file's (and
//! the apply report's JSON reuses it), and its doc comments are the file schema's descriptions:
//! notes for the code about a leaf are `//` comments, so that they stay out of the schema.
//! Changes are typed (action, target, resource, after value): `plan::request` alone derives the
//! HTTP request of a change, for the executor and the idempotency key alike.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::config::model::Desired;
use crate::dns::RecordType;

use crate::finding::{Figure, FindingCode, Severity};

use super::request;

#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// 128 random bits in hex, new for every plan: idempotency keys derive from it, so a later
    /// plan (even one with the same content) never reuses an earlier plan's keys.
    pub plan_id: String,
    /// RFC 3339, UTC.
    pub created_at: String,
    pub api_url: String,
    /// What the plan was made with beyond the files; apply re-plans with the same.
    pub options: PlanOptions,
    /// Every zone, domain and site the plan read, with a fingerprint of what it read.
    pub targets: Vec<Target>,
    pub summary: Summary,
    /// In execution order (see `plan::order`).
    pub changes: Vec<Change>,
    pub findings: Vec<Finding>,
    /// The validated desired state the plan was made from: apply re-plans it for the review
    /// check, verification and repairs without the files.
    pub desired: Desired,
    /// `Some` when the plan covers only the targets whose files changed since a commit
    /// (`plan::scope`); `None`: everything the files declare.
    pub scope: Option<super::scope::Scope>,
    /// The zones whose changes go past their safety limits, each with every limit it passes:
    /// empty unless the plan was made with the limits lifted (`options.allow_mass_changes`),
    /// since a plan made with them is refused instead. What the approval covers.
    pub over_limits: Vec<super::safety::OverLimits>,
}

/// The diff options a saved plan keeps.
// Kept so that apply's re-plans and requests match the plan.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PlanOptions {
    /// The nameserver `mode` value that selects the service's own nameservers.
    // Sent on PUT nameservers; read from the server's /openapi.json when the plan switches a
    // domain to hosted.
    pub hosted_mode_wire_value: String,
    /// Mass changes approved: the plan was made with the zones' safety limits lifted
    /// (`over_limits` lists what goes past them), and an apply bound to this plan lifts them for
    /// this plan's changes only. `false`: the limits hold, here and in apply.
    // The reviewer sees it; apply's re-plans keep the limits for changes of no plan that says so
    // (`apply::workflow::approval`).
    pub allow_mass_changes: bool,
}

/// Who and when: the plan id and creation time, injected so that tests can fix them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanStamp {
    pub id: String,
    /// RFC 3339, UTC.
    pub created_at: String,
}

impl PlanStamp {
    /// A random id and the current time: what every real plan gets.
    pub fn fresh() -> PlanStamp {
        PlanStamp {
            id: Plan::new_id(),
            created_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        }
    }
}

// Written in the plan file and named in the apply report's JSON (`apply::report`).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum TargetKind {
    Zone,
    /// The registrar side of a domain (only with `nameservers:`).
    Domain,
    Site,
}

impl TargetKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TargetKind::Zone => "zone",
            TargetKind::Domain => "domain",
            TargetKind::Site => "site",
        }
    }
}

impl std::fmt::Display for TargetKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which zone, domain or site a change or finding belongs to.
#[derive(
    Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
pub struct TargetRef {
    pub kind: TargetKind,
    pub name: String,
}

impl std::fmt::Display for TargetRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.kind, self.name)
    }
}

/// A zone, domain or site the plan read, with a fingerprint of what it read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Target {
    pub kind: TargetKind,
    pub name: String,
    /// `sha256:<hex>` over a canonical text of what was read for the target.
    // The live state read for this target: see `plan::fingerprint`.
    pub fingerprint: String,
    /// `file:line:col` of the declaration.
    pub declared_at: String,
}

impl Target {
    pub fn target_ref(&self) -> TargetRef {
        TargetRef {
            kind: self.kind,
            name: self.name.clone(),
        }
    }
}

/// Changes by action; `portal_step`, `blocked` and `held` count changes with that status (also
/// counted under their action).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Summary {
    pub create: usize,
    pub update: usize,
    /// Of `update`, the record updates that change only the TTL (the content stays).
    // Counted apart by the safety limits too (`plan::safety`).
    pub update_ttl_only: usize,
    pub delete: usize,
    pub portal_step: usize,
    pub blocked: usize,
    /// Changes held by an error finding (status `held_by_finding`): while there is one, apply
    /// sends nothing at all.
    pub held: usize,
}

impl Summary {
    pub fn of(changes: &[Change]) -> Summary {
        let mut s = Summary::default();
        for c in changes {
            match c.action {
                Action::Create => s.create += 1,
                Action::Update => {
                    s.update += 1;
                    s.update_ttl_only += usize::from(c.is_ttl_only());
                }
                Action::Delete => s.delete += 1,
            }
            match c.status {
                Status::Ready => {}
                Status::NeedsPortalStep => s.portal_step += 1,
                Status::Blocked => s.blocked += 1,
                Status::HeldByFinding => s.held += 1,
            }
        }
        s
    }
}

// Written in the plan file and in the apply report's JSON (`apply::report`).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Create,
    Update,
    Delete,
}

impl Action {
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Create => "create",
            Action::Update => "update",
            Action::Delete => "delete",
        }
    }
}

// Written in the plan file and in the apply report's JSON (`apply::outcome`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Apply sends the request.
    Ready,
    /// Apply stops at this change: a human must take a step in the portal first.
    // The server would answer 409 with a continue_url: apply stops here (exit 3).
    NeedsPortalStep,
    /// The server is known to refuse it.
    // E.g. cron on a site that is not active.
    Blocked,
    /// It writes a record set (or creates a cron job) that an error finding judged from the
    /// files is about, and no `accept:` accepts that finding: apply refuses the whole plan,
    /// sending nothing, while any change is held (docs/apply.md). `reason` names the findings.
    // Never sent, unlike blocked (sent last, the server decides): the files themselves say the
    // write is wrong. Marked by `plan::held` once every finding is known.
    HeldByFinding,
}

/// What a change is about.
// Written in the plan file and in the apply report's JSON (`apply::report`).
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
        // It keeps the idempotency keys of two identical deletes (or creates) apart.
        #[serde(default)]
        occurrence: u32,
    },
    /// The registrar nameservers of the target domain.
    Nameservers,
}

impl Resource {
    /// Whether both name the same thing whatever its copy: the same record name and type (any
    /// id), the same cron job (any occurrence: that depends on how many copies a listing
    /// shows), or the nameservers.
    pub fn same_subject(&self, other: &Resource) -> bool {
        match (self, other) {
            (
                Resource::Record { name, rtype, .. },
                Resource::Record {
                    name: n2,
                    rtype: t2,
                    ..
                },
            ) => name == n2 && rtype == t2,
            (
                Resource::CronJob {
                    schedule, command, ..
                },
                Resource::CronJob {
                    schedule: s2,
                    command: c2,
                    ..
                },
            ) => schedule == s2 && command == c2,
            (Resource::Nameservers, Resource::Nameservers) => true,
            (Resource::Record { .. } | Resource::CronJob { .. } | Resource::Nameservers, _) => {
                false
            }
        }
    }

    /// The live record's id, for a record.
    pub fn record_id(&self) -> Option<i64> {
        match self {
            Resource::Record { record_id, .. } => *record_id,
            Resource::CronJob { .. } | Resource::Nameservers => None,
        }
    }

    /// The part of the idempotency key that says which thing is changed.
    fn identity(&self) -> String {
        match self {
            Resource::Record {
                name,
                rtype,
                record_id,
            } => match record_id {
                Some(id) => format!("record|{name}|{rtype}|{id}"),
                None => format!("record|{name}|{rtype}|new"),
            },
            Resource::CronJob {
                schedule,
                command,
                occurrence,
            } => format!("cron|{schedule}|{command}|{occurrence}"),
            Resource::Nameservers => "nameservers".into(),
        }
    }
}

/// A canonical value on either side of a change; which one follows from the resource.
// Written in the plan file and in the apply report's JSON (`apply::outcome`). Untagged, so
// serde's refusal of a plan file names the type ("untagged enum Value"): keep the name.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
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

/// One change. Serialize: the apply report's JSON lists the changes verification still finds
/// (`apply::outcome::ApplyResult::Differs`); the plan file has its own type
/// (`plan_file::Change`), so a field added here shows in that report, never in the plan file.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Change {
    /// 1-based position in execution order; stable within the plan.
    pub id: usize,
    pub action: Action,
    pub target: TargetRef,
    pub resource: Resource,
    pub before: Option<Value>,
    pub after: Option<Value>,
    pub status: Status,
    /// Why the status is not `ready`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// `file:line:col` of the desired item behind a create or update, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declared_at: Option<String>,
    /// For a cron job the plan creates: its next three run times after the plan's `created_at`
    /// (RFC 3339, UTC), so a reviewer sees when it will actually run.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub next_runs: Vec<String>,
    /// For a record from a record set (`record_set:`): the set's name. `declared_at` is then
    /// the place in the set's file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_set: Option<String>,
}

impl Change {
    /// The record set behind this change, for a record that comes from one.
    pub fn from_set(self, set: Option<&str>) -> Change {
        Change {
            from_set: set.map(str::to_string),
            ..self
        }
    }

    /// A ready change with nothing declared: the one way changes are built. `plan::order`
    /// numbers them (`id` 0 until then); `declared`, `with_status` and `with_next_runs` add the rest.
    pub fn new(
        action: Action,
        target: TargetRef,
        resource: Resource,
        before: Option<Value>,
        after: Option<Value>,
    ) -> Change {
        Change {
            id: 0,
            action,
            target,
            resource,
            before,
            after,
            status: Status::Ready,
            reason: None,
            declared_at: None,
            next_runs: Vec::new(),
            from_set: None,
        }
    }

    /// The `file:line:col` of the desired item behind this change.
    pub fn declared(self, at: impl ToString) -> Change {
        Change {
            declared_at: Some(at.to_string()),
            ..self
        }
    }

    /// A status other than ready, with the reason a reviewer reads.
    pub fn with_status(self, status: Status, reason: Option<String>) -> Change {
        Change {
            status,
            reason,
            ..self
        }
    }

    /// Whether this is a record update that changes the TTL and keeps the content.
    pub fn is_ttl_only(&self) -> bool {
        match (self.action, &self.before, &self.after) {
            (
                Action::Update,
                Some(Value::Record { ttl, content }),
                Some(Value::Record {
                    ttl: new_ttl,
                    content: new_content,
                }),
            ) => content == new_content && ttl != new_ttl,
            (Action::Create | Action::Update | Action::Delete, _, _) => false,
        }
    }

    /// A new cron job's next run times (RFC 3339, UTC).
    pub fn with_next_runs(self, next_runs: Vec<String>) -> Change {
        Change { next_runs, ..self }
    }

    /// The Idempotency-Key apply sends with this change's request, deterministic so that retries
    /// and re-applies of the same saved plan reuse it:
    ///
    /// `dnscron-<plan_id>-r<round>-<h>` where `<h>` is the first 24 hex digits of
    /// sha256(`<target kind>|<target name>|<action>|<resource identity>|<method>|<body>`),
    /// `<method>` and `<body>` being those of the request `plan::request::derive` makes for the
    /// change, the body as JSON with object keys sorted (`null` when none).
    /// Resource identity: `record|<name>|<type>|<record id or "new">`,
    /// `cron|<schedule>|<command>|<occurrence>`, or `nameservers`. The cron delete's index is
    /// left out on purpose: apply deletes at the index it finds when re-listing.
    /// `round` is 0 for the first execution of the plan; apply increments it when it has to send
    /// a change again after verification found it not in effect (a stale replay).
    pub fn idempotency_key(
        &self,
        plan_id: &str,
        round: u32,
        options: &PlanOptions,
    ) -> Result<String, request::RequestError> {
        // The cron delete's index is left out of the key, so it needs no resolving here.
        let (method, body) = request::method_and_body(self, options)?;
        let body = body
            .as_ref()
            .map(canonical_json)
            .unwrap_or_else(|| "null".into());
        let material = format!(
            "{}|{}|{}|{}|{}|{}",
            self.target.kind,
            self.target.name,
            self.action.as_str(),
            self.resource.identity(),
            method,
            body
        );
        let digest = hex(&Sha256::digest(material.as_bytes()));
        Ok(format!("dnscron-{plan_id}-r{round}-{}", &digest[..24]))
    }

    pub fn is_ready(&self) -> bool {
        self.status == Status::Ready
    }

    pub fn is_held(&self) -> bool {
        self.status == Status::HeldByFinding
    }
}

/// Something the reviewer should know that is not itself a change.
// A change that needs a portal step or is blocked, records the plan leaves alone on purpose, or
// the health of a domain's registration or of a cron schedule (docs/health.md).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Finding {
    /// What the finding is about, as a stable code (docs/health.md#finding-codes).
    pub code: FindingCode,
    pub target: TargetRef,
    pub severity: Severity,
    pub message: String,
    /// The record set the finding is about, when it is about one a file declares.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record: Option<FindingRecord>,
    /// The ids of the changes this finding is about; absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub change_ids: Vec<usize>,
    /// `file:line:col` of what the finding is about, when a file declares it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declared_at: Option<String>,
    /// The files' acceptance of this finding (`accept:`), when one matches it and had not
    /// expired when the plan was made: an accepted finding changes no exit code and stops no
    /// write.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accepted: Option<Acceptance>,
    /// For a zone, domain or site the account has and no file declares: the folder the plan
    /// read, where an import of it goes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adopt_into: Option<String>,
    /// What the finding measures (lookups, a DMARC policy, key bits, an expiry day), which an
    /// `accept:` entry records: a finding worse than its entry's figure is not accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub figure: Option<Figure>,
}

/// Why a finding is accepted, and until when.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Acceptance {
    pub reason: String,
    /// The last day (`YYYY-MM-DD`, UTC) the acceptance holds; absent: no end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<String>")]
    pub until: Option<chrono::NaiveDate>,
    /// `file:line:col` of the `accept:` entry.
    pub declared_at: String,
    /// The figure the entry records (`value`); absent: it was accepted without one, and covers
    /// the finding whatever it measures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub figure: Option<Figure>,
}

/// A record set by its owner name and type.
#[derive(
    Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
pub struct FindingRecord {
    /// The owner name relative to the zone, as the files write it (`@`, `_dmarc`, `www`).
    pub name: String,
    #[serde(rename = "type")]
    pub rtype: RecordType,
}

impl Finding {
    /// A finding of `code` about `target`, with the code's severity.
    pub fn new(code: FindingCode, target: TargetRef, message: String) -> Finding {
        Finding {
            code,
            target,
            severity: code.severity(),
            message,
            record: None,
            change_ids: Vec::new(),
            declared_at: None,
            accepted: None,
            adopt_into: None,
            figure: None,
        }
    }

    /// What the finding measures.
    pub fn measured(self, figure: Figure) -> Finding {
        Finding {
            figure: Some(figure),
            ..self
        }
    }

    /// The folder an import of what the finding is about goes into.
    pub fn adopt_into(self, folder: &str) -> Finding {
        Finding {
            adopt_into: Some(folder.to_string()),
            ..self
        }
    }

    /// Where a file declares what the finding is about.
    pub fn declared_at(self, at: impl ToString) -> Finding {
        Finding {
            declared_at: Some(at.to_string()),
            ..self
        }
    }

    /// The record set the finding is about.
    pub fn about_record(self, name: &str, rtype: RecordType) -> Finding {
        Finding {
            record: Some(FindingRecord {
                name: name.to_string(),
                rtype,
            }),
            ..self
        }
    }

    /// An error-level finding, accepted or not.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Whether the drift job must alert: an error the files do not accept (`accept:` entries
    /// past their day accept nothing), or something the account has that no file declares (a
    /// warning, but drift all the same) and no `accept:` accepts.
    pub fn needs_attention(&self) -> bool {
        (self.is_error() || self.code.is_undeclared()) && self.accepted.is_none()
    }
}

impl Plan {
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// A fresh random plan id: 32 lower-case hex digits.
    pub fn new_id() -> String {
        format!("{:032x}", fastrand::u128(..))
    }

    pub fn target(&self, target: &TargetRef) -> Option<&Target> {
        self.targets
            .iter()
            .find(|t| t.kind == target.kind && t.name == target.name)
    }
}

/// JSON with object keys sorted at every level, so equal values hash equally whatever order
/// they were built in.
pub(crate) fn canonical_json(value: &serde_json::Value) -> String {
    use serde_json::Value as J;
    match value {
        J::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let fields: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{}:{}", J::String(k.clone()), canonical_json(&map[k])))
                .collect();
            format!("{{{}}}", fields.join(","))
        }
        J::Array(items) => {
            let items: Vec<String> = items.iter().map(canonical_json).collect();
            format!("[{}]", items.join(","))
        }
        other @ (J::Null | J::Bool(_) | J::Number(_) | J::String(_)) => other.to_string(),
    }
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A record change on `www A` in example.com, values with TTL 300 (unit tests' building block).
#[cfg(test)]
pub(crate) fn record_change(
    action: Action,
    record_id: Option<i64>,
    before: Option<&str>,
    after: Option<&str>,
) -> Change {
    let value = |content: &str| Value::Record {
        ttl: 300,
        content: content.into(),
    };
    let zone = TargetRef {
        kind: TargetKind::Zone,
        name: "example.com".into(),
    };
    let resource = Resource::Record {
        name: "www".into(),
        rtype: RecordType::A,
        record_id,
    };
    Change {
        id: 1,
        ..Change::new(action, zone, resource, before.map(value), after.map(value))
    }
}
