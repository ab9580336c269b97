//! Entries → records: owners, TTLs and classes in either order, the directives (`$ORIGIN`,
//! `$TTL`, `$INCLUDE`, `$GENERATE`), each record located at its file and line.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use crate::dns::RecordType;

use super::super::{Held, SourceLine, SourceRecord};
use super::generate;
use super::lexer::{self, Entry, Token};
use super::problem::{Problem, ProblemKind, SyntaxError};
use super::rdata::{self, RdataError, located};
use super::text::absolute;
use super::ttl::parse_ttl;

const CLASSES: [&str; 6] = ["IN", "CH", "CHAOS", "HS", "HESIOD", "CS"];

/// What reading one top-level file gathered, its includes with it.
#[derive(Default)]
pub(super) struct Reader {
    origin: Option<String>,
    /// The first `$ORIGIN` of the top-level file, or its SOA owner: the zone when none is given.
    pub(super) found_origin: Option<String>,
    default_ttl: Option<u32>,
    last_ttl: Option<u32>,
    soa_minimum: Option<u32>,
    last_owner: Option<String>,
    /// Canonical paths of the files being read, outermost first (an include loop is refused).
    reading: Vec<PathBuf>,
    pub(super) records: Vec<SourceRecord>,
    pub(super) errors: Vec<SyntaxError>,
}

impl Reader {
    pub(super) fn new(origin: Option<String>) -> Self {
        Reader {
            origin,
            ..Reader::default()
        }
    }

    /// Reads `text`, the file at `canonical`, shown as `path` (as the user or the including file
    /// named it); problems go to `errors`.
    pub(super) fn read_text(&mut self, canonical: &Path, path: &Path, text: &str) {
        self.reading.push(canonical.to_path_buf());
        let mut problems = Vec::new();
        for entry in lexer::entries(text, &mut problems) {
            if let Err(p) = self.entry(path, &entry) {
                problems.push(p);
            }
        }
        problems.sort_by_key(|p| (p.line, p.col));
        self.errors
            .extend(problems.into_iter().map(|p| SyntaxError {
                file: path.to_path_buf(),
                line: p.line,
                col: p.col,
                kind: p.kind,
            }));
        self.reading.pop();
    }

    fn entry(&mut self, path: &Path, entry: &Entry) -> Result<(), Problem> {
        let first = &entry.tokens[0];
        if !entry.blank_owner && first.text.starts_with('$') && !first.quoted {
            return self.directive(path, entry);
        }
        let owner = if entry.blank_owner {
            self.last_owner
                .clone()
                .ok_or_else(|| Problem::new(entry.line, 1, ProblemKind::NoPreviousOwner))?
        } else {
            absolute(first, self.origin.as_deref()).map_err(|k| located(first, k))?
        };
        let rest = if entry.blank_owner {
            &entry.tokens[..]
        } else {
            &entry.tokens[1..]
        };
        self.last_owner = Some(owner.clone());
        self.record(path, entry.line, owner, rest)
    }

    /// The fields after the owner: `[ttl] [class] type rdata…`, TTL and class in either order.
    fn record(
        &mut self,
        path: &Path,
        line: usize,
        owner: String,
        fields: &[Token],
    ) -> Result<(), Problem> {
        let (mut ttl, mut class) = (None, None);
        let mut rest = fields;
        while let Some((token, after)) = rest.split_first() {
            if ttl.is_none() && token.text.starts_with(|c: char| c.is_ascii_digit()) {
                ttl = Some(parse_ttl(&token.text).ok_or_else(|| {
                    located(
                        token,
                        ProblemKind::BadTtl {
                            text: token.text.clone(),
                        },
                    )
                })?);
            } else if class.is_none() && is_class(&token.text) {
                class = Some(token.text.to_ascii_uppercase());
            } else {
                break;
            }
            rest = after;
        }
        let (type_token, rdata) = rest
            .split_first()
            .ok_or_else(|| Problem::new(line, 1, ProblemKind::MissingType))?;
        let rtype = type_token.text.to_ascii_uppercase();
        if rtype == "SOA" {
            self.soa_minimum = rdata.get(6).and_then(|t| parse_ttl(&t.text));
            if self.found_origin.is_none() && self.reading.len() == 1 {
                self.found_origin = Some(owner.clone());
            }
        }
        let ttl = match ttl {
            Some(ttl) => {
                self.last_ttl = Some(ttl);
                ttl
            }
            None => self
                .default_ttl
                .or(self.last_ttl)
                .or(self.soa_minimum)
                .ok_or_else(|| Problem::new(line, 1, ProblemKind::NoTtl))?,
        };
        let content = match RecordType::from_str(&rtype) {
            Ok(known) => match rdata::content(known, type_token, rdata, self.origin.as_deref()) {
                Ok(content) => Held::Content(content),
                Err(RdataError::NotText) => Held::NotText,
                Err(RdataError::Syntax(p)) => return Err(p),
            },
            Err(_) => Held::OtherType,
        };
        self.records.push(SourceRecord {
            at: SourceLine {
                file: path.to_path_buf(),
                line,
            },
            owner,
            class: class.unwrap_or_else(|| "IN".into()),
            rtype,
            ttl,
            rdata: as_written(rdata),
            content,
        });
        Ok(())
    }

