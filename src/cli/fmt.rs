//! `dnscron fmt [--check] [PATH]...`: rewrite the desired-state files in their canonical form
//! (docs/file-format.md, "Canonical form"); `--check` writes nothing and fails with a diff when
//! a file would change, for CI, as `terraform fmt -check` does.

use std::io::Write as _;
use std::path::PathBuf;

use crate::cli::error::{CommandError, CommandResult, ErrorKind, Outcome};
use crate::cli::validate::report_diagnostics;
use crate::cli::write_stdout;
use crate::render;
use dnscron_core::config;
use dnscron_core::config::fmt::{FileFormat, Formatted};
use dnscron_core::untrusted;

#[derive(Debug, clap::Args)]
pub struct FmtArgs {
    /// Files, or directories searched recursively for *.yaml and *.yml (as `validate` finds them).
    #[arg(default_value = ".")]
    pub paths: Vec<PathBuf>,
    /// Write nothing: print a diff of each file that is not in canonical form and exit 1 if any.
    #[arg(long)]
    pub check: bool,
}

/// Invalid files exit 1 with the problems as `validate` prints them, and nothing is written.
pub fn run(args: FmtArgs) -> CommandResult {
    let texts = config::yaml_texts(&args.paths).map_err(|d| report_diagnostics(&d))?;
    let files = config::fmt::format_texts(texts).map_err(|d| report_diagnostics(&d))?;
    for file in &files {
        if let Formatted::LeftAlone(left) = &file.formatted {
            let _ =
                std::io::stderr().write_all(render::fmt::left_alone(&file.path, left).as_bytes());
        }
    }
    let unformatted: Vec<(&FileFormat, &str)> = files
        .iter()
        .filter_map(|f| match &f.formatted {
            Formatted::Rewritten(text) => Some((f, text.as_str())),
            Formatted::Unchanged | Formatted::LeftAlone(_) => None,
        })
        .collect();
    let total = files.len();
    let left = files
        .iter()
        .filter(|f| matches!(f.formatted, Formatted::LeftAlone(_)))
        .count();
    let left_note = match left {
        0 => String::new(),
        n => format!(", {n} left as written (see above)"),
    };
    if args.check {
        for (file, text) in &unformatted {
            write_stdout(&render::fmt::diff(&file.path, &file.original, text))?;
        }
        if unformatted.is_empty() {
            let formatted = total - left;
            write_stdout(&format!(
                "{formatted} of {total} {} already in canonical form{left_note}\n",
                files_word(total)
            ))?;
            return Ok(Outcome::Success);
        }
        write_stdout(&format!(
            "{} of {total} {} not in canonical form (`dnscron fmt` rewrites {}){left_note}\n",
            unformatted.len(),
            files_word(total),
            if unformatted.len() == 1 { "it" } else { "them" },
        ))?;
        return Ok(Outcome::Unformatted);
    }
    for (file, text) in &unformatted {
        std::fs::write(&file.path, text).map_err(|e| {
            CommandError::quoting(
                ErrorKind::User,
                &format!("cannot write `{}`", file.path.display()),
                e,
            )
        })?;
        let path = file.path.display().to_string();
        write_stdout(&format!("formatted {}\n", untrusted::escape(&path)))?;
    }
    write_stdout(&format!(
        "{} of {total} {} rewritten{left_note}\n",
        unformatted.len(),
        files_word(total)
    ))?;
    Ok(Outcome::Success)
}

fn files_word(n: usize) -> &'static str {
    if n == 1 { "file" } else { "files" }
}
