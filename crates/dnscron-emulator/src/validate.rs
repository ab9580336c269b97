//! Input validation with per-field messages (spec: Limits). Content checks are the sanity a
//! real DNS service applies: enough to refuse garbage such as an A record that is not an IPv4
//! address, not a full zone-file parser.

use std::net::{Ipv4Addr, Ipv6Addr};

use dnscron_provider::{RecordType, limits};
use serde_json::Value;

use super::constraints::{NAMESERVERS_MAX, NAMESERVERS_MIN};
use super::error::{ApiError, ApiResult, Details};
use super::state::relative_name;

pub(crate) const TTL_MIN: u64 = limits::TTL_MIN as u64;
pub(crate) const TTL_MAX: u64 = limits::TTL_MAX as u64;
pub(crate) const CONTENT_MAX: usize = limits::CONTENT_MAX_CHARS;
pub(crate) const CRON_MAX: usize = limits::CRON_JOBS_PER_SITE_MAX;
pub(crate) const COMMAND_MAX: usize = limits::CRON_COMMAND_MAX_CHARS;

/// A record write that passed validation.
#[derive(Debug, Clone)]
pub(crate) struct RecordInput {
    /// Relative, lower case.
    pub name: String,
    pub rtype: RecordType,
    pub ttl: u32,
    pub content: String,
}

/// Parses a JSON body into an object, or answers 422 on `body`.
pub(crate) fn json_object(body: &[u8]) -> ApiResult<serde_json::Map<String, Value>> {
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(ApiError::invalid("body", "must be a JSON object")),
        Err(e) => Err(ApiError::invalid("body", format!("is not valid JSON: {e}"))),
    }
}

fn required_str<'a>(
    body: &'a serde_json::Map<String, Value>,
    field: &str,
    details: &mut Details,
) -> Option<&'a str> {
    match body.get(field) {
        Some(Value::String(s)) => Some(s),
        None | Some(Value::Null) => {
            details.add(field, "is required");
            None
        }
        Some(_) => {
            details.add(field, "must be a string");
            None
        }
    }
}

pub(crate) fn record_input(body: &[u8], zone: &str) -> ApiResult<RecordInput> {
    let body = json_object(body)?;
    let mut details = Details::default();
    let name = required_str(&body, "name", &mut details).and_then(|n| {
        check_record_name(n, zone)
            .map_err(|m| details.add("name", m))
            .ok()
    });
    let rtype = required_str(&body, "type", &mut details).and_then(|t| {
        let rtype = RecordType::parse(t);
        if rtype.is_none() {
            details.add(
                "type",
                format!(
                    "`{t}` is not accepted; use one of {}",
                    RecordType::names().join(", ")
                ),
            );
        }
        rtype
    });
    let ttl = check_ttl(body.get("ttl"), &mut details);
    let content = required_str(&body, "content", &mut details).map(str::trim);
    if let Some(c) = content {
        if c.chars().count() > CONTENT_MAX {
            details.add(
                "content",
                format!(
                    "is {} characters; at most {CONTENT_MAX} are allowed",
                    c.chars().count()
                ),
            );
        } else if let Some(Err(m)) = rtype.map(|t| check_content(t, c)) {
            details.add("content", m);
        }
    }
    if let (Some(n), Some(t)) = (&name, rtype) {
        if t == RecordType::NS && n == "@" {
            details.add("name", "the apex NS records are managed by the service");
        }
        if t == RecordType::CNAME && n == "@" {
            details.add("type", "a CNAME is not allowed at the zone apex");
        }
    }
    details.into_result()?;
    match (name, rtype, ttl, content) {
        (Some(name), Some(rtype), Some(ttl), Some(content)) => Ok(RecordInput {
            name,
            rtype,
            ttl,
            content: content.to_string(),
        }),
        _ => Err(ApiError::invalid("body", "is incomplete")),
    }
}

