use crate::common::Run;

#[test]
fn completions_name_every_subcommand() {
    let out = Run::new(["completions", "bash"]).output();
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(out.stdout.contains("completions"), "{}", out.stdout);
    assert!(out.stdout.contains("man"));
}

#[test]
fn completions_reject_an_unknown_shell() {
    let out = Run::new(["completions", "cmd.exe"]).output();
    assert_eq!(out.code, Some(2), "clap usage errors exit 2");
    assert!(
        out.stderr.contains("invalid value 'cmd.exe'"),
        "{}",
        out.stderr
    );
}

#[test]
fn man_page_is_roff() {
    let out = Run::new(["man"]).output();
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(
        out.stdout.starts_with(".ie") || out.stdout.contains(".TH dnscron"),
        "{}",
        &out.stdout[..200.min(out.stdout.len())]
    );
}

#[test]
fn broken_pipe_is_not_an_error() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let mut child = Command::new(crate::common::dnscron_bin())
        .args(["man"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Close the read end at once: dnscron must exit quietly, not panic.
    drop(child.stdout.take());
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(status.code(), Some(0), "{stderr}");
}
