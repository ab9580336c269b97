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
fn schedules_rejected_with_the_field_its_range_and_the_value() {
    for (bad, message, hint_part) in [
        (
            "0 */15 * * * *",
            "schedule `0 */15 * * * *` has 6 fields; the API takes exactly 5",
            "seconds",
        ),
        (
            "* * * *",
            "schedule `* * * *` has 4 fields; the API takes exactly 5",
            "minute hour",
        ),
        (
            "*",
            "schedule `*` has 1 field; the API takes exactly 5",
            "minute hour",
        ),
        (
            "",
            "schedule `` has 0 fields; the API takes exactly 5",
            "minute hour",
        ),
        (
            "@daily",
            "schedule `@daily` is a nickname; the API takes only the 5 fields \
             `minute hour day-of-month month day-of-week`",
            "write `0 0 * * *`, the same as @daily",
        ),
        (
            "@Weekly",
            "nickname",
            "write `0 0 * * 0`, the same as @Weekly",
        ),
        ("@annually", "nickname", "write `0 0 1 1 *`"),
        ("@monthly", "nickname", "write `0 0 1 * *`"),
        ("@midnight", "nickname", "write `0 0 * * *`"),
        ("@hourly", "nickname", "write `0 * * * *`"),
        ("@reboot", "nickname", "write when the job runs"),
        (
            "@often",
            "schedule `@often` has 1 field; the API takes exactly 5",
            "minute hour",
        ),
        (
            "61 * * * *",
            "schedule `61 * * * *`: the minute is 61; it must be from 0 to 59",
            "the minute field takes 0 to 59",
        ),
        (
            "* 24 * * *",
            "schedule `* 24 * * *`: the hour is 24; it must be from 0 to 23",
            "the hour field takes 0 to 23",
        ),
        (
            "* * 0 * *",
            "schedule `* * 0 * *`: the day of month is 0; it must be from 1 to 31",
            "the day of month field takes 1 to 31",
        ),
        (
            "* * * 13 *",
            "schedule `* * * 13 *`: the month is 13; it must be from 1 to 12",
            "the month field takes 1 to 12",
        ),
        (
            "* * * * 8",
            "schedule `* * * * 8`: the day of week is 8; it must be from 0 to 7",
            "the day of week field takes 0 to 7",
        ),
        (
            "0,15,70 * * * *",
            "schedule `0,15,70 * * * *`: the minute is 70; it must be from 0 to 59",
            "0 to 59",
        ),
        (
            "1-70 * * * *",
            "schedule `1-70 * * * *`: the minute is 70; it must be from 0 to 59",
            "0 to 59",
        ),
        (
            "5-2 * * * *",
            "schedule `5-2 * * * *`: the minute range `5-2` runs backwards",
            "write the smaller number first (`2-5`)",
        ),
        (
            "* * * * FRI-MON",
            "schedule `* * * * FRI-MON`: the day of week range `FRI-MON` runs backwards",
            "(`MON-FRI`)",
        ),
        (
            "*/0 * * * *",
            "schedule `*/0 * * * *`: the minute step in `*/0` is zero",
            "a step is at least 1",
        ),
        (
            "* 1-5/0 * * *",
            "schedule `* 1-5/0 * * *`: the hour step in `1-5/0` is zero",
            "a step is at least 1",
        ),
        (
            "5/15 * * * *",
            "schedule `5/15 * * * *`: the minute `5/15` steps from a single number",
            "write `*/15` to step from 0, or `5-59/15` to step from 5",
        ),
        (
            "x * * * *",
            "schedule `x * * * *`: the minute `x` is not valid",
            "each `*`, a number",
        ),
        (
            "* * * JAN-FOO *",
            "schedule `* * * JAN-FOO *`: the month `JAN-FOO` is not valid",
            "JAN-DEC",
        ),
        (
            "*/ * * * *",
            "schedule `*/ * * * *`: the minute `*/` is not valid",
            "a step `*/n`",
        ),
    ] {
        let err = normalize_schedule(bad).expect_err(bad);
        assert!(err.to_string().contains(message), "{bad}: {err}");
        assert!(err.hint().contains(hint_part), "{bad}: {}", err.hint());
    }
}

#[test]
fn names_ranges_across_sunday_and_croner_extensions_are_accepted() {
    for good in [
        "* * * * SAT-SUN",
        "* * * * 1-7",
        "* * * jan-mar *",
        "*/60 * * * *",
        "* * L * *",
    ] {
        assert_eq!(normalize_schedule(good).unwrap(), good);
    }
}

#[test]
fn a_schedule_no_single_field_explains_is_refused_whole() {
    assert_eq!(
        schedule::find_problem(&["1", "2", "3", "4", "5"], |alone| alone == "1 2 3 4 5"),
        None
    );
    let err = ScheduleError::Invalid {
        schedule: "1 2 3 4 5".into(),
    };
    assert_eq!(
        err.to_string(),
        "schedule `1 2 3 4 5` is not a valid cron expression"
    );
    assert!(err.hint().starts_with("fields are minute (0-59)"));
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
