//! "Told once, cleared once" (the drift issue's rule, docs/ci.md): a condition is told when it
//! starts, again only when what it is about changes, and once when it clears, however many
//! rounds see it in between.

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};

use super::report::{AlertKind, Transition};

#[derive(Debug, Default)]
pub(super) struct Alerts {
    raised: BTreeMap<AlertKind, u64>,
}

impl Alerts {
    /// `about`: what the condition is about now (`None`: it does not hold). Returns what to
    /// tell, if anything.
    pub(super) fn set(&mut self, kind: AlertKind, about: Option<u64>) -> Option<Transition> {
        match (self.raised.get(&kind).copied(), about) {
            (None, None) => None,
            (None, Some(now)) => {
                self.raised.insert(kind, now);
                Some(Transition::Raised)
            }
            (Some(_), None) => {
                self.raised.remove(&kind);
                Some(Transition::Cleared)
            }
            (Some(before), Some(now)) if before == now => None,
            (Some(_), Some(now)) => {
                self.raised.insert(kind, now);
                Some(Transition::Changed)
            }
        }
    }
}

/// A fingerprint of what a condition is about (stable within a process; never stored).
pub(super) fn about(value: impl Hash) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_condition_is_told_once_changed_once_and_cleared_once() {
        let mut alerts = Alerts::default();
        let seen: Vec<_> = [
            None,
            Some(1),
            Some(1),
            Some(1),
            Some(2),
            Some(2),
            None,
            None,
        ]
        .into_iter()
        .map(|about| alerts.set(AlertKind::Drift, about))
        .collect();
        assert_eq!(
            seen,
            [
                None,
                Some(Transition::Raised),
                None,
                None,
                Some(Transition::Changed),
                None,
                Some(Transition::Cleared),
                None
            ]
        );
        // Kinds are apart.
        assert_eq!(
            alerts.set(AlertKind::Failing, Some(1)),
            Some(Transition::Raised)
        );
        assert_eq!(alerts.set(AlertKind::Drift, None), None);
    }
}
