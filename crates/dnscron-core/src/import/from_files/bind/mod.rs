//! BIND zone files (RFC 1035 §5 master files, RFC 2308 `$TTL`, BIND's `$GENERATE`) → located
//! records.
//!
//! Hand-written rather than hickory-proto's `serialize::txt::Parser`: that parser stops at the
//! first error, keeps no line numbers (a record it can't import could not be named by its
//! place), has no `$GENERATE`, and reads `$INCLUDE` anywhere on the disk. Here every problem of
//! a file is collected with its line and column, every record keeps its file and line, and an
//! `$INCLUDE` must stay inside the folder of the file that names it.

mod generate;
mod ignore;
mod lexer;
mod problem;
mod rdata;
mod reader;
mod text;
mod ttl;

use std::path::{Path, PathBuf};

use crate::dns::ZoneName;

pub(crate) use ignore::IGNORE_COMMENT;
pub use problem::{ProblemKind, SyntaxError};

use super::SourceZone;
use reader::Reader;

#[derive(Debug, thiserror::Error)]
pub enum BindError {
    #[error("reading {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Every problem of the file and its includes, in order.
    #[error("{} has {} problem{}", path.display(), errors.len(), if errors.len() == 1 { "" } else { "s" })]
    Syntax {
        path: PathBuf,
        errors: Vec<SyntaxError>,
    },
    /// Neither an origin was given nor does the file have an `$ORIGIN` or an SOA record.
    #[error("{} names no zone: it has no $ORIGIN and no SOA record", path.display())]
    NoOrigin { path: PathBuf },
    #[error("{}: the zone `{origin}` is not a domain name that can be imported: {reason}", path.display())]
    BadZone {
        path: PathBuf,
        origin: String,
        reason: String,
    },
}

/// BIND's reader: a zone file and what it includes is one zone. `origin` is the zone's name
/// when the caller knows it; otherwise the file's first `$ORIGIN`, else its SOA owner.
pub struct Bind {
    pub origin: Option<ZoneName>,
}

impl super::Reader for Bind {
    type Error = BindError;

    fn zones(&self, file: &Path) -> Result<Vec<SourceZone>, BindError> {
        read_zone(file, self.origin.as_ref()).map(|zone| vec![zone])
    }
}

