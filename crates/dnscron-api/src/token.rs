//! The API token: read from `DNSCRON_TOKEN` or a token file, never printed.

use std::fmt;
use std::path::{Path, PathBuf};

/// Environment variable the token is read from when no token file is given.
pub const TOKEN_ENV: &str = "DNSCRON_TOKEN";

/// A bearer token. `Debug` and `Display` print `[REDACTED]`; the value only leaves this type
/// as a sensitive header value (see `core`), so it can't end up in a log line or an error.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    #[error("no API token: {TOKEN_ENV} is not set and no token file was given")]
    Missing,
    /// An account of a repository names a variable (`token_env`) that is not set.
    #[error("no API token: {name} is not set")]
    MissingVar { name: String },
    #[error(
        "the API token from {source_name} is empty: put the token there, or use the other source"
    )]
    Empty { source_name: String },
    #[error(
        "the API token from {source_name} contains a character that can't go in an HTTP header \
         (a space, a control character or non-ASCII): check the token you pasted"
    )]
    InvalidCharacter { source_name: String },
    #[error("cannot read the token file {}: {source}", path.display())]
    File {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl Token {
    /// Validates a token given directly (tests, the in-process demo). One trailing newline is
    /// removed; an empty token or one with spaces or control characters is refused.
    pub fn new(value: impl Into<String>) -> Result<Token, TokenError> {
        Self::from_source(value.into(), "the caller")
    }

    /// The CLI rule: the token file when one is given, else `DNSCRON_TOKEN`.
    pub fn load(token_file: Option<&Path>) -> Result<Token, TokenError> {
        match token_file {
            Some(path) => Self::from_file(path),
            None => Self::from_env(),
        }
    }

    pub(crate) fn from_env() -> Result<Token, TokenError> {
        Self::from_env_var(TOKEN_ENV)
    }

    /// The token in environment variable `name` (an account's `token_env`).
    pub fn from_env_var(name: &str) -> Result<Token, TokenError> {
        match std::env::var_os(name) {
            None if name == TOKEN_ENV => Err(TokenError::Missing),
            None => Err(TokenError::MissingVar { name: name.into() }),
            Some(value) => match value.into_string() {
                Ok(value) => Self::from_source(value, name),
                Err(_) => Err(TokenError::InvalidCharacter {
                    source_name: name.into(),
                }),
            },
        }
    }

    pub fn from_file(path: &Path) -> Result<Token, TokenError> {
        let bytes = std::fs::read(path).map_err(|source| TokenError::File {
            path: path.to_path_buf(),
            source,
        })?;
        let source_name = format!("the token file {}", path.display());
        match String::from_utf8(bytes) {
            Ok(value) => Self::from_source(value, &source_name),
            Err(_) => Err(TokenError::InvalidCharacter { source_name }),
        }
    }

    fn from_source(mut value: String, source_name: &str) -> Result<Token, TokenError> {
        if value.ends_with('\n') {
            value.pop();
            if value.ends_with('\r') {
                value.pop();
            }
        }
        if value.is_empty() {
            return Err(TokenError::Empty {
                source_name: source_name.into(),
            });
        }
        if !value.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(TokenError::InvalidCharacter {
                source_name: source_name.into(),
            });
        }
        Ok(Token(value))
    }

    /// Whether `other` is the same secret: compared as SHA-256 digests, every byte, so the time
    /// taken says nothing about how much of the two tokens agrees (two accounts found to hold
    /// one token are refused, and neither token is ever shown).
    pub fn same_secret(&self, other: &Token) -> bool {
        use sha2::{Digest, Sha256};
        let (a, b) = (Sha256::digest(&self.0), Sha256::digest(&other.0));
        a.iter()
            .zip(b.iter())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
    }

    /// The `Authorization` header value, marked sensitive so `http`'s own `Debug` hides it.
    pub(super) fn authorization(&self) -> reqwest::header::HeaderValue {
        // from_source admits only visible ASCII, which is always a valid header value.
        let mut value = reqwest::header::HeaderValue::from_str(&format!("Bearer {}", self.0))
            .unwrap_or_else(|_| reqwest::header::HeaderValue::from_static("Bearer invalid"));
        value.set_sensitive(true);
        value
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[REDACTED]")
    }
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[REDACTED]")
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn same_secret_compares_the_tokens_not_their_sources() {
        let a = Token::new("tok-acme").unwrap();
        assert!(a.same_secret(&Token::new("tok-acme\n").unwrap()));
        assert!(!a.same_secret(&Token::new("tok-acmf").unwrap()));
        assert!(!a.same_secret(&Token::new("tok-acme2").unwrap()));
    }

    #[test]
    fn trims_exactly_one_trailing_newline() {
        let t = Token::new("abc\n").unwrap();
        assert_eq!(t.0, "abc");
        let t = Token::new("abc\r\n").unwrap();
        assert_eq!(t.0, "abc");
        assert!(matches!(
            Token::new("abc\n\n"),
            Err(TokenError::InvalidCharacter { .. })
        ));
    }

    #[test]
    fn refuses_empty_and_whitespace() {
        assert!(matches!(Token::new(""), Err(TokenError::Empty { .. })));
        assert!(matches!(Token::new("\n"), Err(TokenError::Empty { .. })));
        assert!(matches!(
            Token::new("a b"),
            Err(TokenError::InvalidCharacter { .. })
        ));
        assert!(matches!(
            Token::new("tökén"),
            Err(TokenError::InvalidCharacter { .. })
        ));
    }

    #[test]
    fn debug_and_display_redact() {
        let t = Token::new("tok_SECRET123").unwrap();
        assert_eq!(format!("{t:?}"), "[REDACTED]");
        assert_eq!(format!("{t}"), "[REDACTED]");
        assert!(!format!("{:?}", t.authorization()).contains("SECRET"));
    }

    #[test]
    fn file_errors_name_the_path_and_file_tokens_load() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope.txt");
        let err = Token::from_file(&missing).unwrap_err();
        assert!(err.to_string().contains("nope.txt"), "{err}");

        let file = dir.path().join("token");
        std::fs::write(&file, "tok_file\n").unwrap();
        assert_eq!(Token::load(Some(&file)).unwrap().0, "tok_file");

        std::fs::write(&file, "\n").unwrap();
        let err = Token::from_file(&file).unwrap_err();
        assert!(err.to_string().contains("is empty"), "{err}");
        assert!(err.to_string().contains("token"), "{err}");
    }
}
