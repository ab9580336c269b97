//! `dnscron controller`: the long-running reconciler (docs/controller.md). Its HTTP face lives
//! here, behind the `controller` cargo feature: the metrics it keeps and the server that shows
//! them with the probes and the last round's status.

pub mod http;
pub mod metrics;
