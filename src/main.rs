fn main() -> std::process::ExitCode {
    dnscron::cli::main()
}