/// Reads the zone file `path` and what it includes.
fn read_zone(path: &Path, origin: Option<&ZoneName>) -> Result<SourceZone, BindError> {
    let read_error = |source| BindError::Read {
        path: path.to_path_buf(),
        source,
    };
    let canonical = path.canonicalize().map_err(read_error)?;
    let bytes = std::fs::read(&canonical).map_err(read_error)?;
    let given = origin.map(|z| format!("{}.", z.as_str()));
    let mut reader = Reader::new(given.clone());
    let mut rules = Vec::new();
    match String::from_utf8(bytes) {
        Ok(text) => {
            reader.read_text(&canonical, path, &text);
            rules = ignore::comment_rules(path, &text, &mut reader.errors);
        }
        Err(_) => reader.errors.push(SyntaxError {
            file: path.to_path_buf(),
            line: 1,
            col: 1,
            kind: ProblemKind::NotUtf8,
        }),
    }
    let Some(zone_text) = given.or(reader.found_origin.clone()) else {
        return Err(BindError::NoOrigin {
            path: path.to_path_buf(),
        });
    };
    if !reader.errors.is_empty() {
        return Err(BindError::Syntax {
            path: path.to_path_buf(),
            errors: reader.errors,
        });
    }
    let zone =
        ZoneName::parse(zone_text.trim_end_matches('.')).map_err(|e| BindError::BadZone {
            path: path.to_path_buf(),
            origin: zone_text.clone(),
            reason: e.to_string(),
        })?;
    let mut zone = SourceZone::new(path, zone, reader.records);
    let errors = ignore::refuse_declared(path, &zone, &rules);
    if !errors.is_empty() {
        return Err(BindError::Syntax {
            path: path.to_path_buf(),
            errors,
        });
    }
    zone.rules = rules.into_iter().map(|r| r.rule).collect();
    Ok(zone)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::dns::RecordType;
    use crate::import::from_files::{FromFile, Why};

    fn read_bind(path: &Path, origin: Option<&ZoneName>) -> Result<FromFile, BindError> {
        let bind = Bind {
            origin: origin.cloned(),
        };
        let mut zones = crate::import::from_files::read(&bind, path)?;
        assert_eq!(zones.len(), 1);
        Ok(zones.remove(0))
    }

    fn read(text: &str, origin: Option<&str>) -> Result<FromFile, BindError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("z.db");
        std::fs::write(&path, text).unwrap();
        let origin = origin.map(|o| ZoneName::parse(o).unwrap());
        read_bind(&path, origin.as_ref())
    }

    fn kinds(err: BindError) -> Vec<(usize, ProblemKind)> {
        match err {
            BindError::Syntax { errors, .. } => {
                errors.into_iter().map(|e| (e.line, e.kind)).collect()
            }
            other @ (BindError::Read { .. }
            | BindError::NoOrigin { .. }
            | BindError::BadZone { .. }) => panic!("{other}"),
        }
    }

    #[test]
    fn the_zone_is_the_given_origin_else_the_first_origin_else_the_soa_owner() {
        let text = "$TTL 60\n$ORIGIN first.example.\na A 192.0.2.1\n";
        assert_eq!(
            read(text, None).unwrap().zone.zone.as_str(),
            "first.example"
        );
        assert_eq!(
            read(text, Some("given.example"))
                .unwrap()
                .zone
                .zone
                .as_str(),
            "given.example"
        );
        let soa = "soa.example. 60 IN SOA ns. h. 1 2 3 4 5\nwww.soa.example. 60 A 192.0.2.1\n";
        assert_eq!(read(soa, None).unwrap().zone.zone.as_str(), "soa.example");
        assert!(matches!(
            read("www 60 A 192.0.2.1\n", None),
            Err(BindError::NoOrigin { .. })
        ));
    }

    #[test]
    fn a_root_origin_or_a_missing_file_is_refused() {
        assert!(matches!(
            read("$ORIGIN .\n$TTL 60\nwww A 192.0.2.1\n", None),
            Err(BindError::BadZone { .. })
        ));
        assert!(matches!(
            read_bind(Path::new("/nonexistent/zone.db"), None),
            Err(BindError::Read { .. })
        ));
    }

    #[test]
    fn an_include_loop_and_a_missing_include_are_located() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("main.db");
        std::fs::write(
            &main,
            "$ORIGIN example.com.\n$TTL 60\n$INCLUDE other.db\n$INCLUDE missing.db\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("other.db"),
            "a A 192.0.2.1\n$INCLUDE main.db\n",
        )
        .unwrap();
        let err = read_bind(&main, None).unwrap_err();
        let BindError::Syntax { errors, .. } = err else {
            panic!("{err}");
        };
        let at: Vec<(String, usize, bool)> = errors
            .iter()
            .map(|e| {
                let name = e.file.file_name().unwrap().to_string_lossy().into_owned();
                let loop_or_missing = matches!(
                    e.kind,
                    ProblemKind::IncludeLoop { .. } | ProblemKind::IncludeUnreadable { .. }
                );
                (name, e.line, loop_or_missing)
            })
            .collect();
        assert_eq!(
            at,
            [("other.db".into(), 2, true), ("main.db".into(), 4, true)]
        );
    }

    #[test]
    fn ttls_come_from_the_record_then_ttl_then_the_previous_record_then_the_soa() {
        let text = "$ORIGIN example.com.\n@ SOA ns. h. 1 2 3 4 120\na A 192.0.2.1\nb 300 A 192.0.2.2\nc A 192.0.2.3\n$TTL 900\nd A 192.0.2.4\n";
        let from = read(text, None).unwrap();
        let ttls: Vec<(&str, u32)> = from
            .zone
            .records
            .iter()
            .map(|r| (r.name.as_str(), r.ttl))
            .collect();
        assert_eq!(ttls, [("a", 120), ("b", 300), ("c", 300), ("d", 900)]);
    }

    #[test]
    fn a_blank_first_owner_and_a_missing_ttl_are_located() {
        let err = read(
            "$ORIGIN example.com.\n  A 192.0.2.1\nwww A 192.0.2.2\n",
            None,
        )
        .unwrap_err();
        assert_eq!(
            kinds(err),
            [(2, ProblemKind::NoPreviousOwner), (3, ProblemKind::NoTtl)]
        );
    }

    #[test]
    fn a_generated_rhs_is_read_again_as_data() {
        let text = "$ORIGIN example.com.\n$TTL 60\n$GENERATE 1-2 t$ TXT \"costs \\$$\"\n";
        let from = read(text, None).unwrap();
        let texts: Vec<&str> = from
            .zone
            .records
            .iter()
            .map(|r| r.canonical.as_str())
            .collect();
        assert_eq!(texts, ["costs$1", "costs$2"]);
    }

    #[test]
    fn txt_octets_that_are_not_utf8_are_listed() {
        let from = read("$ORIGIN example.com.\n$TTL 60\nt TXT \"\\255\"\n", None).unwrap();
        let why: Vec<&Why> = from.not_imported.iter().map(|n| &n.why).collect();
        assert_eq!(why, [&Why::NotText]);
        assert!(from.zone.records.is_empty());
    }

    fn rule_words(from: &FromFile) -> Vec<(String, Option<RecordType>, Option<String>)> {
        from.zone
            .rules
            .iter()
            .map(|r| (r.name.clone(), r.rtype, r.content.clone()))
            .collect()
    }

    #[test]
    fn an_ignore_comment_is_read_whatever_its_spacing_case_or_place() {
        let text = "$ORIGIN x.example.\n$TTL 300\n;dnscron-ignore:{\"name\":\"@\",\"type\":\"MX\"}\n \t;  DNSCRON-Ignore  :  {\"name\":\"_acme-challenge*\",\"type\":\"TXT\",\"content\":null}\n@ A 192.0.2.1 ;dnscron-ignore: {\"name\":\"mail*\"}\nt TXT \"a;b\" \"; dnscron-ignore: text, not a comment\" ; a plain comment\n";
        let from = read(text, None).unwrap();
        assert_eq!(
            rule_words(&from),
            [
                ("@".into(), Some(RecordType::MX), None),
                ("_acme-challenge*".into(), Some(RecordType::TXT), None),
                ("mail*".into(), None, None),
            ]
        );
        assert_eq!(from.zone.records.len(), 2);
    }

    #[test]
    fn a_comment_that_starts_as_ours_and_is_no_rule_is_refused_at_its_line() {
        let text = "$ORIGIN x.example.\n$TTL 300\n; dnscron-ignore {\"name\":\"@\"}\n;dnscron-ignored: yes\n; dnscron-ignore: {\"name\":\" \"}\n@ A 192.0.2.1 ; dnscron-ignore: {\"name\":\"a\",\"kind\":\"A\"}\n";
        let err = read(text, None).unwrap_err();
        let BindError::Syntax { errors, .. } = err else {
            panic!("{err}");
        };
        let at: Vec<(usize, usize, bool)> = errors
            .iter()
            .map(|e| {
                let bad = matches!(e.kind, ProblemKind::BadIgnoreComment { .. });
                (e.line, e.col, bad)
            })
            .collect();
        assert_eq!(
            at,
            [(3, 1, true), (4, 1, true), (5, 1, true), (6, 15, true)]
        );
    }

    /// As the loader refuses it in the imported file: the rule, at its comment, not a bug of
    /// the import after the files are written.
    #[test]
    fn a_rule_that_matches_a_declared_record_is_refused_at_its_comment() {
        let text = "$ORIGIN x.example.\n$TTL 300\n; dnscron-ignore: {\"name\":\"*\"}\n; dnscron-ignore: {\"name\":\"WWW.\",\"type\":\"A\",\"content\":\"192.0.2.*\"}\n; dnscron-ignore: {\"name\":\"www\",\"type\":\"A\",\"content\":\"198.51.100.*\"}\n@ MX 10 mail\nwww A 192.0.2.1\n";
        let found: Vec<(usize, String, String)> = kinds(read(text, None).unwrap_err())
            .into_iter()
            .map(|(line, kind)| {
                let ProblemKind::IgnoresDeclared { record, at } = kind else {
                    panic!("{kind}");
                };
                let at = at.unwrap_or_default();
                (line, record, at[at.len().saturating_sub(5)..].to_string())
            })
            .collect();
        assert_eq!(
            found,
            [
                (3, "@ MX 10 mail.x.example.".into(), ".db:6".into()),
                (4, "www A 192.0.2.1".into(), ".db:7".into()),
            ]
        );
    }

    /// What the import leaves out (the SOA, the apex NS, an ACME challenge) is not declared:
    /// a rule over it is accepted, as the loader accepts it.
    #[test]
    fn a_rule_over_records_the_import_leaves_out_is_accepted() {
        let text = "$ORIGIN x.example.\n$TTL 300\n; dnscron-ignore: {\"name\":\"@\",\"type\":\"NS\"}\n; dnscron-ignore: {\"name\":\"_acme-challenge*\",\"type\":\"TXT\"}\n@ SOA ns1.example.net. h.x.example. 1 2 3 4 5\n@ NS ns1.example.net.\n_acme-challenge TXT \"token\"\nwww A 192.0.2.1\n";
        let from = read(text, None).unwrap();
        assert_eq!(rule_words(&from).len(), 2);
        assert_eq!(from.zone.records.len(), 1);
    }
}
