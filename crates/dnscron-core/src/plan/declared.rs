//! The live state a desired state declares: what the account would hold had it been applied
//! exactly. Diffing another desired state against it gives the changes from one revision of the
//! files to the next, each with the earlier revision's value as its `before`
//! (`apply::workflow`'s revision binding).

use crate::config::model::{Desired, NameserverMode, ZoneSpec};
use crate::dns;
use dnscron_api::payload::{CronJob, Registrar, RegistrarDnssec, RegistrarNameservers};
use dnscron_api::{RecordRef, RecordRows};

use super::snapshot::{LiveDomain, LiveSite, LiveSnapshot, LiveZone};

/// What `desired` declares, as a snapshot: each zone's records (ids are their positions, which
/// no review compares), each `nameservers` key as the registry's delegation, each site active
/// with its cron jobs. The service's own nameservers are declared nowhere, so they are taken
/// from `service` (a zone it did not read has none).
pub(crate) fn declared(desired: &Desired, service: &LiveSnapshot) -> LiveSnapshot {
    let service_of = |zone: &dns::ZoneName| service.service_nameservers_of(zone);
    LiveSnapshot {
        zones: desired
            .zones
            .iter()
            .map(|z| LiveZone {
                zone: z.zone.clone(),
                records: records_of(z),
                service_nameservers: service_of(&z.zone),
            })
            .collect(),
        domains: desired
            .zones
            .iter()
            .filter_map(|z| {
                let mode = &z.nameservers.as_ref()?.mode;
                let service_nameservers = service_of(&z.zone);
                let registry = match mode {
                    NameserverMode::Hosted => service_nameservers.clone(),
                    NameserverMode::Custom(hosts) => hosts.clone(),
                };
                Some(LiveDomain {
                    domain: z.zone.clone(),
                    registrar: delegated_to(registry),
                    service_nameservers,
                })
            })
            .collect(),
        sites: desired
            .sites
            .iter()
            .map(|s| LiveSite {
                slug: s.slug.clone(),
                state: Some("active".into()),
                cron: s.cron.as_ref().map(|jobs| {
                    (0..)
                        .zip(jobs)
                        .map(|(index, j)| CronJob {
                            index,
                            schedule: j.schedule.clone(),
                            command: j.command.clone(),
                        })
                        .collect()
                }),
            })
            .collect(),
    }
}

/// A zone's declared records as the API would list them (the content in the form a create
/// sends, which reads back to the same canonical form).
fn records_of(zone: &ZoneSpec) -> RecordRows {
    let mut rows = RecordRows::default();
    for (id, record) in (1..).zip(&zone.records) {
        let content = dns::wire_content(record.rtype, &record.canonical);
        let row = RecordRef {
            id,
            name: &record.name,
            rtype: record.rtype.as_str(),
            ttl: record.ttl,
            content: &content,
        };
        // A desired state's text is far below the 4 GiB a listing can hold; a row that would
        // not fit is left out, and the diff then shows it as a create.
        let _ = rows.push(row);
    }
    rows
}

fn delegated_to(registry: Vec<String>) -> Registrar {
    Registrar {
        nameservers: RegistrarNameservers {
            resolver: registry.clone(),
            registry,
            state: None,
        },
        dnssec: RegistrarDnssec {
            state: None,
            our_ds: None,
            registry_ds: None,
        },
        lock: None,
        whois_privacy: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{DiffOptions, diff};

    fn desired(text: &str) -> Desired {
        crate::config::load_texts(&[("z.yaml".into(), text.into())])
            .unwrap_or_else(|d| panic!("{d}"))
    }

    #[test]
    fn a_desired_state_against_what_it_declares_plans_nothing_and_another_plans_the_difference() {
        let zone = "zone: a.example\nrecords:\n  - {name: www, type: A, content: 192.0.2.1}\n  - {name: '@', type: TXT, content: \"v=spf1 -all\"}\n---\nsite: shop\ncron:\n  - {schedule: '0 3 * * *', command: php cron.php}\n";
        let previous = desired(zone);
        let base = declared(&previous, &LiveSnapshot::default());
        let opts = DiffOptions::default();
        let same = diff(&previous, &base, &opts).unwrap_or_else(|e| panic!("{e}"));
        assert!(same.is_empty(), "{:?}", same.changes);
        let next = desired(&zone.replace("192.0.2.1", "192.0.2.2"));
        let changed = diff(&next, &base, &opts).unwrap_or_else(|e| panic!("{e}"));
        let updates: Vec<_> = changed
            .changes
            .iter()
            .map(|c| (c.action, c.before.clone(), c.after.clone()))
            .collect();
        let value = |ip: &str| {
            Some(crate::plan::Value::Record {
                ttl: 3600,
                content: ip.into(),
            })
        };
        assert_eq!(
            updates,
            [(
                crate::plan::Action::Update,
                value("192.0.2.1"),
                value("192.0.2.2")
            )]
        );
    }
}
