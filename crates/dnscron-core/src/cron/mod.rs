//! Cron jobs: the normal forms both sides of the cron diff are compared in.
//!
//! The planner matches desired and live jobs on `(normalize_schedule, normalize_command)`, so
//! `*/5  *  * * *` and `*/5 * * * *` are the same job. Both functions also accept what the
//! server returns.

use chrono::{DateTime, Utc};
use croner::Cron;
use croner::parser::{CronParser, Seconds, Year};

mod schedule;
pub(crate) use schedule::ScheduleError;

/// The API's limit on jobs per site (spec, Limits: Cron jobs).
pub(crate) const MAX_JOBS_PER_SITE: usize = dnscron_provider::limits::CRON_JOBS_PER_SITE_MAX;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub(crate) struct CronError {
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
pub(crate) fn normalize_schedule(schedule: &str) -> Result<String, ScheduleError> {
    let fields: Vec<&str> = schedule.split_whitespace().collect();
    let normalized = fields.join(" ");
    if let [word] = fields.as_slice()
        && let Some(equivalent) = schedule::nickname(word)
    {
        return Err(ScheduleError::Nickname {
            nickname: normalized,
            equivalent,
        });
    }
    if fields.len() != 5 {
        return Err(ScheduleError::FieldCount {
            schedule: normalized,
            found: fields.len(),
        });
    }
    if parse(&normalized).is_ok() {
        return Ok(normalized);
    }
    Err(
        match schedule::find_problem(&fields, |alone| parse(alone).is_err()) {
            Some((field, problem)) => ScheduleError::Field {
                schedule: normalized,
                field,
                problem,
            },
            // Every field passes alone: croner refused their combination.
            None => ScheduleError::Invalid {
                schedule: normalized,
            },
        },
    )
}

/// Whitespace collapsed to single spaces; the first word must be `php` or `wp` (the API runs
/// nothing else).
pub(crate) fn normalize_command(command: &str) -> Result<String, CronError> {
    let normalized = command.split_whitespace().collect::<Vec<_>>().join(" ");
    let first = normalized.split(' ').next().unwrap_or_default();
    if !dnscron_provider::limits::CRON_PROGRAMS.contains(&first) {
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
pub(crate) struct Calendar {
    /// Up to the count asked for; empty when the schedule never runs (`0 0 30 2 *`).
    pub next: Vec<DateTime<Utc>>,
    /// Every minute of the hours it runs in matches (`* * * * *`, `* 3 * * *`).
    pub every_minute: bool,
}

/// The next `count` runs of `schedule` strictly after `after`, or `None` for a schedule that is
/// not valid (the loader refuses those; a live one is left to the server).
pub(crate) fn calendar(schedule: &str, after: DateTime<Utc>, count: usize) -> Option<Calendar> {
    let cron = parse(&schedule.split_whitespace().collect::<Vec<_>>().join(" ")).ok()?;
    let every_minute = (0..60).all(|m| cron.pattern.minute_match(m).unwrap_or(false));
    // croner searches up to year 5000 and then ends the iterator: a date that never exists
    // (30 February) yields nothing rather than looping.
    let next = cron.iter_after(after).take(count).collect();
    Some(Calendar { next, every_minute })
}

#[cfg(test)]
mod tests;
