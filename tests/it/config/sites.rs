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
    one_error(&site(&six), "8:5", "at most 5");
}

#[test]
fn schedules_rejected() {
    for (schedule, part) in [
        ("0 */15 * * * *", "has 6 fields"),
        ("* * * *", "has 4 fields"),
        ("@daily", "nickname"),
        ("60 * * * *", "not a valid cron expression"),
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
            "does not start with `php` or `wp`",
        );
    }
}

#[test]
fn duplicate_jobs_compare_normalized() {
    ok(&site(&[("0 3 * * *", "wp a"), ("0 4 * * *", "wp a")]));
    let errs = errors(&site(&[("0 3 * * *", "wp a"), ("0  3 * * *", "wp  a")]));
    assert_eq!(errs.len(), 1, "{errs:#?}");
    assert!(errs[0].starts_with("4:5 duplicate cron job"), "{errs:#?}");
    assert!(errs[0].contains("f.yaml:3:5"), "{errs:#?}");
}

#[test]
fn slugs() {
    ok("site: my-shop_2\n");
    for bad in ["Shop", "-shop", "my shop", "\"\""] {
        one_error(&format!("site: {bad}\n"), "1:7", "not a site slug");
    }
}
