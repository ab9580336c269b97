//! A repository of several accounts (`dnscron-accounts.yaml`).

mod apply;
mod apply_changed;
mod doctor;
pub mod plan;
mod retries;
mod tokens;
mod trust;
mod validate;

use std::path::Path;

/// Writes `files` (relative path, text) under `root`.
pub fn write_repo(root: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// Two accounts on `url_a` and `url_b`, tokens in DNSCRON_TOKEN_ACME and DNSCRON_TOKEN_SHOP.
pub fn two_accounts(url_a: &str, url_b: &str) -> String {
    format!(
        "accounts:\n  - name: acme\n    folder: acme\n    api_url: {url_a}\n    token_env: DNSCRON_TOKEN_ACME\n  - name: shop\n    folder: shop\n    api_url: {url_b}\n    token_env: DNSCRON_TOKEN_SHOP\n"
    )
}

mod adoption;
mod api_flags;
mod export;
mod fmt;
mod hints;
mod mass_adopt;
mod summary;
