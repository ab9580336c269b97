//! install.sh: the verified download, the cache hit, and every refusal (each leaves nothing
//! installed).

use std::os::unix::fs::symlink;
use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use tempfile::TempDir;

use super::{FakeRelease, Ran, VERSION, archive, run_script, sha256_hex, stub, sums, which};

const LINUX_X64: &str = "x86_64-unknown-linux-musl";

/// A runner's folders: the install folder and GitHub's output files.
struct Runner {
    home: TempDir,
}

impl Runner {
    fn new() -> Runner {
        Runner {
            home: tempfile::tempdir().unwrap(),
        }
    }

    fn install_dir(&self) -> PathBuf {
        self.home.path().join("tool-cache/dnscron")
    }

    fn file(&self, name: &str) -> String {
        std::fs::read_to_string(self.home.path().join(name)).unwrap_or_default()
    }

    fn env(&self, base_url: &str, os: &str, arch: &str) -> Vec<(&'static str, String)> {
        let home = self.home.path();
        vec![
            ("DNSCRON_VERSION", VERSION.to_string()),
            ("DNSCRON_BASE_URL", base_url.to_string()),
            (
                "DNSCRON_INSTALL_DIR",
                self.install_dir().display().to_string(),
            ),
            ("RUNNER_OS", os.to_string()),
            ("RUNNER_ARCH", arch.to_string()),
            ("GITHUB_OUTPUT", home.join("output").display().to_string()),
            ("GITHUB_PATH", home.join("path").display().to_string()),
        ]
    }

    async fn install(&self, base_url: &str, os: &str, arch: &str) -> Ran {
        run_script("install.sh", self.home.path(), self.env(base_url, os, arch)).await
    }

    /// A refusal: exit 1, one error annotation, nothing installed, nothing published.
    fn assert_refused(&self, ran: Ran, stdout: &str, error: &str) {
        let expected = Ran {
            status: 1,
            stdout: stdout.to_string(),
            stderr: format!("::error title=dnscron install::{error}\n"),
        };
        assert_eq!(ran, expected);
        assert!(!self.install_dir().exists());
        assert_eq!((self.file("output"), self.file("path")), Default::default());
    }

    /// A Linux x86_64 install that downloads `name` and then refuses it.
    async fn assert_download_refused(&self, release: &FakeRelease, name: &str, error: &str) {
        let ran = self.install(&release.base_url, "Linux", "X64").await;
        let downloading = format!("downloading {}/v{VERSION}/{name}\n", release.base_url);
        self.assert_refused(ran, &downloading, error);
    }
}

