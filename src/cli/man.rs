//! `dnscron man`: one roff page for the whole CLI.
//!
//! Built from clap_mangen's sections rather than `Man::render`, whose subcommand list names a
//! page per subcommand (`dnscron-plan(1)`, …) that nothing generates; this page lists the
//! subcommands itself and adds the EXIT STATUS and ENVIRONMENT sections, drawn from the tables
//! README's are checked against (`cli::reference`).

use clap::CommandFactory;
use clap_mangen::Man;
use roff::{Inline, Roff, bold, italic, roman};

use crate::cli::error::{CommandError, CommandResult, ErrorKind, Outcome};
use crate::cli::reference::{ENVIRONMENT, EXIT_CODES, Row, Span, spans};
use crate::cli::{Cli, write_stdout};

/// `dnscron man | man -l -`.
pub(crate) fn run() -> CommandResult {
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
    parts.push(tagged_list("EXIT STATUS", EXIT_CODES).render());
    parts.push(tagged_list("ENVIRONMENT", ENVIRONMENT).render());
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

/// A section of `.TP` paragraphs from one of `cli::reference`'s tables: the tag in bold, its
/// meaning below, its code spans bold.
fn tagged_list(title: &str, rows: &[Row]) -> Roff {
    let mut roff = Roff::new();
    roff.control("SH", [title]);
    for row in rows {
        roff.control("TP", []);
        roff.text([bold(row.key)]);
        let meaning: Vec<Inline> = spans(row.meaning)
            .into_iter()
            .map(|span| match span {
                Span::Plain(text) => roman(text),
                Span::Code(code) => bold(code),
            })
            .collect();
        roff.text(meaning);
    }
    roff
}
