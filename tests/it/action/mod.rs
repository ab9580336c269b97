//! The first-party GitHub Action (action.yml, .github/action/*.sh) run as the runner would run
//! it: the install script downloads from a fake release served on 127.0.0.1, the run script
//! drives a stub `dnscron`. Both scripts start from an empty environment, like `Test`.

mod install;
mod pins;
mod run;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::http::{StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};
use tokio::net::TcpListener;

use crate::common::repo_root;

pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// A stand-in for `dnscron`: answers `--version` like the real one and echoes anything else,
/// exiting with $STUB_EXIT (default 0).
pub fn stub() -> String {
    format!(
        r#"#!/bin/sh
if [ "$1" = --version ]; then echo "dnscron {VERSION}"; exit 0; fi
echo "stub dnscron: $*"
exit "${{STUB_EXIT:-0}}"
"#
    )
}

/// Release assets served at /releases/download/v<version>/<name>, with a log of the paths
/// asked for. A static file server, unlike client::stub's scripted JSON API.
pub struct FakeRelease {
    pub base_url: String,
    files: Arc<HashMap<String, Vec<u8>>>,
    log: Arc<Mutex<Vec<String>>>,
}

impl FakeRelease {
    pub async fn serve(assets: Vec<(String, Vec<u8>)>) -> FakeRelease {
        let files: HashMap<String, Vec<u8>> = assets
            .into_iter()
            .map(|(name, bytes)| (format!("/releases/download/v{VERSION}/{name}"), bytes))
            .collect();
        let files = Arc::new(files);
        let log = Arc::new(Mutex::new(Vec::new()));
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let app = axum::Router::new()
            .fallback(serve_file)
            .with_state((Arc::clone(&files), Arc::clone(&log)));
        tokio::spawn(async move { axum::serve(listener, app).await });
        FakeRelease {
            base_url: format!("http://{addr}/releases/download"),
            files,
            log,
        }
    }

    pub fn requests(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }

    pub fn has(&self, name: &str) -> bool {
        self.files
            .contains_key(&format!("/releases/download/v{VERSION}/{name}"))
    }
}

type Served = (Arc<HashMap<String, Vec<u8>>>, Arc<Mutex<Vec<String>>>);

async fn serve_file(State((files, log)): State<Served>, uri: Uri) -> Response {
    log.lock().unwrap().push(uri.path().to_string());
    match files.get(uri.path()) {
        Some(bytes) => (StatusCode::OK, bytes.clone()).into_response(),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

/// `dnscron-<version>-<target>.tar.gz` laid out like the release workflow's archives, with
/// `script` as the binary.
pub fn archive(target: &str, script: &str) -> (String, Vec<u8>) {
    let stem = format!("dnscron-{VERSION}-{target}");
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(&stem)).unwrap();
    let bin = dir.path().join(&stem).join("dnscron");
    std::fs::write(&bin, script).unwrap();
    make_executable(&bin);
    let name = format!("{stem}.tar.gz");
    let status = Command::new("tar")
        .args(["-czf", &name, &stem])
        .current_dir(dir.path())
        .status()
        .expect("tar must be installed: the action's install script needs it too");
    assert!(status.success());
    let bytes = std::fs::read(dir.path().join(&name)).unwrap();
    (name, bytes)
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A sha256sums.txt as `sha256sum` writes it.
pub fn sums(entries: &[(&str, &[u8])]) -> (String, Vec<u8>) {
    let text: String = entries
        .iter()
        .map(|(name, bytes)| format!("{}  {name}\n", sha256_hex(bytes)))
        .collect();
    ("sha256sums.txt".to_string(), text.into_bytes())
}

pub fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Where `tool` is on the test's PATH (bash is started by absolute path, so a test may hand the
/// script a PATH without it).
pub fn which(tool: &str) -> PathBuf {
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|dir| dir.join(tool))
        .find(|path| path.is_file())
        .unwrap_or_else(|| panic!("{tool} is not on PATH"))
}

/// What a script run did.
#[derive(Debug, PartialEq)]
pub struct Ran {
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `.github/action/<script>` with bash in an empty environment plus `envs`.
pub async fn run_script(script: &str, dir: &Path, envs: Vec<(&str, String)>) -> Ran {
    let path = repo_root().join(".github/action").join(script);
    let dir = dir.to_path_buf();
    let envs: Vec<(String, String)> = envs.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    // The fake release answers on this runtime, so the blocking child waits elsewhere.
    tokio::task::spawn_blocking(move || {
        let out = Command::new(which("bash"))
            .arg(path)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &dir)
            .envs(envs)
            .current_dir(&dir)
            .output()
            .unwrap();
        Ran {
            status: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8(out.stdout).unwrap(),
            stderr: String::from_utf8(out.stderr).unwrap(),
        }
    })
    .await
    .unwrap()
}