fn check_ttl(value: Option<&Value>, details: &mut Details) -> Option<u32> {
    let message = format!("must be an integer from {TTL_MIN} to {TTL_MAX}");
    match value {
        None | Some(Value::Null) => {
            details.add("ttl", "is required");
            None
        }
        Some(Value::Number(n)) => match n.as_u64() {
            Some(t) if (TTL_MIN..=TTL_MAX).contains(&t) => Some(t as u32),
            _ => {
                details.add("ttl", format!("{message}; got {n}"));
                None
            }
        },
        Some(_) => {
            details.add("ttl", message);
            None
        }
    }
}

/// `@`, `*`, `www`, `*.dev`, `_dmarc`, or an absolute name inside the zone.
pub(crate) fn check_record_name(input: &str, zone: &str) -> Result<String, String> {
    let trimmed = input.trim();
    if trimmed.is_empty() {
        return Err("must not be empty; use `@` for the apex".into());
    }
    let lower = trimmed.to_ascii_lowercase();
    if let Some(abs) = lower.strip_suffix('.')
        && abs != zone
        && !abs.ends_with(&format!(".{zone}"))
    {
        return Err(format!("`{input}` is outside the zone `{zone}`"));
    }
    let relative = relative_name(trimmed, zone);
    if relative == "@" {
        return Ok(relative);
    }
    if relative.len() > limits::NAME_MAX_CHARS {
        return Err(format!(
            "is longer than {} characters",
            limits::NAME_MAX_CHARS
        ));
    }
    for (i, label) in relative.split('.').enumerate() {
        if label == "*" && i == 0 {
            continue;
        }
        if let Err(m) = check_label(label) {
            return Err(format!("`{input}`: {m}"));
        }
    }
    Ok(relative)
}

fn check_label(label: &str) -> Result<(), String> {
    if label.is_empty() || label.len() > limits::LABEL_MAX_CHARS {
        return Err(format!(
            "each label must be 1 to {} characters",
            limits::LABEL_MAX_CHARS
        ));
    }
    if !label
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(format!(
            "label `{label}` may contain only letters, digits, `-` and `_`"
        ));
    }
    Ok(())
}

/// A host name such as `mail.example.com.` (final dot optional).
pub(crate) fn check_hostname(input: &str) -> Result<(), String> {
    let host = input.strip_suffix('.').unwrap_or(input);
    if host.is_empty() || host.len() > limits::NAME_MAX_CHARS {
        return Err(format!("`{input}` is not a host name"));
    }
    host.split('.')
        .try_for_each(check_label)
        .map_err(|m| format!("`{input}` is not a host name: {m}"))
}

fn check_u16(field: &str, what: &str) -> Result<(), String> {
    field
        .parse::<u16>()
        .map(|_| ())
        .map_err(|_| format!("{what} `{field}` must be an integer from 0 to 65535"))
}

pub(crate) fn check_content(rtype: RecordType, content: &str) -> Result<(), String> {
    if content.is_empty() {
        return Err("must not be empty".into());
    }
    if content.chars().any(|c| c.is_control()) {
        return Err("must not contain control characters".into());
    }
    let fields: Vec<&str> = content.split_whitespace().collect();
    match rtype {
        RecordType::A => content
            .parse::<Ipv4Addr>()
            .map(|_| ())
            .map_err(|_| format!("`{content}` is not an IPv4 address")),
        RecordType::AAAA => content
            .parse::<Ipv6Addr>()
            .map(|_| ())
            .map_err(|_| format!("`{content}` is not an IPv6 address")),
        RecordType::CNAME | RecordType::NS | RecordType::PTR => check_hostname(content),
        RecordType::MX => match fields.as_slice() {
            [prio, host] => {
                check_u16(prio, "priority")?;
                if *host == "." {
                    Ok(())
                } else {
                    check_hostname(host)
                }
            }
            _ => Err(format!(
                "`{content}` must be `priority host`, e.g. `10 mail.example.com.`"
            )),
        },
        RecordType::SRV => match fields.as_slice() {
            [prio, weight, port, target] => {
                check_u16(prio, "priority")?;
                check_u16(weight, "weight")?;
                check_u16(port, "port")?;
                check_hostname(target)
            }
            _ => Err(format!(
                "`{content}` must be `priority weight port target`, e.g. `10 60 5060 sip.example.com.`"
            )),
        },
        RecordType::CAA => check_caa(&fields, content),
        // Any text: its length and control characters are checked above.
        RecordType::TXT => Ok(()),
    }
}

