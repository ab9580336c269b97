//! The controller's command line in the Deployment, read with the real CLI: each flag and
//! whether it takes a value as `dnscron controller` defines it, then the whole line parsed by
//! `Cli::try_parse_from`.

use std::collections::BTreeMap;

use clap::{ArgAction, CommandFactory, Parser};
use dnscron::cli::Cli;

/// What a `controller` command line asks for: its DIR and each flag with its value (empty for
/// a switch).
#[derive(Debug, PartialEq, Eq)]
pub struct ControllerCommand {
    pub dir: String,
    pub flags: BTreeMap<String, String>,
}

/// Reads `args` (the container's, the image's entrypoint being dnscron) as the controller's
/// command; the error names the first word it can't place, or is clap's own.
pub fn controller_command(args: &[String]) -> Result<ControllerCommand, String> {
    let flags_of = real_flags();
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
        let value = match flags_of.get(word) {
            Some(false) => String::new(),
            Some(true) => words
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
    let line = std::iter::once("dnscron").chain(args.iter().map(String::as_str));
    Cli::try_parse_from(line).map_err(|e| e.to_string())?;
    Ok(ControllerCommand { dir, flags })
}

/// Every long flag `dnscron controller` takes (its own, the API flags, the global ones), with
/// whether it takes a value.
fn real_flags() -> BTreeMap<String, bool> {
    let cli = Cli::command();
    let controller = cli.find_subcommand("controller").unwrap();
    controller
        .get_arguments()
        .chain(cli.get_arguments())
        .filter_map(|arg| {
            let takes_value = !matches!(
                arg.get_action(),
                ArgAction::SetTrue
                    | ArgAction::SetFalse
                    | ArgAction::Count
                    | ArgAction::Help
                    | ArgAction::HelpLong
                    | ArgAction::HelpShort
                    | ArgAction::Version
            );
            arg.get_long()
                .map(|long| (format!("--{long}"), takes_value))
        })
        .collect()
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
