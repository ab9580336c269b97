//! A record's RDATA tokens → the content the API holds for it: names made absolute against the
//! origin in force where the record stands, character-strings resolved and joined.

use crate::dns::RecordType;
use crate::dns::txt::txt_wire;

use super::lexer::Token;
use super::problem::{Problem, ProblemKind};
use super::text::{absolute, octets};

/// The longest character-string RFC 1035 §3.3 allows.
const MAX_CHARACTER_STRING: usize = 255;

pub(super) enum RdataError {
    /// Not a valid master-file RDATA: a located syntax problem.
    Syntax(Problem),
    /// TXT octets that are not UTF-8 text, which the API's JSON can't carry.
    NotText,
}

impl From<Problem> for RdataError {
    fn from(p: Problem) -> Self {
        RdataError::Syntax(p)
    }
}

/// The API content for `tokens` (the RDATA after the type token `at`).
pub(super) fn content(
    rtype: RecordType,
    at: &Token,
    tokens: &[Token],
    origin: Option<&str>,
) -> Result<String, RdataError> {
    let count = |want: &'static str, n: usize| {
        if tokens.len() == n {
            Ok(())
        } else {
            Err(located(
                at,
                ProblemKind::FieldCount {
                    rtype: rtype.as_str().to_string(),
                    want,
                    found: tokens.len(),
                },
            ))
        }
    };
    let name = |t: &Token| absolute(t, origin).map_err(|k| located(t, k));
    match rtype {
        RecordType::A | RecordType::AAAA => {
            count("1 field (an address)", 1)?;
            Ok(tokens[0].text.clone())
        }
        RecordType::CNAME | RecordType::NS | RecordType::PTR => {
            count("1 field (a host name)", 1)?;
            Ok(name(&tokens[0])?)
        }
        RecordType::MX => {
            count("2 fields (preference and host)", 2)?;
            Ok(format!("{} {}", tokens[0].text, name(&tokens[1])?))
        }
        RecordType::SRV => {
            count("4 fields (priority, weight, port and target)", 4)?;
            Ok(format!(
                "{} {} {} {}",
                tokens[0].text,
                tokens[1].text,
                tokens[2].text,
                name(&tokens[3])?
            ))
        }
        RecordType::CAA => {
            count("3 fields (flags, tag and value)", 3)?;
            let value = character_string(&tokens[2])?;
            let value = String::from_utf8(value).map_err(|_| RdataError::NotText)?;
            let quoted = value.replace('\\', "\\\\").replace('"', "\\\"");
            Ok(format!(
                "{} {} \"{quoted}\"",
                tokens[0].text, tokens[1].text
            ))
        }
        RecordType::TXT => txt(at, tokens),
    }
}

/// Every character-string of the record, joined: the API holds a TXT record's text whole.
fn txt(at: &Token, tokens: &[Token]) -> Result<String, RdataError> {
    if tokens.is_empty() {
        return Err(located(
            at,
            ProblemKind::FieldCount {
                rtype: "TXT".into(),
                want: "1 or more character-strings",
                found: 0,
            },
        )
        .into());
    }
    let mut joined = Vec::new();
    for token in tokens {
        joined.extend(character_string(token)?);
    }
    let text = String::from_utf8(joined).map_err(|_| RdataError::NotText)?;
    Ok(txt_wire(&text))
}

fn character_string(token: &Token) -> Result<Vec<u8>, RdataError> {
    let bytes = octets(token).map_err(|k| located(token, k))?;
    if bytes.len() > MAX_CHARACTER_STRING {
        return Err(located(
            token,
            ProblemKind::LongCharacterString {
                octets: bytes.len(),
            },
        )
        .into());
    }
    Ok(bytes)
}

pub(super) fn located(token: &Token, kind: ProblemKind) -> Problem {
    Problem::new(token.line, token.col, kind)
}
