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