fn check_caa(fields: &[&str], content: &str) -> Result<(), String> {
    let usage =
        format!("`{content}` must be `flags tag value`, e.g. `0 issue \"letsencrypt.org\"`");
    if fields.len() < 3 {
        return Err(usage);
    }
    if fields[0].parse::<u8>().is_err() {
        return Err(format!("{usage}: flags must be 0 to 255"));
    }
    if !fields[1].chars().all(|c| c.is_ascii_alphanumeric()) {
        return Err(format!("{usage}: the tag must be letters and digits"));
    }
    Ok(())
}

/// A cron job write (`schedule`, `command`).
pub(crate) fn cron_input(body: &[u8]) -> ApiResult<(String, String)> {
    let body = json_object(body)?;
    let mut details = Details::default();
    let schedule = required_str(&body, "schedule", &mut details).map(str::trim);
    let command = required_str(&body, "command", &mut details).map(str::trim);
    if let Some(Err(m)) = schedule.map(check_schedule) {
        details.add("schedule", m);
    }
    if let Some(Err(m)) = command.map(check_command) {
        details.add("command", m);
    }
    details.into_result()?;
    match (schedule, command) {
        (Some(s), Some(c)) => Ok((s.to_string(), c.to_string())),
        _ => Err(ApiError::invalid("body", "is incomplete")),
    }
}

pub(crate) fn check_schedule(schedule: &str) -> Result<(), String> {
    let fields = schedule.split_whitespace().count();
    let want = limits::CRON_SCHEDULE_FIELDS;
    if fields != want {
        return Err(format!(
            "`{schedule}` has {fields} fields; a schedule has exactly {want} (minute hour day month weekday)"
        ));
    }
    schedule
        .parse::<croner::Cron>()
        .map(|_| ())
        .map_err(|e| format!("`{schedule}` is not a valid cron expression: {e}"))
}

pub(crate) fn check_command(command: &str) -> Result<(), String> {
    if command.chars().count() > COMMAND_MAX {
        return Err(format!("is longer than {COMMAND_MAX} characters"));
    }
    if command.chars().any(|c| c.is_control()) {
        return Err("must be one line without control characters".into());
    }
    match command.split_whitespace().next() {
        Some(program) if limits::CRON_PROGRAMS.contains(&program) => Ok(()),
        Some(_) | None => Err(format!(
            "`{command}`: only php and wp commands are allowed (start with `php ` or `wp `)"
        )),
    }
}

/// `PUT /domains/{domain}/nameservers`: `(hosted?, nameservers)`.
pub(crate) fn nameservers_input(
    body: &[u8],
    domain: &str,
    hosted_value: &str,
) -> ApiResult<(bool, Vec<String>)> {
    let body = json_object(body)?;
    let mut details = Details::default();
    let mode = required_str(&body, "mode", &mut details).map(str::to_string);
    let hosted = match mode.as_deref() {
        Some(m) if m == hosted_value => Some(true),
        Some("custom") => Some(false),
        Some(m) => {
            details.add(
                "mode",
                format!("`{m}` is not a mode; use `{hosted_value}` or `custom`"),
            );
            None
        }
        None => None,
    };
    let list = match body.get("nameservers") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|v| match v {
                Value::String(s) => Some(s.trim().to_string()),
                Value::Null
                | Value::Bool(_)
                | Value::Number(_)
                | Value::Array(_)
                | Value::Object(_) => {
                    details.add("nameservers", "must be an array of strings");
                    None
                }
            })
            .collect(),
        Some(_) => {
            details.add("nameservers", "must be an array of strings");
            Vec::new()
        }
    };
    if hosted == Some(false) {
        check_custom_nameservers(&list, domain, &mut details);
    }
    details.into_result()?;
    Ok((hosted.unwrap_or(false), list))
}