    fn directive(&mut self, path: &Path, entry: &Entry) -> Result<(), Problem> {
        let name = entry.tokens[0].text.to_ascii_uppercase();
        let args = &entry.tokens[1..];
        let wrong = |directive: &'static str, want: &'static str| {
            Problem::new(
                entry.line,
                1,
                ProblemKind::DirectiveArguments { directive, want },
            )
        };
        match name.as_str() {
            "$ORIGIN" => {
                let [origin] = args else {
                    return Err(wrong("$ORIGIN", "one domain name"));
                };
                let origin =
                    absolute(origin, self.origin.as_deref()).map_err(|k| located(origin, k))?;
                if self.found_origin.is_none() && self.reading.len() == 1 {
                    self.found_origin = Some(origin.clone());
                }
                self.origin = Some(origin);
                Ok(())
            }
            "$TTL" => {
                let [ttl] = args else {
                    return Err(wrong("$TTL", "one TTL"));
                };
                self.default_ttl = Some(parse_ttl(&ttl.text).ok_or_else(|| {
                    located(
                        ttl,
                        ProblemKind::BadTtl {
                            text: ttl.text.clone(),
                        },
                    )
                })?);
                Ok(())
            }
            "$INCLUDE" => match args {
                [file] => self.include(path, file, None),
                [file, origin] => self.include(path, file, Some(origin)),
                _ => Err(wrong("$INCLUDE", "a file name and optionally an origin")),
            },
            "$GENERATE" => {
                if args.len() < 4 {
                    return Err(wrong("$GENERATE", "a range, an owner, a type and its data"));
                }
                self.generate(path, entry.line, args)
            }
            _ => Err(located(
                &entry.tokens[0],
                ProblemKind::UnknownDirective {
                    name: entry.tokens[0].text.clone(),
                },
            )),
        }
    }

    /// A file in the including file's folder (symlinks resolved), read with the origin given
    /// or the current one; the origin and owner are restored after it (RFC 1035 §5.1).
    fn include(
        &mut self,
        path: &Path,
        file: &Token,
        origin: Option<&Token>,
    ) -> Result<(), Problem> {
        let canonical_folder = self
            .reading
            .last()
            .and_then(|p| p.parent())
            .unwrap_or(Path::new("/"))
            .to_path_buf();
        let shown = path.parent().unwrap_or(Path::new("")).join(&file.text);
        let named = canonical_folder.join(&file.text);
        let unreadable = |reason: String| {
            located(
                file,
                ProblemKind::IncludeUnreadable {
                    path: shown.clone(),
                    reason,
                },
            )
        };
        let target = named
            .canonicalize()
            .map_err(|e| unreadable(e.to_string()))?;
        if !target.starts_with(&canonical_folder) {
            return Err(located(
                file,
                ProblemKind::IncludeOutside {
                    path: shown,
                    folder: path.parent().unwrap_or(Path::new("")).to_path_buf(),
                },
            ));
        }
        if self.reading.contains(&target) {
            return Err(located(file, ProblemKind::IncludeLoop { path: shown }));
        }
        let bytes = std::fs::read(&target).map_err(|e| unreadable(e.to_string()))?;
        let text = String::from_utf8(bytes).map_err(|_| located(file, ProblemKind::NotUtf8))?;
        let new_origin = match origin {
            Some(o) => Some(absolute(o, self.origin.as_deref()).map_err(|k| located(o, k))?),
            None => self.origin.clone(),
        };
        let saved = (
            std::mem::replace(&mut self.origin, new_origin),
            self.last_owner.take(),
        );
        self.read_text(&target, &shown, &text);
        (self.origin, self.last_owner) = saved;
        Ok(())
    }

    fn generate(&mut self, path: &Path, line: usize, args: &[Token]) -> Result<(), Problem> {
        let problem = |t: &Token, reason: String| located(t, ProblemKind::Generate { reason });
        let (start, stop, step) =
            generate::range(&args[0].text).map_err(|r| problem(&args[0], r))?;
        let (lhs, middle, rhs) = (&args[1], &args[2..args.len() - 1], &args[args.len() - 1]);
        let mut value = start;
        while value <= stop {
            let owner_text = generate::substitute(&lhs.text, value).map_err(|r| problem(lhs, r))?;
            let rhs_text = generate::substitute(&rhs.text, value).map_err(|r| problem(rhs, r))?;
            let owner = absolute(
                &Token {
                    text: owner_text,
                    ..lhs.clone()
                },
                self.origin.as_deref(),
            )
            .map_err(|k| located(lhs, k))?;
            let mut fields = middle.to_vec();
            fields.extend(rdata_tokens(rhs, &rhs_text)?);
            self.record(path, line, owner, &fields)?;
            value += step;
        }
        Ok(())
    }
}

/// BIND reads a `$GENERATE` rhs, quotes and all, as one field, substitutes it, then reads the
/// result as the record's data: `"costs \$$"` becomes the two strings `costs` and `$1`.
fn rdata_tokens(rhs: &Token, substituted: &str) -> Result<Vec<Token>, Problem> {
    let mut problems = Vec::new();
    let entries = lexer::entries(&format!(" {substituted}"), &mut problems);
    if let Some(p) = problems.into_iter().next() {
        return Err(located(rhs, p.kind));
    }
    Ok(entries
        .into_iter()
        .flat_map(|e| e.tokens)
        .map(|t| Token {
            line: rhs.line,
            col: rhs.col,
            ..t
        })
        .collect())
}

/// The tokens as written, quotes kept, one space apart (built in place: one allocation per
/// record, not one per token).
fn as_written(tokens: &[Token]) -> String {
    let mut out = String::with_capacity(tokens.iter().map(|t| t.text.len() + 3).sum());
    for (i, token) in tokens.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        if token.quoted {
            out.push('"');
            out.push_str(&token.text);
            out.push('"');
        } else {
            out.push_str(&token.text);
        }
    }
    out
}

fn is_class(text: &str) -> bool {
    CLASSES.iter().any(|c| c.eq_ignore_ascii_case(text))
        || text
            .get(..5)
            .is_some_and(|p| p.eq_ignore_ascii_case("CLASS"))
            && text[5..].bytes().all(|b| b.is_ascii_digit())
            && text.len() > 5
}
