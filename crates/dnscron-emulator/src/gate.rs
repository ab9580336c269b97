//! The write gate: a test closes it so that every write waits at the emulator the moment it
//! arrives (counted, nothing checked or changed yet), learns when one is waiting, and opens it
//! to let them go on. "A write is on the wire" becomes a state the test reaches and leaves when
//! it chooses, however loaded the machine is (a latency would run out on its own).

use tokio::sync::watch;

#[derive(Clone, Copy, Debug, Default)]
struct Gate {
    closed: bool,
    /// Writes still let through before the gate closes by itself.
    passes_left: Option<u64>,
    /// Writes waiting at the gate now.
    held: u64,
}

#[derive(Debug)]
pub(crate) struct WriteGate(watch::Sender<Gate>);

impl Default for WriteGate {
    fn default() -> Self {
        WriteGate(watch::Sender::new(Gate::default()))
    }
}

impl WriteGate {
    /// Lets `n` more writes through, then holds every later one.
    pub(crate) fn close_after(&self, n: u64) {
        self.0.send_modify(|g| g.passes_left = Some(n));
    }

    pub(crate) fn open(&self) {
        self.0.send_modify(|g| {
            g.closed = false;
            g.passes_left = None;
        });
    }

    /// Returns at once while the gate is open; otherwise waits, counted as held, until it opens.
    pub(crate) async fn pass(&self) {
        let mut gate = self.0.subscribe();
        let mut hold = false;
        self.0.send_modify(|g| {
            match g.passes_left {
                Some(0) => {
                    g.closed = true;
                    g.passes_left = None;
                }
                Some(n) => g.passes_left = Some(n - 1),
                None => {}
            }
            hold = g.closed;
            if hold {
                g.held += 1;
            }
        });
        if !hold {
            return;
        }
        let _held = Held(&self.0);
        let _ = gate.wait_for(|g| !g.closed).await;
    }

    /// Returns once at least `n` writes are waiting at the gate.
    pub(crate) async fn wait_for_held(&self, n: u64) {
        let mut gate = self.0.subscribe();
        let _ = gate.wait_for(|g| g.held >= n).await;
    }
}

/// Uncounts a held write when it goes on, or when its connection goes away while it waits.
struct Held<'a>(&'a watch::Sender<Gate>);

impl Drop for Held<'_> {
    fn drop(&mut self) {
        self.0.send_modify(|g| g.held = g.held.saturating_sub(1));
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    fn spawn_writes(gate: &Arc<WriteGate>, n: usize) -> Vec<tokio::task::JoinHandle<()>> {
        (0..n)
            .map(|_| {
                let gate = Arc::clone(gate);
                tokio::spawn(async move { gate.pass().await })
            })
            .collect()
    }

    #[tokio::test]
    async fn a_closed_gate_holds_writes_until_it_opens() {
        let gate = Arc::new(WriteGate::default());
        // Open: passes at once.
        gate.pass().await;
        gate.close_after(0);
        let writes = spawn_writes(&gate, 2);
        gate.wait_for_held(2).await;
        assert!(writes.iter().all(|w| !w.is_finished()));
        gate.open();
        for w in writes {
            w.await.unwrap();
        }
        assert_eq!(gate.0.borrow().held, 0);
        // Open again: passes at once.
        gate.pass().await;
    }

    #[tokio::test]
    async fn close_after_lets_exactly_n_writes_through() {
        let gate = Arc::new(WriteGate::default());
        gate.close_after(2);
        gate.pass().await;
        gate.pass().await;
        let third = spawn_writes(&gate, 1);
        gate.wait_for_held(1).await;
        assert!(!third[0].is_finished());
        gate.open();
        for w in third {
            w.await.unwrap();
        }
    }
}
