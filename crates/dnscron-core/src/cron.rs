//! Cron jobs: the normal forms both sides of the cron diff are compared in.
//!
//! The planner matches desired and live jobs on `(normalize_schedule, normalize_command)`, so
//! `*/5  *  * * *` and `*/5 * * * *` are the same job. Both functions also accept what the
//! server returns.

use chrono::{DateTime, Utc};
use croner::Cron;
use croner::parser::{CronParser, Seconds, Year};

/// The API's limit on jobs per site (spec, Limits: Cron jobs).
pub const MAX_JOBS_PER_SITE: usize = 5;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct CronError {
    pub message: String,
    pub hint: Option<String>,
}

impl CronError {
    fn new(message: impl Into<String>, hint: impl Into<String>) -> Self {
        CronError {
            message: message.into(),
            hint: Some(hint.into()),
        }
    }
}

/// Exactly 5 fields (minute hour day-of-month month day-of-week), a valid expression, joined by
/// single spaces. Seconds (6 fields), years (7) and `@daily`-style nicknames are refused: the
/// API takes 5-field cron.
pub fn normalize_schedule(schedule: &str) -> Result<String, CronError> {
    let fields: Vec<&str> = schedule.split_whitespace().collect();
    let normalized = fields.join(" ");
    if fields.len() != 5 {
        let hint = match fields.len() {
            1 if normalized.starts_with('@') => {
                "write the 5 fields instead of a nickname, e.g. `0 0 * * *` for @daily"
            }
            6 | 7 => "seconds and years are not supported: drop the first (seconds) field",
            _ => "write `minute hour day-of-month month day-of-week`, e.g. `*/15 * * * *`",
        };
        return Err(CronError::new(
            format!(
                "schedule `{normalized}` has {} fields; it needs exactly 5",
                fields.len()
            ),
            hint,
        ));
    }
    parse(&normalized).map_err(|err| {
        CronError::new(
            format!("schedule `{normalized}` is not a valid cron expression: {err}"),
            "fields are minute (0-59), hour (0-23), day of month (1-31), month (1-12) and \
             day of week (0-7); each `*`, a number, a range `a-b`, a list `a,b` or a step `*/n`",
        )
    })?;
    Ok(normalized)
}

/// Whitespace collapsed to single spaces; the first word must be `php` or `wp` (the API runs
/// nothing else).
pub fn normalize_command(command: &str) -> Result<String, CronError> {
    let normalized = command.split_whitespace().collect::<Vec<_>>().join(" ");
    let first = normalized.split(' ').next().unwrap_or_default();
    if first != "php" && first != "wp" {
        let message = if normalized.is_empty() {
            "the command is empty".to_string()
        } else {
            format!("command `{normalized}` does not start with `php` or `wp`")
        };
        return Err(CronError::new(
            message,
            "the API only runs php and wp commands, e.g. `php artisan schedule:run` or \
             `wp cron event run --due-now`",
        ));
    }
    Ok(normalized)
}

fn parse(schedule: &str) -> Result<Cron, croner::errors::CronError> {
    CronParser::builder()
        .seconds(Seconds::Disallowed)
        .year(Year::Disallowed)
        .build()
        .parse(schedule)
}

/// When a schedule runs, seen from a moment in UTC (the API states no time zone for cron).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Calendar {
    /// Up to the count asked for; empty when the schedule never runs (`0 0 30 2 *`).
    pub next: Vec<DateTime<Utc>>,
    /// Every minute of the hours it runs in matches (`* * * * *`, `* 3 * * *`).
    pub every_minute: bool,
}

/// The next `count` runs of `schedule` strictly after `after`, or `None` for a schedule that is
/// not valid (the loader refuses those; a live one is left to the server).
pub fn calendar(schedule: &str, after: DateTime<Utc>, count: usize) -> Option<Calendar> {
    let cron = parse(&schedule.split_whitespace().collect::<Vec<_>>().join(" ")).ok()?;
    let every_minute = (0..60).all(|m| cron.pattern.minute_match(m).unwrap_or(false));
    // croner searches up to year 5000 and then ends the iterator: a date that never exists
    // (30 February) yields nothing rather than looping.
    let next = cron.iter_after(after).take(count).collect();
    Some(Calendar { next, every_minute })
}

#[cfg(test)]
#[path = "cron_tests.rs"]
mod tests;
