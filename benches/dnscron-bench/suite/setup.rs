//! Shared plumbing: scratch directories, the emulator, clients, request accounting.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use dnscron_api::{ApiConfig, PAGE_LIMIT, ReadClient, Token, WriteClient};
use dnscron_core::config::model::Desired;
use dnscron_emulator::{self as emulator, BackgroundEmulator, Counters, Seed};

use super::BenchError;
use super::workload::{Account, TOKEN};

/// A directory under the system temp dir, removed when dropped.
pub struct Scratch(PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Result<Scratch, BenchError> {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("dnscron-bench-{}-{n}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| BenchError::Setup(e.to_string()))?;
        Ok(Scratch(dir))
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// An account's files in a scratch dir, loaded by `config::load` as the CLI does.
pub fn write_and_load(account: &Account, name: &str) -> Result<(Scratch, Desired), BenchError> {
    let dir = Scratch::new(name)?;
    account
        .write_files(dir.path())
        .map_err(|e| BenchError::Setup(format!("writing the desired files: {e}")))?;
    let desired = load(dir.path())?;
    Ok((dir, desired))
}

pub fn load(dir: &Path) -> Result<Desired, BenchError> {
    dnscron_core::config::load(&[dir.to_path_buf()]).map_err(|d| {
        BenchError::step(
            "loading the generated files",
            dnscron::render::diagnostics::render(&d, dnscron::render::diagnostics::Style::Plain)
                .lines()
                .take(12)
                .collect::<Vec<_>>()
                .join("\n"),
        )
    })
}

pub fn start(seed: Seed) -> Result<BackgroundEmulator, BenchError> {
    emulator::start_background(seed).map_err(|e| BenchError::Setup(e.to_string()))
}

pub fn config(emu: &BackgroundEmulator, token: &str) -> Result<ApiConfig, BenchError> {
    let token = Token::new(token).map_err(|e| BenchError::Setup(e.to_string()))?;
    ApiConfig::new(&emu.base_url(), token).map_err(|e| BenchError::Setup(e.to_string()))
}

pub fn read_client(emu: &BackgroundEmulator, token: &str) -> Result<ReadClient, BenchError> {
    ReadClient::new(config(emu, token)?).map_err(|e| BenchError::Setup(e.to_string()))
}

pub fn write_client(emu: &BackgroundEmulator) -> Result<WriteClient, BenchError> {
    WriteClient::new(config(emu, TOKEN)?).map_err(|e| BenchError::Setup(e.to_string()))
}

/// Pages a list of `n` items takes (an empty list is still one page).
pub fn pages(n: usize) -> u64 {
    (n.div_ceil(PAGE_LIMIT as usize)).max(1) as u64
}

/// The emulator's per-route counts keyed like the client's (`GET /dns/{zone}/records`).
pub fn emulator_routes(counters: &Counters) -> BTreeMap<String, u64> {
    counters
        .per_route
        .iter()
        .map(|(route, n)| (route.replacen(" /api/v1", " ", 1).replace("  ", " "), *n))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_counts_and_route_keys() {
        assert_eq!(pages(0), 1);
        assert_eq!(pages(100), 1);
        assert_eq!(pages(101), 2);
        let mut c = Counters::default();
        c.per_route
            .insert("GET /api/v1/dns/{zone}/records".into(), 3);
        assert_eq!(emulator_routes(&c).get("GET /dns/{zone}/records"), Some(&3));
    }
}
