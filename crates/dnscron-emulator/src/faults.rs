//! Fault injection decisions. One seeded generator, so the same seed and the same order of
//! requests give the same faults (tests are reproducible).

use super::settings::Faults;

#[derive(Debug)]
pub(crate) struct FaultState {
    rng: fastrand::Rng,
    /// API requests seen, for the position inside a forced 429 burst cycle.
    api_requests: u64,
    /// Runtime one-shots: the next N requests / writes get the fault, whatever the shares say.
    pub forced_429: u32,
    pub fail_next_writes: u32,
    pub drop_next_writes: u32,
    /// Every API request is answered 503 while set (an outage of the service).
    pub outage: bool,
    /// Tokens revoked at runtime (their owner removed them in the portal): answered 401.
    pub revoked: std::collections::BTreeSet<String>,
}

impl FaultState {
    pub(crate) fn new(seed: u64) -> FaultState {
        FaultState {
            rng: fastrand::Rng::with_seed(seed),
            api_requests: 0,
            forced_429: 0,
            fail_next_writes: 0,
            drop_next_writes: 0,
            outage: false,
            revoked: Default::default(),
        }
    }

    pub(crate) fn reseed(&mut self, seed: u64) {
        self.rng = fastrand::Rng::with_seed(seed);
        self.api_requests = 0;
    }

    /// `Some(retry_after)` when this request falls in a forced 429 burst.
    pub(crate) fn forced_429(&mut self, faults: &Faults) -> Option<u64> {
        let position = self.api_requests;
        self.api_requests += 1;
        if self.forced_429 > 0 {
            self.forced_429 -= 1;
            return Some(1);
        }
        let bursts = faults.rate_limit_bursts?;
        if bursts.every == 0 || bursts.length == 0 {
            return None;
        }
        let in_cycle = position % u64::from(bursts.every);
        (in_cycle >= u64::from(bursts.every.saturating_sub(bursts.length)))
            .then_some(u64::from(bursts.retry_after.max(1)))
    }

    /// Whether this write is answered 502 before anything changes.
    pub(crate) fn upstream_error(&mut self, faults: &Faults) -> bool {
        if self.fail_next_writes > 0 {
            self.fail_next_writes -= 1;
            return true;
        }
        faults.upstream_error_share > 0.0 && self.rng.f64() < faults.upstream_error_share
    }

    /// Whether this write, once committed, loses its connection instead of being answered.
    pub(crate) fn drop_after_commit(&mut self, faults: &Faults) -> bool {
        if self.drop_next_writes > 0 {
            self.drop_next_writes -= 1;
            return true;
        }
        faults.drop_after_commit_share > 0.0 && self.rng.f64() < faults.drop_after_commit_share
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::Bursts;

    #[test]
    fn same_seed_same_faults() {
        let faults = Faults {
            upstream_error_share: 0.5,
            ..Faults::default()
        };
        let run = |seed| {
            let mut state = FaultState::new(seed);
            (0..32)
                .map(|_| state.upstream_error(&faults))
                .collect::<Vec<_>>()
        };
        assert_eq!(run(7), run(7));
        assert!(run(7).contains(&true) && run(7).contains(&false));
    }

    #[test]
    fn bursts_hit_the_last_requests_of_each_cycle() {
        let faults = Faults {
            rate_limit_bursts: Some(Bursts {
                every: 4,
                length: 2,
                retry_after: 3,
            }),
            ..Faults::default()
        };
        let mut state = FaultState::new(1);
        let got: Vec<_> = (0..8).map(|_| state.forced_429(&faults)).collect();
        assert_eq!(
            got,
            vec![None, None, Some(3), Some(3), None, None, Some(3), Some(3)]
        );
    }
}
