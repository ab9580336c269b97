//! Desired-state files: YAML → validated [`model::Desired`].
//!
//! [`load`] is the one entry point for every command that reads the files; on failure it
//! returns [`Diagnostics`] holding every problem (the `dnscron` binary draws them).

// Deliberately public: the accounts file, the scoped plan's changed targets, `fmt`, and the
// desired state's types.
pub mod accounts;
pub mod changed;
mod diagnostics;
mod extract;
pub mod fmt;
pub(crate) mod glob;
mod load;
pub mod model;
pub(crate) mod raw;
#[cfg(test)]
mod raw_tests;
mod revalidate;
mod suggest;
mod tree;
/// The located tree, for readers of other tools' YAML (`import::from_files::octodns`): the one
/// YAML path.
pub(crate) use tree::{Construct, Node as YamlNode, Value as YamlValue, documents_presented};
mod validate;

/// The most text a file may hold; a reader of files for the loader need not read more.
pub(crate) use tree::MAX_SCALAR_BYTES;

pub use diagnostics::{Diagnostic, Diagnostics, LineBounds, SourceFile};
pub(crate) use glob::glob_match;
pub use load::{Loaded, load, load_texts, load_with_warnings, yaml_texts};
pub use raw::json_schema;
pub use revalidate::revalidate;
pub(crate) use validate::{ZONE_PLACEHOLDER, check_slug};

/// Parses `source` into its YAML documents the way the loader does (the `records:` items streamed,
/// each item dropped as it comes) and returns how many documents
/// there are, or the syntax error. For benchmarks that split loading time into parsing and the rest.
pub fn parse_yaml(source: &str) -> Result<usize, String> {
    tree::documents_streaming(source, "records", &mut |_, _| {})
        .map(|docs| docs.len())
        .map_err(|e| e.message)
}
