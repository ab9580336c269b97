//! `dnscron man`: one roff page for the whole CLI.
//!
//! Built from clap_mangen's sections rather than `Man::render`, whose subcommand list names a
//! page per subcommand (`dnscron-plan(1)`, …) that nothing generates; this page lists the
//! subcommands itself and adds the EXIT STATUS and ENVIRONMENT sections.

use clap::CommandFactory;
use clap_mangen::Man;
use roff::{Roff, bold, italic, roman};

use crate::cli::error::{CommandError, CommandResult, ErrorKind, Outcome};
use crate::cli::{Cli, write_stdout};

/// `dnscron man | man -l -`.
pub fn run() -> CommandResult {
    let page = page()
        .map_err(|e| CommandError::quoting(ErrorKind::Internal, "rendering the man page", e))?;
    write_stdout(&page)?;
    Ok(Outcome::Success)
}

type Section = fn(&Man, &mut dyn std::io::Write) -> std::io::Result<()>;

fn page() -> std::io::Result<String> {
    let cmd = Cli::command();
    let man = Man::new(cmd.clone());
    let clap_sections: [Section; 5] = [
        Man::render_title,
        Man::render_name_section,
        Man::render_synopsis_section,
        Man::render_description_section,
        Man::render_options_section,
    ];
    let mut parts = Vec::new();
    for section in clap_sections {
        let mut buf = Vec::new();
        section(&man, &mut buf)?;
        parts.push(String::from_utf8_lossy(&buf).into_owned());
    }
    parts.push(subcommands(&cmd).render());
    parts.push(exit_status().render());
    parts.push(environment().render());
    let mut buf = Vec::new();
    man.render_version_section(&mut buf)?;
    parts.push(String::from_utf8_lossy(&buf).into_owned());
    Ok(join(&parts))
}

/// Each rendered part starts with the same apostrophe preamble; the page needs it once.
fn join(parts: &[String]) -> String {
    let preamble = Roff::new().render();
    let mut page = preamble.clone();
    for part in parts {
        page.push_str(part.strip_prefix(&preamble).unwrap_or(part));
    }
    page
}

fn subcommands(cmd: &clap::Command) -> Roff {
    let mut roff = Roff::new();
    roff.control("SH", ["SUBCOMMANDS"]);
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        roff.control("TP", []);
        roff.text([bold(format!("{} {}", cmd.get_name(), sub.get_name()))]);
        if let Some(about) = sub.get_about() {
            roff.text([roman(about.to_string())]);
        }
    }
    roff.control("PP", []);
    roff.text([
        roman("The options of each subcommand: "),
        bold("dnscron help"),
        roman(" "),
        italic("COMMAND"),
        roman(" or "),
        bold("dnscron"),
        roman(" "),
        italic("COMMAND"),
        roman(" "),
        bold("--help"),
        roman("."),
    ]);
    roff
}

/// The codes `cli::error::exit_code` gives (README's table).
fn exit_status() -> Roff {
    let codes = [
        ("0", "Success."),
        (
            "1",
            "An error, a usage error included; stderr says what, where and what to do.",
        ),
        (
            "2",
            "Changes present, an error-level finding or a zone, domain or site of the account \
             no file of the planned folder declares (plan --detailed-exitcode), or a nameserver \
             serving other data than the files (check); nothing else exits 2.",
        ),
        (
            "3",
            "apply stopped at a step a human must take in the portal; the continue_url is printed.",
        ),
        (
            "130, 143",
            "apply stopped by SIGINT or SIGTERM after the change in flight, with its report.",
        ),
    ];
    tagged_list("EXIT STATUS", &codes)
}

fn environment() -> Roff {
    let vars = [
        (
            dnscron_core::api::TOKEN_ENV,
            "The API token, unless --token-file is given. It is never printed.",
        ),
        (
            "DNSCRON_API_URL",
            "The API base URL including /api/v1, when --api-url is not given.",
        ),
        (
            "DNSCRON_NO_SYSTEM_RESOLVER",
            "When true (1, yes), DNS checks never ask the system resolver (as \
             --no-system-resolver).",
        ),
        (
            "NO_COLOR",
            "When set, no colour on stdout or stderr (colour is only ever used on a terminal).",
        ),
        (
            "RUST_LOG",
            "A log filter (e.g. dnscron=debug) that replaces the level chosen by -v and -q.",
        ),
    ];
    tagged_list("ENVIRONMENT", &vars)
}

/// A section of `.TP` paragraphs: the tag in bold, its meaning below.
fn tagged_list(title: &str, entries: &[(&str, &str)]) -> Roff {
    let mut roff = Roff::new();
    roff.control("SH", [title]);
    for (tag, meaning) in entries {
        roff.control("TP", []);
        roff.text([bold(*tag)]);
        roff.text([roman(*meaning)]);
    }
    roff
}
