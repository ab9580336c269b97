//! Registrar nameserver mode. The registrar state has no mode field: a domain is hosted when its
//! registry nameservers are the service's own (as listed with the zone's records), compared
//! without regard to case, order or final dots.

use crate::config::model::{NameserverMode, NameserversSpec};
use dnscron_api::payload;

use super::model::{Action, Change, Resource, Status, TargetKind, TargetRef, Value};
use super::norm::host_set;
use super::order::Draft;
use super::snapshot::LiveDomain;

/// Whether a domain is in hosted mode: its registry nameservers are the service's own (from the
/// zone's record listing), compared without regard to case, order, final dots or duplicates.
/// `import` uses it too, so an imported file and the plan agree on the mode.
pub(crate) fn registry_is_hosted(registry: &[String], service: &[String]) -> bool {
    super::in_effect::delegation_in_effect(&host_set(registry), &host_set(service))
}

/// The change that makes the registrar match `spec`, if one is needed.
pub(super) fn diff_nameservers(spec: &NameserversSpec, live: &LiveDomain) -> Option<Draft> {
    let registry = host_set(&live.registrar.nameservers.registry);
    let service = host_set(&live.service_nameservers);
    let live_hosted = super::in_effect::delegation_in_effect(&registry, &service);
    // `plan::request` turns `after` into the PUT body: hosted sends the server's hosted-mode
    // value and no hosts, custom the hosts.
    let (mode, hosts) = match &spec.mode {
        NameserverMode::Hosted => ("hosted", service),
        NameserverMode::Custom(hosts) => ("custom", host_set(hosts)),
    };
    if super::in_effect::delegation_in_effect(&registry, &hosts) {
        return None;
    }
    let after = Value::Nameservers {
        mode: mode.into(),
        nameservers: hosts.into_iter().collect(),
    };
    let before = Value::Nameservers {
        mode: if live_hosted { "hosted" } else { "custom" }.into(),
        nameservers: registry.into_iter().collect(),
    };
    let domain = live.domain.to_string();
    let dnssec = payload::dnssec_is_active(live.registrar.dnssec.state.as_ref());
    let (status, reason) = if dnssec {
        (
            Status::NeedsPortalStep,
            Some(format!(
                "DNSSEC is active on {domain}: the registrar refuses nameserver changes until DNSSEC is turned off in the portal; apply stops here and prints the portal link"
            )),
        )
    } else {
        (Status::Ready, None)
    };
    let target = TargetRef {
        kind: TargetKind::Domain,
        name: domain.clone(),
    };
    let change = Change::new(
        Action::Update,
        target,
        Resource::Nameservers,
        Some(before),
        Some(after),
    );
    Some(Draft::new(
        change.declared(&spec.location).with_status(status, reason),
    ))
}
