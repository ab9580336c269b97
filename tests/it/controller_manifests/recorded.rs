//! Other tools' answers, recorded: `cargo test` reads them, so it passes on a machine with only
//! Rust. The tools are asked again only by the tests of the `live` modules, which exist under
//! the feature `live-tools`: each asks every question of its folder and fails where a
//! recording no longer matches the tool's answer (`tests/recorders/prometheus.sh` records them
//! again: it runs those tests with `DNSCRON_RECORD_ANSWERS=1`).
//!
//! A recording is a text file beside the test that reads it: the command, the SHA-256 of the
//! input the tool was given, its exit code, then what it printed. The input's digest is what
//! keeps a recording honest: a changed rule, dashboard or exposition no longer matches its
//! recording, and the default test fails, naming the script to run, until the tool has been
//! asked about the new input.

use sha2::{Digest, Sha256};

use crate::common::repo_root;

/// What a tool answered about one input.
#[derive(Debug, PartialEq, Eq)]
pub struct Answer {
    pub exit: i32,
    pub output: String,
}

/// The recording at `path` (from the repository's root), for `input`: panics when it is
/// missing or was made for another input.
pub fn recorded(path: &str, input: &[u8]) -> Answer {
    let text = std::fs::read_to_string(repo_root().join(path))
        .unwrap_or_else(|e| panic!("no recording {path} ({e}): run tests/recorders/prometheus.sh"));
    let (digest, answer) = parse(&text).unwrap_or_else(|| panic!("{path} is not a recording"));
    assert_eq!(
        digest,
        sha256(input),
        "{path} was recorded for another input: run tests/recorders/prometheus.sh"
    );
    answer
}

/// Under `DNSCRON_RECORD_ANSWERS=1`, writes `answer` as the recording of `input` at `path`;
/// otherwise asserts the recording holds exactly this answer for this input.
#[cfg(feature = "live-tools")]
pub fn record_or_compare(path: &str, command: &str, input: &[u8], answer: &Answer) {
    if std::env::var("DNSCRON_RECORD_ANSWERS").as_deref() == Ok("1") {
        let file = repo_root().join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, render(command, input, answer)).unwrap();
        return;
    }
    assert_eq!(
        &recorded(path, input),
        answer,
        "{path} is stale: the tool answers otherwise now; run tests/recorders/prometheus.sh"
    );
}

fn render(command: &str, input: &[u8], answer: &Answer) -> String {
    format!(
        "# recorded by tests/recorders/prometheus.sh: {command}\n# input sha256: {}\n# exit: {}\n{}",
        sha256(input),
        answer.exit,
        answer.output
    )
}

fn parse(text: &str) -> Option<(String, Answer)> {
    let mut lines = text.splitn(4, '\n');
    lines.next()?.strip_prefix("# recorded by ")?;
    let digest = lines.next()?.strip_prefix("# input sha256: ")?.to_owned();
    let exit = lines.next()?.strip_prefix("# exit: ")?.parse().ok()?;
    let output = lines.next().unwrap_or_default().to_owned();
    Some((digest, Answer { exit, output }))
}

pub fn sha256(input: &[u8]) -> String {
    Sha256::digest(input)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `promtool ARGS` run in a folder holding `files` (name, text), so that what it prints names
/// the files as the kit does, whatever the temporary folder; `stdin` fed to it.
#[cfg(feature = "live-tools")]
pub fn promtool(args: &[&str], files: &[(&str, &str)], stdin: &str) -> Answer {
    use std::io::Write as _;
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let mut child = Command::new("promtool")
        .args(args)
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the live tests need promtool on PATH (the Debian package prometheus)");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    Answer {
        exit: out.status.code().unwrap_or(-1),
        output: format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}

#[test]
fn a_recording_reads_back_and_refuses_another_input() {
    let answer = Answer {
        exit: 1,
        output: "FAILED:\nline two\n".to_owned(),
    };
    let text = render("promtool check rules rules.yaml", b"groups: []\n", &answer);
    assert_eq!(parse(&text), Some((sha256(b"groups: []\n"), answer)));
    assert_ne!(sha256(b"groups: []\n"), sha256(b"groups: [ ]\n"));
    assert_eq!(parse("FAILED\n"), None);
}

/// One question to promtool: its arguments, the files it reads (by the names the arguments
/// use) and its stdin, with the recording of its answer.
pub struct Promtool {
    pub recording: &'static str,
    pub args: &'static [&'static str],
    pub files: Vec<(&'static str, String)>,
    pub stdin: String,
}

impl Promtool {
    /// Everything promtool is given, as the recording's input.
    fn input(&self) -> Vec<u8> {
        let mut input = self.args.join(" ").into_bytes();
        for (name, text) in &self.files {
            input.extend(format!("\n--- {name}\n").bytes());
            input.extend(text.bytes());
        }
        input.extend(b"\n--- stdin\n");
        input.extend(self.stdin.bytes());
        input
    }

    /// promtool's recorded answer.
    pub fn recorded(&self) -> Answer {
        recorded(self.recording, &self.input())
    }

    /// Asks promtool now and compares its answer with the recording (or writes it, under
    /// `DNSCRON_RECORD_ANSWERS=1`).
    #[cfg(feature = "live-tools")]
    pub fn ask(&self) {
        let files: Vec<(&str, &str)> = self
            .files
            .iter()
            .map(|(name, text)| (*name, text.as_str()))
            .collect();
        let live = promtool(self.args, &files, &self.stdin);
        let command = format!("promtool {}", self.args.join(" "));
        record_or_compare(self.recording, &command, &self.input(), &live);
    }
}

/// Asks promtool every one of `questions`, whose recordings are the files of `folder`: a
/// recording no question asks for fails too, as it would never be checked.
#[cfg(feature = "live-tools")]
pub fn ask_all(folder: &str, questions: &[Promtool]) {
    for question in questions {
        question.ask();
    }
    let asked: Vec<&str> = questions.iter().map(|q| q.recording).collect();
    assert_every_recording_asked(folder, &asked);
}

/// The files of `folder` (from the repository's root) are exactly the recordings `asked`.
#[cfg(feature = "live-tools")]
pub fn assert_every_recording_asked(folder: &str, asked: &[&str]) {
    let mut found: Vec<String> = std::fs::read_dir(repo_root().join(folder))
        .unwrap()
        .map(|entry| format!("{folder}/{}", entry.unwrap().file_name().to_string_lossy()))
        .collect();
    found.sort();
    let mut asked: Vec<String> = asked.iter().map(|path| (*path).to_owned()).collect();
    asked.sort();
    assert_eq!(
        found, asked,
        "the recordings of {folder} and the questions asked"
    );
}
