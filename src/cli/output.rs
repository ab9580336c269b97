use std::io::Write;

use crate::cli::error::CommandError;

/// Writes to stdout; a closed pipe (`dnscron plan | head`) becomes `ErrorKind::BrokenPipe`,
/// which exits 0 quietly instead of panicking like `println!` would.
pub fn write_stdout(text: &str) -> Result<(), CommandError> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// Text drawn straight to stdout in pieces of [`PIECE`] bytes (`render::plan::text::render_to`),
/// so a plan with tens of thousands of findings is never held whole; [`StdoutSink::finish`]
/// returns the first write error, as [`write_stdout`] would.
pub(crate) struct StdoutSink {
    buf: String,
    out: std::io::StdoutLock<'static>,
    err: Option<std::io::Error>,
}

/// Bytes gathered before a write to stdout.
const PIECE: usize = 64 * 1024;

impl StdoutSink {
    pub(crate) fn lock() -> StdoutSink {
        StdoutSink {
            buf: String::with_capacity(PIECE),
            out: std::io::stdout().lock(),
            err: None,
        }
    }

    fn write_piece(&mut self) {
        if self.err.is_none()
            && let Err(e) = self.out.write_all(self.buf.as_bytes())
        {
            self.err = Some(e);
        }
        self.buf.clear();
    }

    pub(crate) fn finish(mut self) -> Result<(), CommandError> {
        self.write_piece();
        if let Some(e) = self.err.take() {
            return Err(e.into());
        }
        self.out.flush()?;
        Ok(())
    }
}

impl crate::render::plan::text::Sink for StdoutSink {
    fn push_str(&mut self, text: &str) {
        self.buf.push_str(text);
        if self.buf.len() >= PIECE {
            self.write_piece();
        }
    }
}
