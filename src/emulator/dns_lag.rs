//! What the DNS listener serves when it lags behind the API (`faults.dns_lag_ms`): a copy of
//! the zones as DNS last saw them, and the record writes still on their way, each due at the
//! time of the write plus the lag. With no lag there is no copy: DNS reads the account itself.

use std::collections::VecDeque;

use tokio::time::{Duration, Instant};

use super::settings::DnsLag;
use super::state::{State, ZoneState};

#[derive(Default)]
pub struct DnsView {
    lag: DnsLag,
    /// The zones DNS answers from while lagging; `None`: the live account.
    served: Option<State>,
    /// Zone contents after a write, in write order, with the time they show over DNS.
    pending: VecDeque<(Instant, String, ZoneState)>,
}

impl DnsView {
    /// Starts (or stops) lagging from the account as it is now: what was written before a
    /// lag was set is visible, later writes follow the new lag.
    pub fn set_lag(&mut self, lag: DnsLag, live: &State) {
        let lagging = !lag.is_none();
        match (self.served.is_some(), lagging) {
            (false, true) => self.served = Some(copy_zones(live)),
            (true, false) => {
                self.served = None;
                self.pending.clear();
            }
            _ => {}
        }
        self.lag = lag;
    }

    /// A record write to `zone` left it as `now`; call with the account locked, so writes
    /// are queued in the order they happened.
    pub fn written(&mut self, zone: &str, now: &ZoneState) {
        if self.served.is_none() {
            return;
        }
        if let DnsLag::Millis(ms) = self.lag {
            let due = Instant::now() + Duration::from_millis(ms);
            self.pending.push_back((due, zone.to_string(), now.clone()));
        }
    }

    /// The zones to answer from now, due writes applied; `None` when DNS reads the account.
    pub fn served(&mut self) -> Option<&State> {
        let now = Instant::now();
        let served = self.served.as_mut()?;
        while self.pending.front().is_some_and(|(due, ..)| *due <= now) {
            if let Some((_, zone, zs)) = self.pending.pop_front() {
                served.zones.insert(zone, zs);
            }
        }
        Some(served)
    }
}

fn copy_zones(live: &State) -> State {
    let mut copy = State::default();
    copy.zones = live.zones.clone();
    copy
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emulator::state::StoredRecord;

    fn zone_with(content: &str) -> ZoneState {
        let mut zs = ZoneState::default();
        zs.records.insert(
            1,
            StoredRecord {
                name: "www".into(),
                rtype: "A".into(),
                ttl: 300,
                content: content.into(),
                hidden: false,
            },
        );
        zs.writes = 1;
        zs
    }

    fn served_content(view: &mut DnsView) -> Option<String> {
        let state = view.served()?;
        let zs = state.zones.get("example.com")?;
        zs.records.get(&1).map(|r| r.content.clone())
    }

    #[test]
    fn without_a_lag_dns_reads_the_account() {
        let mut view = DnsView::default();
        view.written("example.com", &zone_with("192.0.2.1"));
        assert!(view.served().is_none());
    }

    /// A view lagging by `lag` behind an account holding 192.0.2.1, after a write of 192.0.2.2.
    fn lagging(lag: DnsLag) -> DnsView {
        let mut live = State::default();
        live.zones
            .insert("example.com".into(), zone_with("192.0.2.1"));
        let mut view = DnsView::default();
        view.set_lag(lag, &live);
        view.written("example.com", &zone_with("192.0.2.2"));
        view
    }

    #[tokio::test(start_paused = true)]
    async fn a_write_shows_once_the_lag_has_passed() {
        let mut view = lagging(DnsLag::Millis(200));
        assert_eq!(served_content(&mut view).as_deref(), Some("192.0.2.1"));
        tokio::time::advance(Duration::from_millis(199)).await;
        assert_eq!(served_content(&mut view).as_deref(), Some("192.0.2.1"));
        tokio::time::advance(Duration::from_millis(1)).await;
        assert_eq!(served_content(&mut view).as_deref(), Some("192.0.2.2"));
    }

    #[tokio::test(start_paused = true)]
    async fn with_never_a_write_never_shows_until_the_lag_is_lifted() {
        let mut view = lagging(DnsLag::Never);
        tokio::time::advance(Duration::from_secs(86_400)).await;
        assert_eq!(served_content(&mut view).as_deref(), Some("192.0.2.1"));
        view.set_lag(DnsLag::None, &State::default());
        assert!(view.served().is_none());
    }

    #[test]
    fn the_seed_takes_milliseconds_or_never_and_refuses_anything_else() {
        use crate::emulator::Seed;
        let lag = |yaml: &str| Seed::from_yaml_str(yaml).map(|s| s.faults.dns_lag_ms);
        assert_eq!(
            lag("faults: {dns_lag_ms: 250}").ok(),
            Some(DnsLag::Millis(250))
        );
        assert_eq!(lag("faults: {dns_lag_ms: never}").ok(), Some(DnsLag::Never));
        assert_eq!(lag("faults: {}").ok(), Some(DnsLag::None));
        let refused = lag("faults: {dns_lag_ms: soon}")
            .err()
            .map(|e| e.to_string());
        let first_line = refused.as_deref().and_then(|e| e.lines().next());
        assert_eq!(
            first_line,
            Some(
                "invalid emulator seed <seed>: error: line 1 column 22: dns_lag_ms `soon`: expected a number of milliseconds or `never`"
            )
        );
        assert_eq!(
            DnsLag::parse("-5"),
            Err("dns_lag_ms `-5`: expected a number of milliseconds or `never`".into())
        );
    }
}
