//! `dnscron schema`: the JSON Schema of the YAML files, for editors (`yaml-language-server`).

use crate::cli::error::{CommandError, CommandResult, ErrorKind, Outcome};
use crate::cli::write_stdout;

pub fn run() -> CommandResult {
    write_stdout(&schema_text()?)?;
    Ok(Outcome::Success)
}

/// Exactly the text of the committed `schema/dnscron.schema.json`.
pub fn schema_text() -> Result<String, CommandError> {
    let mut text =
        serde_json::to_string_pretty(&dnscron_core::config::json_schema()).map_err(|e| {
            CommandError::quoting(ErrorKind::Internal, "cannot serialize the schema", e)
        })?;
    text.push('\n');
    Ok(text)
}
