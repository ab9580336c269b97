//! What `/openapi.json` publishes beside the numeric limits of `validate`: the patterns of the
//! string fields (ECMA-262 regexes). Each describes a subset of what `validate` accepts, never
//! more: a request its schema allows must not be refused (tests/it/emulator/constraints.rs
//! sends the boundaries of each).

use dnscron_provider::RecordType;

pub(crate) use dnscron_provider::limits::{
    CUSTOM_NAMESERVERS_MAX as NAMESERVERS_MAX, CUSTOM_NAMESERVERS_MIN as NAMESERVERS_MIN,
    NAME_MAX_CHARS as NAME_MAX,
};

/// One line, no control characters (`char::is_control`), at least one non-space.
pub(crate) const LINE_PATTERN: &str = r"^[^\x00-\x1F\x7F-\x9F]*\S[^\x00-\x1F\x7F-\x9F]*$";
/// `@`, `*`, or labels of letters, digits, `-` and `_`, optionally below a leading `*`.
pub(crate) const NAME_PATTERN: &str =
    r"^(@|\*|(\*\.)?[A-Za-z0-9_-]{1,63}(\.[A-Za-z0-9_-]{1,63})*)$";
/// A host name, final dot optional.
pub(crate) const HOST_PATTERN: &str = r"^[A-Za-z0-9_-]{1,63}(\.[A-Za-z0-9_-]{1,63})*\.?$";
/// A fully qualified host name (at least two labels), in the one spelling (lower case, no
/// final dot) under which `uniqueItems` means what the duplicate check means.
pub(crate) const FQDN_PATTERN: &str = r"^([a-z0-9_-]{1,63}\.)+[a-z0-9_-]{1,63}$";
/// A domain name (at least two labels), final dot optional, any case.
pub(crate) const DOMAIN_PATTERN: &str = r"^([A-Za-z0-9_-]{1,63}\.)+[A-Za-z0-9_-]{1,63}\.?$";
/// The form of the cursors the emulator hands out (`pagination::encode`); which list a cursor
/// belongs to can't be stated, so one of another list still answers 422. Empty means "from
/// the start", as if absent.
pub(crate) const CURSOR_PATTERN: &str = "^(c1_([0-9a-f]{2})+)?$";
const U16: &str = "([0-9]{1,4}|[1-5][0-9]{4})";
const HOST: &str = r"[A-Za-z0-9_-]{1,63}(\.[A-Za-z0-9_-]{1,63})*\.?";
/// Five fields: `*`, `*/step`, or a list of values in each field's range.
pub(crate) const SCHEDULE_PATTERN: &str = concat!(
    r"^(\*(/[1-9])?|[1-5]?[0-9](,[1-5]?[0-9])*) ",
    r"(\*(/[1-9])?|(1?[0-9]|2[0-3])(,(1?[0-9]|2[0-3]))*) ",
    r"(\*(/[1-9])?|([1-9]|[12][0-9]|3[01])(,([1-9]|[12][0-9]|3[01]))*) ",
    r"(\*(/[1-9])?|([1-9]|1[0-2])(,([1-9]|1[0-2]))*) ",
    r"(\*(/[1-6])?|[0-6](,[0-6])*)$"
);
/// `php` or `wp`, then optionally a space and the rest of one line.
pub(crate) const COMMAND_PATTERN: &str = r"^(php|wp)( [^\x00-\x1F\x7F-\x9F]*)?$";

/// The content pattern of a record type, beside [`LINE_PATTERN`] and [`CONTENT_MAX`].
pub(crate) fn content_pattern(rtype: RecordType) -> Option<String> {
    match rtype {
        RecordType::CNAME | RecordType::NS | RecordType::PTR => Some(HOST_PATTERN.to_string()),
        RecordType::MX => Some(format!(r"^{U16} (\.|{HOST})$")),
        RecordType::SRV => Some(format!(r"^{U16} {U16} {U16} {HOST}$")),
        RecordType::CAA => Some(r"^[0-9]{1,2} [A-Za-z0-9]+ [!-~]+$".to_string()),
        // A and AAAA have a `format` rule instead (`openapi::record_write`); TXT is any line.
        RecordType::A | RecordType::AAAA | RecordType::TXT => None,
    }
}
