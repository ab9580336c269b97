//! One controller per state file: two would each apply revisions from the same converged one
//! and overwrite each other's state. A lock file beside the state file, locked with the
//! operating system's advisory lock (`flock`), which the kernel releases when the process ends
//! however it ends (a crash, SIGKILL, an OOM kill), so no stale lock ever blocks a restart. The
//! holder writes its pid and host into it, so the second one can say who holds it.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

use dnscron_api::untrusted::escape;

/// The lock file's text is one short line; a larger file is not read further.
const MAX_HOLDER: u64 = 1024;

/// Held while the controller runs; dropping it releases the lock.
#[derive(Debug)]
pub struct StateLock {
    _file: File,
    path: PathBuf,
}

#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another process holds the lock: `holder` is what it wrote (`pid N on host H`), escaped.
    #[error("another controller holds the lock {} ({holder})", path.display())]
    Held { path: PathBuf, holder: String },
    #[error("cannot lock {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl StateLock {
    /// The lock of `state_file` (`FILE.lock` beside it), taken now or refused.
    pub fn acquire(state_file: &Path) -> Result<StateLock, LockError> {
        let path = lock_path(state_file);
        let io = |source| LockError::Io {
            path: path.clone(),
            source,
        };
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                return Err(LockError::Held {
                    holder: holder(&mut file),
                    path,
                });
            }
            Err(TryLockError::Error(source)) => return Err(io(source)),
        }
        let line = format!("pid {} on host {}\n", std::process::id(), hostname());
        file.set_len(0).map_err(io)?;
        file.rewind().map_err(io)?;
        file.write_all(line.as_bytes()).map_err(io)?;
        file.sync_all().map_err(io)?;
        Ok(StateLock { _file: file, path })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// `FILE.lock`, beside the state file.
pub(crate) fn lock_path(state_file: &Path) -> PathBuf {
    let mut name = state_file.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// What the holder wrote, on one line and escaped (another process wrote it).
fn holder(file: &mut File) -> String {
    let mut text = String::new();
    let read = file
        .take(MAX_HOLDER)
        .read_to_string(&mut text)
        .map(|_| text.lines().next().unwrap_or("").trim().to_string());
    match read {
        Ok(line) if !line.is_empty() => escape(&line).to_string(),
        Ok(_) | Err(_) => "its pid and host not written yet".to_string(),
    }
}

/// The host's name as Kubernetes sets it (the pod's name), without a system call.
fn hostname() -> String {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|n| n.trim().to_string())
        .filter(|n| !n.is_empty());
    escape(name.as_deref().unwrap_or("unknown")).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_names_the_holder_and_the_lock_frees_when_dropped() {
        let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let state = tmp.path().join("controller.json");
        let first = StateLock::acquire(&state).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(first.path(), tmp.path().join("controller.json.lock"));
        let refused = match StateLock::acquire(&state) {
            Err(error) => error.to_string(),
            Ok(_) => panic!("locked twice"),
        };
        let expected = format!(
            "another controller holds the lock {} (pid {} on host {})",
            first.path().display(),
            std::process::id(),
            hostname()
        );
        assert_eq!(refused, expected);
        drop(first);
        // Released: the next controller takes it (a crashed holder's is released the same way,
        // by the kernel).
        assert!(StateLock::acquire(&state).is_ok());
    }

    #[test]
    fn a_lock_in_a_folder_that_does_not_exist_is_an_error_naming_it() {
        let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let state = tmp.path().join("missing/controller.json");
        match StateLock::acquire(&state) {
            Err(LockError::Io { path, .. }) => assert_eq!(path, lock_path(&state)),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_lock_file_left_by_a_dead_process_is_taken_over() {
        // A crashed holder leaves its file and its line, but no lock: the kernel released it.
        let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let state = tmp.path().join("controller.json");
        std::fs::write(
            lock_path(&state),
            "pid 999999 on host gone-pod-7f9c\nmore junk\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let lock = StateLock::acquire(&state).unwrap_or_else(|e| panic!("{e}"));
        let text = std::fs::read_to_string(lock.path()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            text,
            format!("pid {} on host {}\n", std::process::id(), hostname())
        );
    }

    #[test]
    fn a_holders_line_is_escaped_and_a_lock_file_with_none_yet_says_so() {
        let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let state = tmp.path().join("controller.json");
        let held = StateLock::acquire(&state).unwrap_or_else(|e| panic!("{e}"));
        // Another process's text, with a terminal escape in it.
        std::fs::write(held.path(), "pid 1 on host \u{1b}[31mred\n")
            .unwrap_or_else(|e| panic!("{e}"));
        let refused = |state: &Path| match StateLock::acquire(state) {
            Err(LockError::Held { holder, .. }) => holder,
            other => panic!("{other:?}"),
        };
        let holder = refused(&state);
        assert!(!holder.contains('\u{1b}'), "{holder}");
        assert!(holder.starts_with("pid 1 on host "), "{holder}");
        // Locked, but its line not written yet (or emptied).
        std::fs::write(held.path(), "").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(refused(&state), "its pid and host not written yet");
    }

    #[test]
    fn a_lock_path_that_cannot_be_opened_is_an_error_naming_it() {
        let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let state = tmp.path().join("controller.json");
        // A directory where the lock file goes: unreadable as a file, whoever runs the test.
        std::fs::create_dir(lock_path(&state)).unwrap_or_else(|e| panic!("{e}"));
        match StateLock::acquire(&state) {
            Err(error @ LockError::Io { .. }) => {
                assert!(
                    error
                        .to_string()
                        .starts_with(&format!("cannot lock {}: ", lock_path(&state).display())),
                    "{error}"
                );
            }
            other => panic!("{other:?}"),
        }
    }
}
