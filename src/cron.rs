//! Cron jobs: the normal forms both sides of the cron diff are compared in.
//!
//! The planner matches desired and live jobs on `(normalize_schedule, normalize_command)`, so
//! `*/5  *  * * *` and `*/5 * * * *` are the same job. Both functions also accept what the
//! server returns.

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
    let parser = CronParser::builder()
        .seconds(Seconds::Disallowed)
        .year(Year::Disallowed)
        .build();
    parser.parse(&normalized).map_err(|err| {
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

#[cfg(test)]
mod tests {
    use super::*;

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
