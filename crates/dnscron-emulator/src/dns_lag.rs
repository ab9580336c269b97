//! What the DNS listener serves when it lags behind the API (`faults.dns_lag_ms`,
//! `faults.dns_lag_queries`): a copy of the zones as DNS last saw them, and the record writes
//! still on their way, each due once its time has passed and once enough DNS questions were
//! answered after it. With no lag there is no copy: DNS reads the account itself.

use std::collections::VecDeque;

use tokio::time::{Duration, Instant};

use super::settings::DnsLag;
use super::state::{State, ZoneState};

/// How far DNS lags: in time, in questions answered, or both (a write waits for the later).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Lag {
    pub time: DnsLag,
    /// A write is left out of the answers to this many DNS questions after it (any name, any
    /// type, UDP or TCP): counting questions, not time, lets a test say exactly which answer
    /// is the first to carry it.
    pub queries: u64,
}

impl Lag {
    fn is_none(&self) -> bool {
        self.time.is_none() && self.queries == 0
    }
}

/// A write on its way: the zone as it left it, shown once both `due` and `after_question`
/// have passed.
struct Pending {
    due: Instant,
    /// The number of questions answered after which it shows.
    after_question: u64,
    zone: String,
    state: ZoneState,
}

#[derive(Default)]
pub(crate) struct DnsView {
    lag: Lag,
    /// The zones DNS answers from while lagging; `None`: the live account.
    served: Option<State>,
    /// DNS questions answered while lagging; only the difference to a write's count matters.
    answered: u64,
    /// Writes in write order, not shown yet.
    pending: VecDeque<Pending>,
}

impl DnsView {
    /// Starts (or stops) lagging from the account as it is now: what was written before a
    /// lag was set is visible, later writes follow the new lag.
    pub(crate) fn set_lag(&mut self, lag: Lag, live: &State) {
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
    pub(crate) fn written(&mut self, zone: &str, now: &ZoneState) {
        if self.served.is_none() {
            return;
        }
        let ms = match self.lag.time {
            DnsLag::Never => return,
            DnsLag::None => 0,
            DnsLag::Millis(ms) => ms,
        };
        self.pending.push_back(Pending {
            due: Instant::now() + Duration::from_millis(ms),
            after_question: self.answered + self.lag.queries,
            zone: zone.to_string(),
            state: now.clone(),
        });
    }

    /// The zones to answer one DNS question from, due writes applied (this question counted);
    /// `None` when DNS reads the account.
    pub(crate) fn served(&mut self) -> Option<&State> {
        let now = Instant::now();
        let served = self.served.as_mut()?;
        self.answered += 1;
        let answered = self.answered;
        while self
            .pending
            .front()
            .is_some_and(|p| p.due <= now && p.after_question < answered)
        {
            if let Some(p) = self.pending.pop_front() {
                served.zones.insert(p.zone, p.state);
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
    use crate::state::StoredRecord;

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

    fn in_time(time: DnsLag) -> Lag {
        Lag { time, queries: 0 }
    }

    /// A view lagging by `lag` behind an account holding 192.0.2.1, after a write of 192.0.2.2.
    fn lagging(lag: Lag) -> DnsView {
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
        let mut view = lagging(in_time(DnsLag::Millis(200)));
        assert_eq!(served_content(&mut view).as_deref(), Some("192.0.2.1"));
        tokio::time::advance(Duration::from_millis(199)).await;
        assert_eq!(served_content(&mut view).as_deref(), Some("192.0.2.1"));
        tokio::time::advance(Duration::from_millis(1)).await;
        assert_eq!(served_content(&mut view).as_deref(), Some("192.0.2.2"));
    }

    #[tokio::test(start_paused = true)]
    async fn with_never_a_write_never_shows_until_the_lag_is_lifted() {
        let mut view = lagging(in_time(DnsLag::Never));
        tokio::time::advance(Duration::from_secs(86_400)).await;
        assert_eq!(served_content(&mut view).as_deref(), Some("192.0.2.1"));
        view.set_lag(Lag::default(), &State::default());
        assert!(view.served().is_none());
    }

    #[test]
    fn a_write_shows_from_the_question_after_the_lag_in_questions() {
        let mut view = lagging(Lag {
            time: DnsLag::None,
            queries: 2,
        });
        let answers: Vec<_> = (0..3).map(|_| served_content(&mut view)).collect();
        assert_eq!(
            answers,
            [Some("192.0.2.1"), Some("192.0.2.1"), Some("192.0.2.2")].map(|c| c.map(String::from))
        );
    }

    #[tokio::test(start_paused = true)]
    async fn with_a_lag_in_time_and_questions_a_write_waits_for_the_later() {
        let mut view = lagging(Lag {
            time: DnsLag::Millis(200),
            queries: 1,
        });
        assert_eq!(served_content(&mut view).as_deref(), Some("192.0.2.1"));
        assert_eq!(served_content(&mut view).as_deref(), Some("192.0.2.1"));
        tokio::time::advance(Duration::from_millis(200)).await;
        assert_eq!(served_content(&mut view).as_deref(), Some("192.0.2.2"));
    }

    #[test]
    fn with_never_and_a_lag_in_questions_a_write_never_shows() {
        let mut view = lagging(Lag {
            time: DnsLag::Never,
            queries: 1,
        });
        let answers: Vec<_> = (0..5).map(|_| served_content(&mut view)).collect();
        assert_eq!(answers, vec![Some("192.0.2.1".to_string()); 5]);
    }

    #[test]
    fn the_seed_takes_a_count_of_questions_and_refuses_anything_else() {
        use crate::Seed;
        let lag = |yaml: &str| {
            Seed::from_yaml_str(yaml)
                .map(|s| s.faults.dns_lag_queries)
                .map_err(|e| e.to_string().lines().next().map(String::from))
        };
        assert_eq!(lag("faults: {dns_lag_queries: 3}"), Ok(3));
        assert_eq!(lag("faults: {}"), Ok(0));
        assert_eq!(
            lag("faults: {dns_lag_queries: never}"),
            Err(Some(
                "invalid emulator seed <seed>: error: line 1 column 27: dns_lag_queries: expected a number of DNS questions (0 or more), e.g. 2"
                    .to_string()
            ))
        );
    }

    #[test]
    fn the_seed_takes_milliseconds_or_never_and_refuses_anything_else() {
        use crate::Seed;
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