fn asset_path(name: &str) -> String {
    format!("/releases/download/v{VERSION}/{name}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn installs_the_verified_binary_then_reuses_the_cached_one() {
    let (name, bytes) = archive(LINUX_X64, &stub());
    let release = FakeRelease::serve(vec![
        (name.clone(), bytes.clone()),
        sums(&[(&name, &bytes)]),
    ])
    .await;
    let runner = Runner::new();
    let dir = runner.install_dir();

    let started = Instant::now();
    let ran = runner.install(&release.base_url, "Linux", "X64").await;
    let took = started.elapsed();
    println!(
        "action install from a fake release on 127.0.0.1: {} ms",
        took.as_millis()
    );
    let expected = Ran {
        status: 0,
        stdout: format!(
            "downloading {base}/v{VERSION}/{name}\nsha256 ok: {sum}  {name}\ninstalled dnscron {VERSION} ({LINUX_X64}) in {dir}\n",
            base = release.base_url,
            sum = sha256_hex(&bytes),
            dir = dir.display(),
        ),
        stderr: String::new(),
    };
    assert_eq!(ran, expected);
    let bin = dir.join("dnscron");
    assert_eq!(runner.file("output"), format!("path={}\n", bin.display()));
    assert_eq!(runner.file("path"), format!("{}\n", dir.display()));
    assert_eq!(
        release.requests(),
        [asset_path(&name), asset_path("sha256sums.txt")]
    );
    let out = Command::new(&bin).args(["plan", "dns/"]).output().unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "stub dnscron: plan dns/\n"
    );

    // A cache hit (actions/cache restored the folder): nothing downloaded.
    let again = runner.install(&release.base_url, "Linux", "X64").await;
    let expected = Ran {
        status: 0,
        stdout: format!(
            "dnscron {VERSION} already installed in {} (cached)\n",
            dir.display()
        ),
        stderr: String::new(),
    };
    assert_eq!(again, expected);
    assert_eq!(release.requests().len(), 2);
    assert_eq!(
        runner.file("output"),
        format!("path={0}\npath={0}\n", bin.display())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn picks_the_archive_built_for_the_runner() {
    let platforms = [
        ("Linux", "X64", "x86_64-unknown-linux-musl"),
        ("Linux", "ARM64", "aarch64-unknown-linux-musl"),
        ("macOS", "X64", "x86_64-apple-darwin"),
        ("macOS", "ARM64", "aarch64-apple-darwin"),
    ];
    let archives: Vec<_> = platforms
        .iter()
        .map(|(_, _, target)| archive(target, &stub()))
        .collect();
    let listed: Vec<(&str, &[u8])> = archives
        .iter()
        .map(|(name, bytes)| (name.as_str(), bytes.as_slice()))
        .collect();
    let mut assets = archives.clone();
    assets.push(sums(&listed));
    let release = FakeRelease::serve(assets).await;

    let mut installed = Vec::new();
    for (os, arch, _) in platforms {
        let runner = Runner::new();
        let ran = runner.install(&release.base_url, os, arch).await;
        assert_eq!((ran.status, ran.stderr), (0, String::new()));
        let last = ran.stdout.lines().last().unwrap_or_default().to_string();
        let dir = runner.install_dir().display().to_string();
        installed.push(last.replace(&dir, "DIR"));
    }
    let expected: Vec<String> = platforms
        .iter()
        .map(|(_, _, target)| format!("installed dnscron {VERSION} ({target}) in DIR"))
        .collect();
    assert_eq!(installed, expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tampered_archive_is_refused_and_nothing_is_installed() {
    let (name, published) = archive(LINUX_X64, &stub());
    let (_, tampered) = archive(LINUX_X64, "#!/bin/sh\necho tampered\n");
    let release = FakeRelease::serve(vec![
        (name.clone(), tampered.clone()),
        sums(&[(&name, &published)]),
    ])
    .await;
    let error = format!(
        "sha256 mismatch for {name}: the release publishes {}, the download is {}; nothing was installed (a corrupted or tampered download: retry, and report it if it persists)",
        sha256_hex(&published),
        sha256_hex(&tampered)
    );
    Runner::new()
        .assert_download_refused(&release, &name, &error)
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_archive_the_sums_do_not_list_is_refused() {
    let (name, bytes) = archive(LINUX_X64, &stub());
    let (other, other_bytes) = archive("aarch64-unknown-linux-musl", &stub());
    let release =
        FakeRelease::serve(vec![(name.clone(), bytes), sums(&[(&other, &other_bytes)])]).await;
    assert!(!release.has(&other));
    let error = format!(
        "sha256sums.txt of v{VERSION} lists no {name}; refusing to install an unverified binary"
    );
    Runner::new()
        .assert_download_refused(&release, &name, &error)
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_platform_is_refused_before_any_download() {
    let release = FakeRelease::serve(Vec::new()).await;
    let runner = Runner::new();
    let ran = runner.install(&release.base_url, "Linux", "ARM").await;
    runner.assert_refused(
        ran,
        "",
        "no dnscron release binary for Linux/ARM; released: Linux X64, Linux ARM64, macOS X64, macOS ARM64, Windows X64 (elsewhere: cargo install dnscron --locked)",
    );
    assert_eq!(release.requests(), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plain_http_beyond_this_machine_and_a_v_prefixed_version_are_refused() {
    let runner = Runner::new();
    let ran = runner
        .install("http://releases.example.net/download", "Linux", "X64")
        .await;
    runner.assert_refused(
        ran,
        "",
        "DNSCRON_BASE_URL must be an https:// URL (plain http only to 127.0.0.1 or localhost); got 'http://releases.example.net/download'",
    );

    let mut env = runner.env("https://releases.example.net", "Linux", "X64");
    env[0].1 = format!("v{VERSION}");
    let ran = run_script("install.sh", runner.home.path(), env).await;
    runner.assert_refused(
        ran,
        "",
        &format!(
            "DNSCRON_VERSION must be a release version like 0.1.0 (no leading v); got 'v{VERSION}'"
        ),
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_tool_is_named_instead_of_skipped() {
    let runner = Runner::new();
    // Every tool the script uses but curl.
    let bin = runner.home.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    for tool in ["tar", "awk", "cut", "mktemp", "sha256sum"] {
        symlink(which(tool), bin.join(tool)).unwrap();
    }
    let mut env = runner.env("https://releases.example.net", "Linux", "X64");
    env.push(("PATH", bin.display().to_string()));
    let ran = run_script("install.sh", runner.home.path(), env).await;
    runner.assert_refused(
        ran,
        "",
        "dnscron's installer needs curl on PATH; install it on the runner (or use the container image ghcr.io/dnscron/dnscron)",
    );
}
