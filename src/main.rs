// Every match over our own enums lists each variant, so a new one is a compile error wherever it
// needs a decision; `#[allow]` with a reason only on foreign `#[non_exhaustive]` enums.
#![deny(clippy::wildcard_enum_match_arm)]

fn main() -> std::process::ExitCode {
    dnscron::cli::main()
}
