//! How far a plan's reads of the live account are, as typed notes: the binary draws them (a bar
//! on a terminal, a line a minute in CI logs). A plan paced by the rate limit can read for
//! minutes; without this it is silent all that time.

use std::fmt;
use std::sync::Arc;

/// What the planner tells about its reads of targets: a zone's records, a domain's registrar
/// state, the site list, a site's cron jobs. The total grows as each phase starts (the
/// registrar reads for the health findings start once the records are in).
pub trait ReadProgress: Send + Sync {
    /// `count` more reads are queued.
    fn queued(&self, count: usize);
    /// One of them is in (read, or failed: the plan then ends with its error).
    fn done(&self);
}

/// A [`ReadProgress`] in [`super::MakeOptions`]; `None` there reports nothing.
#[derive(Clone)]
pub struct ReadProgressHook(pub Arc<dyn ReadProgress>);

impl fmt::Debug for ReadProgressHook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ReadProgressHook")
    }
}
