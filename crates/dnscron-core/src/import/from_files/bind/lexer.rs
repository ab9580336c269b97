//! RFC 1035 §5.1 master-file lexing: physical lines → entries (one record or directive each).
//!
//! Parentheses join lines into one entry, `;` starts a comment, a line that begins with
//! white space has a blank owner. Escapes (`\X`, `\DDD`) are kept as written in a token's text:
//! a name and a character-string resolve them differently. Every problem is collected with its
//! line and column so a file's mistakes are reported together.

use super::problem::{Problem, ProblemKind};

/// One word or quoted string, its escapes unresolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Token {
    pub(super) text: String,
    pub(super) quoted: bool,
    pub(super) line: usize,
    pub(super) col: usize,
}

/// The tokens of one logical line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Entry {
    pub(super) line: usize,
    /// The line began with white space: the owner is the previous entry's.
    pub(super) blank_owner: bool,
    pub(super) tokens: Vec<Token>,
}

struct Cursor<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    line: usize,
    col: usize,
}

impl Cursor<'_> {
    fn next(&mut self) -> Option<char> {
        let c = self.chars.next()?;
        if c == '\n' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        Some(c)
    }

    fn peek(&mut self) -> Option<char> {
        self.chars.peek().copied()
    }
}

/// Splits `text` into entries; problems (an unclosed quote or parenthesis, a stray `)`) are
/// pushed to `problems` and lexing goes on.
pub(super) fn entries(text: &str, problems: &mut Vec<Problem>) -> Vec<Entry> {
    let mut cur = Cursor {
        chars: text.chars().peekable(),
        line: 1,
        col: 1,
    };
    let mut out = Vec::new();
    let mut entry: Option<Entry> = None;
    let mut open_parens: Vec<(usize, usize)> = Vec::new();
    let mut at_line_start = true;
    while let Some(c) = cur.peek() {
        let (line, col) = (cur.line, cur.col);
        if at_line_start && open_parens.is_empty() {
            at_line_start = false;
            if let Some(done) = entry.take().filter(|e| !e.tokens.is_empty()) {
                out.push(done);
            }
            entry = Some(Entry {
                line,
                blank_owner: c == ' ' || c == '\t',
                tokens: Vec::new(),
            });
        }
        match c {
            '\n' => {
                cur.next();
                at_line_start = true;
            }
            ' ' | '\t' | '\r' => {
                cur.next();
            }
            ';' => skip_comment(&mut cur),
            '(' => {
                cur.next();
                open_parens.push((line, col));
            }
            ')' => {
                cur.next();
                if open_parens.pop().is_none() {
                    problems.push(Problem::new(line, col, ProblemKind::StrayCloseParen));
                }
            }
            '"' => {
                let token = quoted(&mut cur, problems);
                push_token(&mut entry, token);
            }
            _ => {
                let token = word(&mut cur);
                push_token(&mut entry, token);
            }
        }
    }
    if let Some(&(line, col)) = open_parens.first() {
        problems.push(Problem::new(line, col, ProblemKind::UnclosedParen));
    }
    if let Some(done) = entry.filter(|e| !e.tokens.is_empty()) {
        out.push(done);
    }
    out
}

fn push_token(entry: &mut Option<Entry>, token: Token) {
    if let Some(e) = entry.as_mut() {
        e.tokens.push(token);
    }
}

fn skip_comment(cur: &mut Cursor<'_>) {
    while let Some(c) = cur.peek() {
        if c == '\n' {
            break;
        }
        cur.next();
    }
}

/// A `"…"` string; a newline before the closing quote is a problem (the string ends there).
fn quoted(cur: &mut Cursor<'_>, problems: &mut Vec<Problem>) -> Token {
    let (line, col) = (cur.line, cur.col);
    cur.next();
    let mut text = String::new();
    loop {
        match cur.peek() {
            None | Some('\n') => {
                problems.push(Problem::new(line, col, ProblemKind::UnclosedQuote));
                break;
            }
            Some('"') => {
                cur.next();
                break;
            }
            Some('\\') => {
                cur.next();
                text.push('\\');
                if let Some(escaped) = cur.peek().filter(|&e| e != '\n') {
                    cur.next();
                    text.push(escaped);
                }
            }
            Some(c) => {
                cur.next();
                text.push(c);
            }
        }
    }
    Token {
        text,
        quoted: true,
        line,
        col,
    }
}

fn word(cur: &mut Cursor<'_>) -> Token {
    let (line, col) = (cur.line, cur.col);
    let mut text = String::new();
    while let Some(c) = cur.peek() {
        match c {
            ' ' | '\t' | '\r' | '\n' | ';' | '(' | ')' | '"' => break,
            '\\' => {
                cur.next();
                text.push('\\');
                if let Some(escaped) = cur.peek().filter(|&e| e != '\n') {
                    cur.next();
                    text.push(escaped);
                }
            }
            _ => {
                cur.next();
                text.push(c);
            }
        }
    }
    Token {
        text,
        quoted: false,
        line,
        col,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// An entry as its line, whether its owner is blank, and its tokens' texts.
    type Lexed = (usize, bool, Vec<String>);

    fn words(text: &str) -> (Vec<Lexed>, Vec<Problem>) {
        let mut problems = Vec::new();
        let got = entries(text, &mut problems)
            .into_iter()
            .map(|e| {
                (
                    e.line,
                    e.blank_owner,
                    e.tokens.into_iter().map(|t| t.text).collect(),
                )
            })
            .collect();
        (got, problems)
    }

    #[test]
    fn parentheses_join_lines_and_comments_vanish() {
        let (got, problems) = words(
            "@ SOA ns host ( 1 ; serial\n  2 3\n 4 5 )\n\twww A 192.0.2.1 ; c\n; only a comment\n",
        );
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(
            got,
            [
                (
                    1,
                    false,
                    ["@", "SOA", "ns", "host", "1", "2", "3", "4", "5"]
                        .map(String::from)
                        .to_vec()
                ),
                (
                    4,
                    true,
                    ["www", "A", "192.0.2.1"].map(String::from).to_vec()
                ),
            ]
        );
    }

    #[test]
    fn quotes_and_escapes_are_kept_as_written() {
        let (got, problems) = words("t TXT \"a \\\" ; b\" c\\;d \\059\n");
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(got[0].2, ["t", "TXT", "a \\\" ; b", "c\\;d", "\\059"]);
    }

    #[test]
    fn every_unbalanced_quote_and_parenthesis_is_located() {
        let (_, problems) = words("a TXT \"open\nb A 1 )\nc SOA ( x\n");
        let at: Vec<(usize, usize, ProblemKind)> = problems
            .into_iter()
            .map(|p| (p.line, p.col, p.kind))
            .collect();
        assert_eq!(
            at,
            [
                (1, 7, ProblemKind::UnclosedQuote),
                (2, 7, ProblemKind::StrayCloseParen),
                (3, 7, ProblemKind::UnclosedParen),
            ]
        );
    }
}
