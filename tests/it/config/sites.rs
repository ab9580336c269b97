use super::{errors, ok, one_error};

fn site(cron: &[(&str, &str)]) -> String {
    let mut yaml = String::from("site: shop\ncron:\n");
    for (schedule, command) in cron {
        yaml.push_str(&format!(
            "  - {{ schedule: \"{schedule}\", command: \"{command}\" }}\n"
        ));
    }
    yaml
}

#[test]
fn cron_accepted_and_normalized() {
    let d = ok(&site(&[
        ("*/5  *  * * *", "php  artisan schedule:run"),
        ("30 2 * * 0", "wp cron event run --due-now"),
    ]));
    let jobs = d.sites[0].cron.as_ref().unwrap();
    assert_eq!(jobs[0].schedule, "*/5 * * * *");
    assert_eq!(jobs[0].command, "php artisan schedule:run");
    assert_eq!(jobs[1].command, "wp cron event run --due-now");
}

#[test]
fn cron_key_absent_or_empty() {
    assert_eq!(
        ok("site: shop\n").sites[0].cron,
        None,
        "no key: cron unmanaged"
    );
    assert_eq!(
        ok("site: shop\ncron: []\n").sites[0].cron,
        Some(vec![]),
        "[] removes all"
    );
}

#[test]
fn at_most_five_jobs() {
    let five: Vec<(String, &str)> = (0..5)
        .map(|m| (format!("{m} * * * *"), "php a.php"))
        .collect();
    let five_ref: Vec<(&str, &str)> = five.iter().map(|(s, c)| (s.as_str(), *c)).collect();
    assert_eq!(
        ok(&site(&five_ref)).sites[0].cron.as_ref().unwrap().len(),
        5
    );
    let mut six = five_ref.clone();
    six.push(("9 * * * *", "php a.php"));
    one_error(
        &site(&six),
        "8:5",
        "the site has 6 cron jobs; the API allows at most 5 [hint: combine jobs (one command can run several tasks) or drop some]",
    );
}

#[test]
fn schedules_rejected() {
    for (schedule, part) in [
        (
            "0 */15 * * * *",
            "schedule `0 */15 * * * *` has 6 fields; the API takes exactly 5 [hint: seconds and years are not supported: drop the first (seconds) field]",
        ),
        (
            "* * * *",
            "schedule `* * * *` has 4 fields; the API takes exactly 5 [hint: write `minute hour day-of-month month day-of-week`, e.g. `*/15 * * * *`]",
        ),
        (
            "@daily",
            "schedule `@daily` is a nickname; the API takes only the 5 fields `minute hour day-of-month month day-of-week` [hint: write `0 0 * * *`, the same as @daily]",
        ),
        (
            "60 * * * *",
            "schedule `60 * * * *`: the minute is 60; it must be from 0 to 59 [hint: the minute field takes 0 to 59; fields are minute (0-59), hour (0-23), day of month (1-31), month (1-12 or JAN-DEC) and day of week (0-7 or SUN-SAT; 0 and 7 are Sunday); each `*`, a number, a range `a-b`, a list `a,b` or a step `*/n`]",
        ),
    ] {
        one_error(&site(&[(schedule, "php a.php")]), "3:17", part);
    }
}

#[test]
fn commands_must_be_php_or_wp() {
    for command in ["bash run.sh", "phpunit", "/usr/bin/php x.php"] {
        one_error(
            &site(&[("* * * * *", command)]),
            "3:39",
            &format!(
                "command `{command}` does not start with `php` or `wp` [hint: the API only runs \
                 php and wp commands, e.g. `php artisan schedule:run` or `wp cron event run --due-now`]"
            ),
        );
    }
}

#[test]
fn duplicate_jobs_compare_normalized() {
    ok(&site(&[("0 3 * * *", "wp a"), ("0 4 * * *", "wp a")]));
    let errs = errors(&site(&[("0 3 * * *", "wp a"), ("0  3 * * *", "wp  a")]));
    insta::assert_debug_snapshot!(errs);
}

#[test]
fn slugs() {
    ok("site: my-shop_2\n");
    const HINT: &str = "[hint: write the slug as `GET /sites` lists it: lower-case letters, \
                        digits, `-` and `_`]";
    for (bad, why) in [
        (
            "Shop",
            "`Shop` is not a site slug: it contains the upper-case letter `S`",
        ),
        (
            "-shop",
            "`-shop` is not a site slug: it must start with a letter or digit",
        ),
        ("my shop", "`my shop` is not a site slug: it contains ` `"),
        ("\"\"", "`` is not a site slug: it is empty"),
    ] {
        one_error(&format!("site: {bad}\n"), "1:7", &format!("{why} {HINT}"));
    }
}
