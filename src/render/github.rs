//! GitHub Actions workflow commands (`::error file=…,line=…,col=…::message`), for
//! `--format github`: annotations on the pull request's files and in the run summary.
//!
//! Escaping follows GitHub's toolkit (`@actions/core` command.ts): in the message `%`, `\r`,
//! `\n` become `%25`, `%0D`, `%0A`; in property values also `:` → `%3A` and `,` → `%2C`. Other
//! control characters are escaped by [`dnscron_api::untrusted`]'s rule.

use std::fmt::Write as _;

/// GitHub shows only a handful of annotations per step; beyond this many of one kind, a
/// `::notice` line counts the rest.
pub(crate) const MAX_PER_KIND: usize = 10;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Level {
    Error,
    Warning,
    Notice,
}

impl Level {
    fn command(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Notice => "notice",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Annotation {
    pub level: Level,
    /// Path as GitHub should match it against the repository (relative to the checkout).
    pub file: Option<String>,
    pub line: Option<usize>,
    pub col: Option<usize>,
    pub title: Option<String>,
    pub message: String,
}

impl Annotation {
    pub(crate) fn new(level: Level, message: impl Into<String>) -> Annotation {
        Annotation {
            level,
            file: None,
            line: None,
            col: None,
            title: None,
            message: message.into(),
        }
    }

    pub(crate) fn title(mut self, title: impl Into<String>) -> Annotation {
        self.title = Some(title.into());
        self
    }

    /// Places the annotation at a `file:line:col` as `Location` displays it; a string that
    /// doesn't end in two numbers is taken as a file name alone.
    pub(crate) fn at(mut self, location: &str) -> Annotation {
        let mut parts = location.rsplitn(3, ':');
        let (col, line, file) = (parts.next(), parts.next(), parts.next());
        let numbered = file.zip(line.and_then(|l| l.parse().ok()));
        match numbered.zip(col.and_then(|c| c.parse().ok())) {
            Some(((file, line), col)) => {
                self.file = Some(repo_path(file));
                self.line = Some(line);
                self.col = Some(col);
            }
            None => self.file = Some(repo_path(location)),
        }
        self
    }

    /// The workflow command line (with its newline).
    pub(crate) fn render(&self) -> String {
        let mut props = Vec::new();
        if let Some(f) = &self.file {
            props.push(format!("file={}", escape_property(f)));
        }
        if let Some(l) = self.line {
            props.push(format!("line={l}"));
        }
        if let Some(c) = self.col {
            props.push(format!("col={c}"));
        }
        if let Some(t) = &self.title {
            props.push(format!("title={}", escape_property(t)));
        }
        let props = if props.is_empty() {
            String::new()
        } else {
            format!(" {}", props.join(","))
        };
        format!(
            "::{}{props}::{}\n",
            self.level.command(),
            escape_data(&self.message)
        )
    }
}

/// GitHub matches annotation paths against the checkout; `./dns/x.yaml` (from `plan .`) is
/// written `dns/x.yaml`.
fn repo_path(path: &str) -> String {
    let mut p = path;
    while let Some(rest) = p.strip_prefix("./") {
        p = rest;
    }
    p.to_string()
}

/// GitHub's encoding of `%`, `\r`, `\n`; any other unsafe character (ESC, bidi controls …) is
/// escaped as everywhere else ([`dnscron_api::untrusted`]), so an annotation shows it without acting.
pub(crate) fn escape_data(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            c if dnscron_api::untrusted::is_unsafe_char(c) => {
                out.push_str(&dnscron_api::untrusted::escape_char(c));
            }
            c => out.push(c),
        }
    }
    out
}

pub(crate) fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// The first [`MAX_PER_KIND`] annotations, then `::notice::…and N more <kind>` for the rest.
pub(crate) fn render_capped(annotations: &[Annotation], kind: &str) -> String {
    let mut out = String::new();
    for a in annotations.iter().take(MAX_PER_KIND) {
        out.push_str(&a.render());
    }
    let rest = annotations.len().saturating_sub(MAX_PER_KIND);
    if rest > 0 {
        let _ = write!(
            out,
            "{}",
            Annotation::new(Level::Notice, format!("…and {rest} more {kind}")).render()
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_data_and_properties() {
        assert_eq!(escape_data("100% a\r\nb"), "100%25 a%0D%0Ab");
        assert_eq!(escape_data("\u{1b}[2J\u{202e}x"), "\\u{1b}[2J\\u{202e}x");
        assert_eq!(escape_property("a:b,c%"), "a%3Ab%2Cc%25");
        let a = Annotation::new(Level::Error, "bad: x,y\nz")
            .at("dns/zones/a,b.yaml:12:7")
            .title("dnscron: validate");
        assert_eq!(
            a.render(),
            "::error file=dns/zones/a%2Cb.yaml,line=12,col=7,title=dnscron%3A validate::bad: x,y%0Az\n"
        );
        assert_eq!(
            Annotation::new(Level::Notice, "n").render(),
            "::notice::n\n"
        );
        assert_eq!(
            Annotation::new(Level::Warning, "w").at("plain").render(),
            "::warning file=plain::w\n"
        );
        assert_eq!(
            Annotation::new(Level::Notice, "n")
                .at("./dns/a.yaml:3:1")
                .file
                .as_deref(),
            Some("dns/a.yaml")
        );
    }

    #[test]
    fn caps_each_kind_at_ten() {
        let many: Vec<Annotation> = (0..13)
            .map(|i| Annotation::new(Level::Error, format!("e{i}")))
            .collect();
        let out = render_capped(&many, "validation errors");
        assert_eq!(out.lines().count(), 11);
        assert!(
            out.ends_with("::notice::…and 3 more validation errors\n"),
            "{out}"
        );
        assert_eq!(render_capped(&many[..10], "x").lines().count(), 10);
    }
}
