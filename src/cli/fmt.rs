//! `dnscron fmt [--check] [PATH]...`: rewrite the desired-state files in their canonical form
//! (docs/file-format.md, "Canonical form"); `--check` writes nothing and fails with a diff when
//! a file would change, for CI, as `terraform fmt -check` does.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::cli::accounts::{AccountArgs, Repository, RepositoryError};
use crate::cli::error::{CommandError, CommandResult, ErrorKind, Outcome};
use crate::cli::validate::report_diagnostics;
use crate::cli::write_stdout;
use crate::render;
use dnscron_api::untrusted;
use dnscron_core::config;
use dnscron_core::config::fmt::{FileFormat, Formatted};

#[derive(Debug, clap::Args)]
pub struct FmtArgs {
    /// Files, or directories searched recursively for *.yaml and *.yml (as `validate` finds them).
    #[arg(default_value = ".")]
    pub paths: Vec<PathBuf>,
    /// Write nothing: print a diff of each file that is not in canonical form and exit 1 if any.
    #[arg(long)]
    pub check: bool,
    #[command(flatten)]
    pub account: AccountArgs,
}

/// Invalid files exit 1 with the problems as `validate` prints them, and nothing is written.
pub(crate) fn run(args: FmtArgs) -> CommandResult {
    let repository = Repository::discover(&args.paths, &args.account)
        .map_err(RepositoryError::into_command_error)?;
    let files = format_groups(&repository.folder_groups())?;
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
        rewrite(&file.path, text)?;
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

/// Every group's files in canonical form, each group checked on its own (an account's files
/// as `plan` loads them); every group's problems in one report.
fn format_groups(groups: &[Vec<PathBuf>]) -> Result<Vec<FileFormat>, CommandError> {
    let mut files = Vec::new();
    let mut problems = config::Diagnostics::default();
    for paths in groups {
        match config::yaml_texts(paths).and_then(config::fmt::format_texts) {
            Ok(formatted) => files.extend(formatted),
            Err(diags) => problems.items.extend(diags.items),
        }
    }
    if problems.is_empty() {
        Ok(files)
    } else {
        Err(report_diagnostics(&problems))
    }
}

/// Writes through a temporary file beside it and a rename, as `plan --out` does, so an
/// interrupted `fmt` never leaves half a file; worded as every other command words a file it
/// could not write: what, the cause under it, what to do.
fn rewrite(path: &Path, text: &str) -> Result<(), CommandError> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".dnscron-fmt.tmp");
    let tmp = PathBuf::from(tmp);
    let write = std::fs::write(&tmp, text).and_then(|()| std::fs::rename(&tmp, path));
    write.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        let shown = untrusted::escape(&path.display().to_string()).into_owned();
        CommandError::with_cause(
            ErrorKind::User,
            format!("writing {shown} in canonical form failed; it is left as it was"),
            e,
        )
        .with_hint("check that the file and its folder are writable, then run `dnscron fmt` again (the files reported `formatted` above are done)")
    })
}

fn files_word(n: usize) -> &'static str {
    if n == 1 { "file" } else { "files" }
}
