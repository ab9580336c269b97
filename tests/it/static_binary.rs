//! What the release binary needs from the machine it runs on: no CA bundle while the API is
//! plain http (loopback), so `demo` runs in an empty root and in the `FROM scratch` image; an
//! https API still needs one, and without it nothing is sent.

use crate::common::{Test, mask_ports};

/// `SSL_CERT_FILE`/`SSL_CERT_DIR` pointing nowhere: the system CA bundle can't be loaded, as in
/// an empty root (the variables replace the system paths, they don't add to them).
fn without_ca_bundle(test: Test) -> Test {
    test.env("SSL_CERT_FILE", "/nonexistent/ca-certificates.crt")
        .env("SSL_CERT_DIR", "/nonexistent/certs")
}

fn demo() -> Test {
    Test::new()
        .arg("demo")
        .env("DNSCRON_PLAN_ID", format!("{:032x}", 1))
        .env("DNSCRON_TIMESTAMP", "2026-01-02T03:04:05Z")
}

#[test]
fn demo_talks_to_its_loopback_emulator_without_a_ca_bundle() {
    // The emulator's port is the one thing two demo runs don't share.
    let with_bundle = mask_ports(&demo().snapshot());
    let without = mask_ports(&without_ca_bundle(demo()).snapshot());
    assert!(with_bundle.starts_with("exit: Some(0)\n"), "{with_bundle}");
    assert_eq!(without, with_bundle);
}

#[test]
fn an_https_api_still_needs_the_ca_bundle() {
    let stderr = "\u{20}WARN Error loading CA root certificate: failed to read PEM from file: No such file or directory (os error 2) at '/nonexistent/ca-certificates.crt'
 WARN Error loading CA root certificate: opening directory: No such file or directory (os error 2) at '/nonexistent/certs'
error: cannot set up the HTTP client: builder error: unexpected error: No CA certificates were loaded from the system
";
    without_ca_bundle(Test::new())
        .args(["plan", "examples/dns"])
        .api("https://127.0.0.1:9/api/v1", "not-sent")
        .expect_status(1)
        .expect_stderr(stderr)
        .run();
}

/// The getrandom fallback test runs the binary under a seccomp filter that Python's `ctypes`
/// installs (tests/it/fixtures/no_getrandom.py; the workspace forbids `unsafe`, which a Rust
/// `prctl` would need): Python is a tool a machine with only Rust lacks, so it is a live test.
#[cfg(feature = "live-tools")]
mod live {
    use crate::common::mask_ports;

    /// `demo` (whose apply checks DNS) run as `program` with `args` before the binary's path.
    fn demo_through(program: &str, args: &[&str]) -> String {
        let base = crate::common::command();
        let mut cmd = std::process::Command::new(program);
        cmd.env_clear()
            .args(args)
            .arg(crate::common::dnscron_bin())
            .arg("demo")
            .env("DNSCRON_PLAN_ID", format!("{:032x}", 1))
            .env("DNSCRON_TIMESTAMP", "2026-01-02T03:04:05Z")
            .current_dir(crate::common::repo_root());
        for (key, value) in base.get_envs() {
            if let Some(value) = value {
                cmd.env(key, value);
            }
        }
        let out = cmd
            .output()
            .unwrap_or_else(|e| panic!("spawn {program}: {e}"));
        mask_ports(&format!(
            "exit: {:?}\n--- stdout\n{}--- stderr\n{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }

    /// A static binary in a root without device nodes gets no randomness from the `getrandom` crate
    /// (no libc `getrandom` to find, no /dev/random to fall back to): hickory's `Message::query()`
    /// panicked in apply's DNS check there ("could not initialize ThreadRng"). The fixture makes
    /// this binary see the same (see its docstring); `demo` must print exactly what it prints
    /// without it, DNS check included.
    #[test]
    fn demo_checks_dns_when_the_os_gives_the_getrandom_crate_no_randomness() {
        let plain = demo_through("env", &[]);
        assert!(plain.starts_with("exit: Some(0)\n"), "{plain}");
        assert!(
            plain.contains("DNS: example.org is live on 2/2 nameservers."),
            "{plain}"
        );
        let without = demo_through("python3", &["tests/it/fixtures/no_getrandom.py"]);
        assert_eq!(without, plain);
    }
}