fn check_custom_nameservers(list: &[String], domain: &str, details: &mut Details) {
    if !(NAMESERVERS_MIN..=NAMESERVERS_MAX).contains(&list.len()) {
        details.add(
            "nameservers",
            format!(
                "give {NAMESERVERS_MIN} to {NAMESERVERS_MAX} host names for mode custom; got {}",
                list.len()
            ),
        );
    }
    let mut seen = std::collections::BTreeSet::new();
    for ns in list {
        let lower = ns.trim_end_matches('.').to_ascii_lowercase();
        if let Err(m) = check_hostname(ns) {
            details.add("nameservers", m);
        } else if !lower.contains('.') {
            details.add(
                "nameservers",
                format!("`{ns}` is not a fully qualified host name"),
            );
        }
        if lower == domain || lower.ends_with(&format!(".{domain}")) {
            details.add(
                "nameservers",
                format!("`{ns}` is inside {domain}; custom nameservers must be outside the domain"),
            );
        }
        if !seen.insert(lower) {
            details.add("nameservers", format!("`{ns}` appears twice"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_sanity() {
        assert!(check_content(RecordType::A, "203.0.113.10").is_ok());
        assert!(check_content(RecordType::A, "not-an-ip").is_err());
        assert!(check_content(RecordType::A, "2001:db8::1").is_err());
        assert!(check_content(RecordType::AAAA, "2001:db8::1").is_ok());
        assert!(check_content(RecordType::MX, "10 mail.example.com.").is_ok());
        assert!(check_content(RecordType::MX, "mail.example.com.").is_err());
        assert!(check_content(RecordType::SRV, "10 60 5060 sip.example.com.").is_ok());
        assert!(check_content(RecordType::SRV, "10 60 sip.example.com.").is_err());
        assert!(check_content(RecordType::CAA, "0 issue \"letsencrypt.org\"").is_ok());
        assert!(check_content(RecordType::CAA, "issue letsencrypt.org").is_err());
        assert!(check_content(RecordType::CNAME, "example.com.").is_ok());
        assert!(check_content(RecordType::CNAME, "exa mple").is_err());
        assert!(check_content(RecordType::TXT, "v=spf1 -all").is_ok());
    }

    #[test]
    fn schedules_and_commands() {
        assert!(check_schedule("*/15 * * * *").is_ok());
        assert!(check_schedule("*/5  *  * * *").is_ok());
        assert!(check_schedule("* * * *").is_err());
        assert!(check_schedule("0 0 * * * *").is_err());
        assert!(check_schedule("99 * * * *").is_err());
        assert!(check_command("wp cron event run --due-now").is_ok());
        assert!(check_command("php artisan schedule:run").is_ok());
        assert!(check_command("rm -rf /").is_err());
    }

    #[test]
    fn record_names() {
        assert_eq!(check_record_name("www", "example.com").unwrap(), "www");
        assert_eq!(
            check_record_name("WWW.example.com.", "example.com").unwrap(),
            "www"
        );
        assert_eq!(
            check_record_name("example.com.", "example.com").unwrap(),
            "@"
        );
        assert_eq!(check_record_name("*.dev", "example.com").unwrap(), "*.dev");
        assert!(check_record_name("www.example.org.", "example.com").is_err());
        assert!(check_record_name("bad name", "example.com").is_err());
    }
}
