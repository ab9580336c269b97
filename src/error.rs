//! The one user-facing error type. Library modules have their own `thiserror` enums; commands
//! turn them into a [`CommandError`] with a kind, which alone decides the exit code.

use std::fmt;

/// What a command reports when it did not fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Exit 0.
    Success,
    /// Exit 2: changes are present and `--detailed-exitcode` was given (drift detection).
    ChangesPresent,
    /// Exit 3: apply stopped at a change a human has to make in the portal.
    NeedsHumanStep,
}

impl Outcome {
    pub fn exit_code(self) -> u8 {
        match self {
            Outcome::Success => 0,
            Outcome::ChangesPresent => 2,
            Outcome::NeedsHumanStep => 3,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// Bad flags, a missing token, a missing file: the user can fix it.
    User,
    /// The desired-state files are invalid.
    Config,
    /// The API answered with an error or could not be reached.
    Api,
    /// A saved plan no longer matches the live state.
    Stale,
    /// The details were already printed (e.g. every validation error); print nothing more.
    AlreadyReported,
    /// stdout was closed by the reader (`dnscron plan | head`): not a failure.
    BrokenPipe,
    /// A bug in dnscron.
    Internal,
}

#[derive(Debug)]
pub struct CommandError {
    pub kind: ErrorKind,
    pub message: String,
    /// What to do about it; printed as `hint: …` lines.
    pub hints: Vec<String>,
}

impl CommandError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        CommandError {
            kind,
            message: message.into(),
            hints: Vec::new(),
        }
    }

    pub fn user(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::User, message)
    }

    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Internal, message)
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hints.push(hint.into());
        self
    }

    pub fn exit_code(&self) -> u8 {
        match self.kind {
            ErrorKind::BrokenPipe => 0,
            _ => 1,
        }
    }
}

impl fmt::Display for CommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error: {}", self.message)?;
        for hint in &self.hints {
            write!(f, "\nhint: {hint}")?;
        }
        Ok(())
    }
}

impl std::error::Error for CommandError {}

impl From<std::io::Error> for CommandError {
    fn from(err: std::io::Error) -> Self {
        if err.kind() == std::io::ErrorKind::BrokenPipe {
            CommandError::new(ErrorKind::BrokenPipe, "broken pipe")
        } else {
            CommandError::new(ErrorKind::User, err.to_string())
        }
    }
}

pub type CommandResult = Result<Outcome, CommandError>;
