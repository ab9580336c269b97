//! A labelled metric family kept in label order, replaced whole under one lock.
//!
//! prometheus-client's `Family` keeps its series in a `HashMap` (a different order on every
//! scrape and in every test run) and has no "replace all": clearing it and adding the new series
//! lets a scrape in between see none, or half. Here a scrape sees the series before a replacement
//! or after it, in the same order every time.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use prometheus_client::encoding::{EncodeLabelSet, EncodeMetric, MetricEncoder};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;

use super::labels::AccountLabel;

#[derive(Clone, Copy, Debug)]
enum Kind {
    Counter,
    Gauge,
}

/// A counter or gauge family with integer values. Clones share the series: the registry holds
/// one, `Metrics` the other.
#[derive(Debug)]
pub(super) struct Series<L> {
    kind: Kind,
    values: Arc<Mutex<BTreeMap<L, u64>>>,
}

impl<L> Clone for Series<L> {
    fn clone(&self) -> Self {
        Self {
            kind: self.kind,
            values: Arc::clone(&self.values),
        }
    }
}

impl<L: Ord> Series<L> {
    pub(super) fn counter() -> Self {
        Self::new(Kind::Counter)
    }

    pub(super) fn gauge() -> Self {
        Self::new(Kind::Gauge)
    }

    fn new(kind: Kind) -> Self {
        Self {
            kind,
            values: Arc::default(),
        }
    }

    pub(super) fn add(&self, labels: L, by: u64) {
        let mut values = self.lock();
        let value = values.entry(labels).or_insert(0);
        *value = value.saturating_add(by);
    }

    /// One series set to `value`, the others left as they are.
    pub(super) fn replace_one(&self, labels: L, value: u64) {
        self.lock().insert(labels, value);
    }

    /// Every series at once: a label set not in `series` is gone.
    pub(super) fn replace(&self, series: impl IntoIterator<Item = (L, u64)>) {
        let fresh: BTreeMap<L, u64> = series.into_iter().collect();
        *self.lock() = fresh;
    }

    /// The series `mine` selects (one account's) at once, the others left as they are.
    pub(super) fn replace_where(
        &self,
        mine: impl Fn(&L) -> bool,
        series: impl IntoIterator<Item = (L, u64)>,
    ) {
        let mut values = self.lock();
        values.retain(|labels, _| !mine(labels));
        values.extend(series);
    }

    // A panic while the lock was held left the map whole (every write is one insert or one
    // swap), so a poisoned lock is still good to read and write.
    fn lock(&self) -> MutexGuard<'_, BTreeMap<L, u64>> {
        self.values.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<L: Ord> Series<(AccountLabel, L)> {
    /// Every series of `account` leaves the exposition.
    pub(super) fn forget(&self, account: &AccountLabel) {
        self.lock().retain(|(whose, _), _| whose != account);
    }
}

impl<L> EncodeMetric for Series<L>
where
    L: Ord + EncodeLabelSet + std::fmt::Debug + Send + 'static,
{
    fn encode(&self, mut encoder: MetricEncoder) -> std::fmt::Result {
        let values = self.values.lock().unwrap_or_else(PoisonError::into_inner);
        for (labels, value) in values.iter() {
            let series = encoder.encode_family(labels)?;
            match self.kind {
                Kind::Counter => ConstCounter::new(*value).encode(series)?,
                Kind::Gauge => ConstGauge::new(*value).encode(series)?,
            }
        }
        Ok(())
    }

    fn metric_type(&self) -> MetricType {
        match self.kind {
            Kind::Counter => MetricType::Counter,
            Kind::Gauge => MetricType::Gauge,
        }
    }
}

/// One unlabelled metric per account (a gauge, a counter, a histogram), each written with its
/// account's label, in the accounts' order. Clones share the metrics.
pub(super) struct ByAccount<M> {
    make: fn() -> M,
    values: Arc<Mutex<BTreeMap<AccountLabel, M>>>,
}

impl<M> Clone for ByAccount<M> {
    fn clone(&self) -> Self {
        Self {
            make: self.make,
            values: Arc::clone(&self.values),
        }
    }
}

impl<M> std::fmt::Debug for ByAccount<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ByAccount").finish_non_exhaustive()
    }
}

impl<M: Clone> ByAccount<M> {
    pub(super) fn new(make: fn() -> M) -> Self {
        Self {
            make,
            values: Arc::default(),
        }
    }

    /// The account's metric (made at its first use); the clone shares it.
    pub(super) fn of(&self, account: &AccountLabel) -> M {
        let mut values = self.values.lock().unwrap_or_else(PoisonError::into_inner);
        values
            .entry(account.clone())
            .or_insert_with(self.make)
            .clone()
    }

    pub(super) fn forget(&self, account: &AccountLabel) {
        self.values
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(account);
    }
}

impl<M> EncodeMetric for ByAccount<M>
where
    M: EncodeMetric,
{
    fn encode(&self, mut encoder: MetricEncoder) -> std::fmt::Result {
        let values = self.values.lock().unwrap_or_else(PoisonError::into_inner);
        for (account, metric) in values.iter() {
            metric.encode(encoder.encode_family(account)?)?;
        }
        Ok(())
    }

    fn metric_type(&self) -> MetricType {
        (self.make)().metric_type()
    }
}
