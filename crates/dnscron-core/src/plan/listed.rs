//! The zones the files declare against the account's zone list (`GET /dns`), before any zone
//! is read: a token for another account would otherwise read as "every zone missing", one 404
//! at a time, and a folder planned against the wrong account must be refused, not diffed.

use std::collections::HashSet;

use crate::config::model::Desired;
use crate::dns::fold_host;
use dnscron_api::payload;

use super::snapshot::SnapshotError;

/// `NotListed` naming every declared zone `listed` lacks; `None` when all are listed (or none
/// is declared).
pub(crate) fn check(
    desired: &Desired,
    listed: &[payload::Zone],
    api_url: &str,
) -> Option<SnapshotError> {
    let listed: HashSet<String> = listed.iter().map(|z| fold_host(&z.zone)).collect();
    let missing: Vec<_> = desired
        .zones
        .iter()
        .filter(|z| !listed.contains(&fold_host(z.zone.as_str())))
        .map(|z| (z.zone.clone(), z.location.clone()))
        .collect();
    (!missing.is_empty()).then(|| SnapshotError::NotListed {
        api_url: api_url.to_string(),
        declared: desired.zones.len(),
        missing,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::load_texts;

    fn desired(zones: &[&str]) -> Desired {
        let files: Vec<(std::path::PathBuf, String)> = zones
            .iter()
            .map(|z| {
                (
                    format!("{z}.yaml").into(),
                    format!("zone: {z}\nrecords: []\n"),
                )
            })
            .collect();
        load_texts(&files).expect("valid files")
    }

    fn listed(zones: &[&str]) -> Vec<payload::Zone> {
        zones
            .iter()
            .map(|z| payload::Zone {
                zone: (*z).to_string(),
                dnssec: None,
            })
            .collect()
    }

    fn missing(err: SnapshotError) -> (usize, Vec<String>) {
        match err {
            SnapshotError::NotListed {
                declared, missing, ..
            } => (
                declared,
                missing.into_iter().map(|(z, _)| z.to_string()).collect(),
            ),
            other @ (SnapshotError::MissingZone { .. }
            | SnapshotError::MissingDomain { .. }
            | SnapshotError::MissingSite { .. }
            | SnapshotError::Api { .. }
            | SnapshotError::Listing { .. }
            | SnapshotError::Internal(_)) => panic!("not NotListed: {other}"),
        }
    }

    #[test]
    fn every_declared_zone_listed_is_accepted_whatever_its_spelling() {
        let d = desired(&["a.example", "b.example"]);
        assert!(check(&d, &listed(&["B.Example.", "a.example", "c.example"]), "u").is_none());
        assert!(check(&desired(&[]), &listed(&[]), "u").is_none());
    }

    #[test]
    fn none_listed_and_some_missing_are_refused_naming_them() {
        let d = desired(&["a.example", "b.example"]);
        let none = check(&d, &listed(&["other.example"]), "u").unwrap();
        assert_eq!(
            missing(none),
            (2, vec!["a.example".into(), "b.example".into()])
        );
        let some = check(&d, &listed(&["a.example"]), "u").unwrap();
        assert_eq!(missing(some), (2, vec!["b.example".into()]));
    }
}
