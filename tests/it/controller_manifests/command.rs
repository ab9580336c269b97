//! The controller's command line in the Deployment. The API flags and `--log-format` are
//! checked against the real CLI; the controller's own flags against its design (issue #30)
//! until `dnscron controller` exists, when `Cli::try_parse_from` on the whole line replaces
//! [`CONTROLLER_FLAGS`] (and tests/it/ci_recipes/parse.rs reads this folder too).

use std::collections::BTreeMap;

use clap::CommandFactory;
use dnscron::cli::Cli;

/// The controller's flags by the design, each with whether it takes a value.
pub const CONTROLLER_FLAGS: [(&str, bool); 9] = [
    ("--interval", true),
    ("--once", false),
    ("--listen", true),
    ("--policy", true),
    ("--api-share", true),
    ("--state-file", true),
    ("--webhook-url-file", true),
    ("--suspend-file", true),
    ("--adopt-revision", true),
];

/// What a `controller` command line asks for: its DIR and each flag with its value (empty for
/// a switch).
#[derive(Debug, PartialEq, Eq)]
pub struct ControllerCommand {
    pub dir: String,
    pub flags: BTreeMap<String, String>,
}

/// Reads `args` (the container's, the image's entrypoint being dnscron) as the design's
/// command; the error names the first word it can't place.
pub fn controller_command(args: &[String]) -> Result<ControllerCommand, String> {
    let takes_value = real_value_flags();
    let mut words = args.iter();
    if words.next().map(String::as_str) != Some("controller") {
        return Err(format!("not a controller command: {args:?}"));
    }
    let mut dir = None;
    let mut flags = BTreeMap::new();
    while let Some(word) = words.next() {
        if !word.starts_with("--") {
            if dir.replace(word.clone()).is_some() {
                return Err(format!("a second DIR: {word}"));
            }
            continue;
        }
        let value = match CONTROLLER_FLAGS.iter().find(|(name, _)| name == word) {
            Some((_, false)) => String::new(),
            Some((_, true)) => words
                .next()
                .cloned()
                .ok_or(format!("{word} needs a value"))?,
            None if takes_value.contains(word) => words
                .next()
                .cloned()
                .ok_or(format!("{word} needs a value"))?,
            None => return Err(format!("unknown flag {word}")),
        };
        if flags.insert(word.clone(), value).is_some() {
            return Err(format!("{word} given twice"));
        }
    }
    let dir = dir.ok_or("no DIR")?;
    Ok(ControllerCommand { dir, flags })
}

/// The flags the controller shares with the API commands, as the real CLI defines them:
/// `plan`'s API flags and the global ones, each taking a value.
fn real_value_flags() -> Vec<String> {
    let cli = Cli::command();
    let plan = cli.find_subcommand("plan").unwrap();
    let wanted = ["api-url", "token-file", "log-format"];
    let found: Vec<String> = plan
        .get_arguments()
        .chain(cli.get_arguments())
        .filter_map(|arg| arg.get_long())
        .filter(|long| wanted.contains(long))
        .map(|long| format!("--{long}"))
        .collect();
    assert_eq!(found.len(), wanted.len(), "{found:?}");
    found
}

fn words(line: &str) -> Vec<String> {
    line.split_whitespace().map(str::to_string).collect()
}

#[test]
fn a_design_command_line_is_read_flag_by_flag() {
    let command = controller_command(&words(
        "controller /repo/current/dns --once --policy observe --token-file /t --log-format json",
    ))
    .unwrap();
    assert_eq!(command.dir, "/repo/current/dns");
    assert_eq!(
        command.flags.into_iter().collect::<Vec<_>>(),
        [
            ("--log-format".to_string(), "json".to_string()),
            ("--once".into(), String::new()),
            ("--policy".into(), "observe".into()),
            ("--token-file".into(), "/t".into()),
        ]
    );
}

#[test]
fn a_flag_outside_the_design_or_without_its_value_is_refused() {
    for (line, refusal) in [
        ("controller /d --state-fil /s", "unknown flag --state-fil"),
        ("controller /d --listen", "--listen needs a value"),
        ("controller /d /e", "a second DIR: /e"),
        ("controller --once", "no DIR"),
        ("controller /d --once --once", "--once given twice"),
        ("plan /d", "not a controller command: [\"plan\", \"/d\"]"),
    ] {
        assert_eq!(
            controller_command(&words(line)).unwrap_err(),
            refusal,
            "{line}"
        );
    }
}
