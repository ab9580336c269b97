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
mod tests {
    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text)
            .unwrap()
            .with_timezone(&Utc)
    }

    #[test]
    fn calendars_list_the_next_runs_in_utc() {
        let from = at("2026-02-27T23:59:30Z");
        let c = calendar("0 0 29 2 *", from, 2).unwrap();
        assert_eq!(
            c.next,
            vec![at("2028-02-29T00:00:00Z"), at("2032-02-29T00:00:00Z")]
        );
        assert!(!c.every_minute);
        let c = calendar("*/15  9 * * MON", at("2026-11-23T09:20:00Z"), 3).unwrap();
        let want = [
            "2026-11-23T09:30:00Z",
            "2026-11-23T09:45:00Z",
            "2026-11-30T09:00:00Z",
        ];
        assert_eq!(c.next, want.map(at).to_vec());
    }

    #[test]
    fn calendars_tell_never_and_every_minute_apart() {
        let from = at("2026-11-23T00:00:00Z");
        assert_eq!(
            calendar("0 0 30 2 *", from, 3).unwrap().next,
            Vec::<DateTime<Utc>>::new()
        );
        assert!(calendar("* * * * *", from, 1).unwrap().every_minute);
        assert!(calendar("* 3 * * *", from, 1).unwrap().every_minute);
        assert!(calendar("*/1 3 * * *", from, 1).unwrap().every_minute);
        assert!(!calendar("0-58 3 * * *", from, 1).unwrap().every_minute);
        assert!(!calendar("*/2 * * * *", from, 1).unwrap().every_minute);
        assert_eq!(calendar("61 * * * *", from, 1), None);
    }

    #[test]
    fn schedules_accepted_and_normalized() {
        for (input, want) in [
            ("*/15 * * * *", "*/15 * * * *"),
            ("*/5  *  * * *", "*/5 * * * *"),
            ("  30 2 * * 0 ", "30 2 * * 0"),
            ("0 3 * * MON-FRI", "0 3 * * MON-FRI"),
            ("0,30 8-18 1 */2 7", "0,30 8-18 1 */2 7"),
        ] {
            assert_eq!(normalize_schedule(input).unwrap(), want, "{input}");
        }
    }

    #[test]
    fn schedules_rejected() {
        for (bad, hint_part) in [
            ("0 */15 * * * *", "seconds"),
            ("* * * *", "minute hour"),
            ("@daily", "nickname"),
            ("61 * * * *", "minute (0-59)"),
            ("* 24 * * *", "hour"),
            ("* * * 13 *", "month"),
            ("x * * * *", "each"),
            ("", "minute hour"),
        ] {
            let err = normalize_schedule(bad).expect_err(bad);
            assert!(
                err.hint.as_deref().unwrap_or("").contains(hint_part),
                "{bad}: {err:?}"
            );
        }
    }

    #[test]
    fn commands_accepted_and_normalized() {
        for (input, want) in [
            ("php artisan schedule:run", "php artisan schedule:run"),
            (
                "  wp   cron event run\t--due-now ",
                "wp cron event run --due-now",
            ),
            ("php", "php"),
        ] {
            assert_eq!(normalize_command(input).unwrap(), want, "{input}");
        }
    }

    #[test]
    fn commands_rejected() {
        for bad in [
            "bash -c ls",
            "phpunit",
            "wpcli x",
            "/usr/bin/php x",
            "",
            "PHP x",
        ] {
            assert!(normalize_command(bad).is_err(), "{bad}");
        }
    }
}
