//! `dnscron schema`: the JSON Schema of the YAML files, for editors (`yaml-language-server`);
//! `dnscron schema --plan`: the JSON Schema of the plan file, for tools that read saved plans.

use crate::cli::error::{CommandError, CommandResult, ErrorKind, Outcome};
use crate::cli::write_stdout;

#[derive(Debug, clap::Args)]
pub struct SchemaArgs {
    /// Print the schema of the plan file (`plan --out FILE`, `plan --format json`) instead:
    /// one account's plan (format_version 5) and several accounts' (6).
    #[arg(long)]
    pub plan: bool,
}

pub(crate) fn run(args: SchemaArgs) -> CommandResult {
    let text = if args.plan {
        plan_schema_text()?
    } else {
        schema_text()?
    };
    write_stdout(&text)?;
    Ok(Outcome::Success)
}

/// Exactly the text of the committed `schema/dnscron.schema.json`.
pub(crate) fn schema_text() -> Result<String, CommandError> {
    pretty(&dnscron_core::config::json_schema())
}

/// Exactly the text of the committed `schema/plan.schema.json`.
pub(crate) fn plan_schema_text() -> Result<String, CommandError> {
    pretty(&dnscron_core::plan_file::json_schema())
}

fn pretty(schema: &serde_json::Value) -> Result<String, CommandError> {
    let mut text = serde_json::to_string_pretty(schema).map_err(|e| {
        CommandError::quoting(ErrorKind::Internal, "cannot serialize the schema", e)
    })?;
    text.push('\n');
    Ok(text)
}
