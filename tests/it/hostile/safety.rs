//! Server-supplied names never become paths outside `--out`, and server text never reaches a
//! terminal or a CI log raw (escape sequences, bidi overrides, fake workflow-command lines).

use std::path::{Path, PathBuf};

use serde_json::json;

use crate::client::stub::{Reply, Seen, Stub};
use crate::common::{Test, filters};

const TOKEN: &str = "demo-token";

/// Every file below `dir` (symlinks not followed), relative, sorted.
fn tree(dir: &Path) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries {
            let path = e.unwrap().path();
            let rel = path.strip_prefix(root).unwrap().display().to_string();
            if path.is_symlink() {
                out.push(format!("{rel} -> (symlink)"));
            } else if path.is_dir() {
                walk(root, &path, out);
            } else {
                out.push(rel);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// What reached the terminal (a run's stdout and stderr) holds no control byte but line
/// breaks, no bidi control, and no line a GitHub runner would execute other than dnscron's own
/// annotations.
fn assert_safe_to_print(text: &str, own_annotations: bool) {
    let bad: Vec<char> = text
        .chars()
        .filter(|c| *c != '\n' && dnscron_api::untrusted::is_unsafe_char(*c))
        .collect();
    assert!(bad.is_empty(), "raw {bad:?} in:\n{text}");
    for line in text.lines() {
        let line = line.trim_start();
        let ours = own_annotations
            && [
                "::error title=dnscron plan::",
                "::error file=example.com.yaml,line=1,col=7,title=dnscron plan::",
                "::notice title=dnscron plan::",
            ]
            .iter()
            .any(|p| line.starts_with(p));
        assert!(
            ours || !(line.starts_with("::") || line.starts_with("##[")),
            "a workflow-command line: {line}"
        );
    }
}

/// Runs a `Test` off the stub's runtime (the child process talks to the stub).
async fn run<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    tokio::task::spawn_blocking(f).await.unwrap()
}

fn paths(stub: &Stub) -> Vec<String> {
    stub.requests()
        .iter()
        .map(|s| format!("{} {}", s.method, s.path))
        .collect()
}

// ---- 1. names from the server never become paths outside --out ----

/// An account with no zones and one site, `slug`, with one cron job.
fn one_site(slug: &'static str) -> impl Fn(&Seen) -> Reply + Send + Sync + 'static {
    move |seen| match seen.path.as_str() {
        "/dns" => Reply::ok(json!({"zones": [], "meta": {"has_more": false}})),
        "/sites" => Reply::ok(json!({"sites": [{"slug": slug, "state": "active"}],
                                     "meta": {"has_more": false}})),
        p if p.ends_with("/cron") => Reply::ok(json!({"cron_jobs": [
            {"index": 1, "schedule": "0 * * * *", "command": "php a.php"}]})),
        _ => Reply::error(404, "not_found", "no such thing"),
    }
}

/// `import --all --out repo/dnscron` in `dir` against `stub`, with `--force` or not.
fn import_all(stub: &Stub, dir: &Path, force: bool) -> Test {
    let test = Test::new()
        .args(["import", "--all", "--out", "repo/dnscron"])
        .api(&stub.base_url, TOKEN)
        .current_dir(dir);
    if force { test.arg("--force") } else { test }
}

const SLUG_HINT: &str = "hint: import writes sites/<slug>.yaml, so it takes only slugs a site file can declare (lower-case letters, digits, `-` and `_`); report this slug to the hosting provider, and import the other sites with --site SLUG\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slug_that_is_not_a_file_name_is_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let absolute: &'static str = Box::leak(
        dir.path()
            .join("abs-escaped")
            .display()
            .to_string()
            .into_boxed_str(),
    );
    for (slug, reason) in [
        ("../../escaped", "it contains `.`"),
        (absolute, "it contains `/`"),
        ("a/b", "it contains `/`"),
        ("..", "it contains `.`"),
        ("a\\b", "it contains `\\`"),
        ("", "it is empty"),
        ("shop\u{1b}[2J", "it contains `\\u{1b}`"),
        ("Shop", "it contains the upper-case letter `S`"),
    ] {
        for force in [false, true] {
            let stub = Stub::start(one_site(slug)).await;
            let test = import_all(&stub, dir.path(), force);
            let shown = dnscron_api::untrusted::escape(slug);
            let test = test.expect_status(1).expect_stderr(format!(
                "error: the site slug `{shown}` can't be a file name ({reason}); nothing was written\n{SLUG_HINT}"
            ));
            let out = run(move || test.run()).await;
            assert_safe_to_print(&out.snapshot(), false);
            assert_eq!(tree(dir.path()), Vec::<String>::new(), "{slug:?}");
            // Refused before any cron job was read.
            assert_eq!(paths(&stub), ["GET /dns", "GET /sites"], "{slug:?}");
        }
    }
}

fn two_names(seen: &Seen) -> Reply {
    match seen.path.as_str() {
        "/dns" => Reply::ok(json!({"zones": [{"zone": "xn--bcher-kva.example"}],
                                   "meta": {"has_more": false}})),
        "/domains" => no_domains(),
        "/dns/xn--bcher-kva.example/records" => Reply::ok(json!({
            "records": [{"id": 1, "name": "xn--bcher-kva.example.", "type": "A", "ttl": 3600,
                         "content": "192.0.2.1"}],
            "nameservers": ["ns1.veldhost.net"], "meta": {"has_more": false}})),
        _ => one_site("shop_1-a")(seen),
    }
}

const IMPORTED: [&str; 3] = [
    "repo/dnscron/dnscron.schema.json",
    "repo/dnscron/sites/shop_1-a.yaml",
    "repo/dnscron/zones/xn--bcher-kva.example.yaml",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ordinary_slugs_and_idn_zone_names_are_imported() {
    let stub = Stub::start(two_names).await;
    let dir = tempfile::tempdir().unwrap();
    let test = import_all(&stub, dir.path(), false).expect_stdout(IMPORTED_STDOUT);
    run(move || test.run()).await;
    assert_eq!(tree(dir.path()), IMPORTED);
}

const IMPORTED_STDOUT: &str = "\
zone xn--bcher-kva.example: 1 record
site shop_1-a: 1 cron job
wrote repo/dnscron/zones/xn--bcher-kva.example.yaml
wrote repo/dnscron/sites/shop_1-a.yaml
wrote repo/dnscron/dnscron.schema.json
next: `dnscron validate repo/dnscron` and `dnscron plan repo/dnscron` (it shows no changes);
  to start the drift job green, `dnscron baseline repo/dnscron` accepts today's error findings
  and lists what no file declares as unmanaged (review it like any change)
";

/// Zone names from `GET /dns` that are not DNS names (so not file names either) are skipped with
/// a warning that shows them escaped; the valid one is imported, nothing lands outside `--out`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn zone_names_that_are_not_dns_names_are_skipped() {
    let stub = Stub::start(|seen| match seen.path.as_str() {
        "/dns" => Reply::ok(json!({"zones": [
            {"zone": "../../escaped.example"}, {"zone": "/tmp/abs.example"},
            {"zone": "evil\u{1b}[2J.example"}, {"zone": "ab--cd.example"},
            {"zone": "xn--bcher-kva.example"}], "meta": {"has_more": false}})),
        "/sites" => Reply::ok(json!({"sites": [], "meta": {"has_more": false}})),
        _ => two_names(seen),
    })
    .await;
    let dir = tempfile::tempdir().unwrap();
    let test = import_all(&stub, dir.path(), false);
    let out = run(move || test.snapshot()).await;
    assert_safe_to_print(&out, false);
    insta::assert_snapshot!(out);
    assert_eq!(
        tree(dir.path()),
        [
            "repo/dnscron/dnscron.schema.json",
            "repo/dnscron/zones/xn--bcher-kva.example.yaml"
        ]
    );
    assert_eq!(
        paths(&stub),
        [
            "GET /dns",
            "GET /domains",
            "GET /dns/xn--bcher-kva.example/records",
            "GET /sites"
        ]
    );
}

/// `sites` inside `--out` is a symlink to `target` (relative to the temporary directory).
fn link_sites(dir: &Path, target: &str) -> PathBuf {
    let out = dir.join("repo/dnscron");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::create_dir_all(dir.join(target)).unwrap();
    std::os::unix::fs::symlink(dir.join(target), out.join("sites")).unwrap();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_symlinked_folder_that_leads_outside_out_is_refused() {
    for force in [false, true] {
        let stub = Stub::start(two_names).await;
        let dir = tempfile::tempdir().unwrap();
        link_sites(dir.path(), "outside");
        let root = dir.path().canonicalize().unwrap().display().to_string();
        let test = import_all(&stub, dir.path(), force).expect_status(1).expect_stderr(format!(
            "error: refusing to write repo/dnscron/sites/shop_1-a.yaml: repo/dnscron/sites leads to \
             {root}/outside, outside --out {root}/repo/dnscron; nothing was written\n\
             hint: remove the symlink or the odd path from the --out directory, or choose another --out directory\n"
        ));
        let out = run(move || test.run()).await;
        assert_safe_to_print(&out.snapshot(), false);
        assert_eq!(tree(dir.path()), ["repo/dnscron/sites -> (symlink)"]);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_symlinked_folder_inside_out_is_written_through() {
    let stub = Stub::start(two_names).await;
    let dir = tempfile::tempdir().unwrap();
    link_sites(dir.path(), "repo/dnscron/site-files");
    let test = import_all(&stub, dir.path(), false).expect_stdout(IMPORTED_STDOUT);
    run(move || test.run()).await;
    assert_eq!(
        tree(dir.path()),
        [
            "repo/dnscron/dnscron.schema.json",
            "repo/dnscron/site-files/shop_1-a.yaml",
            "repo/dnscron/sites -> (symlink)",
            "repo/dnscron/zones/xn--bcher-kva.example.yaml",
        ]
    );
}

// ---- 2. server text is escaped in every output format ----

const ZONE_FILE: &str =
    "zone: example.com\nrecords:\n  - { name: www, type: A, content: 192.0.2.7 }\n";

/// Text chosen to do harm when printed raw: a screen clear, a bidi override, and a line break
/// followed by a workflow command, in the message, the details (field and text) and the id.
fn hostile_error() -> Reply {
    Reply::json(
        422,
        json!({"error": {
            "type": "validation\u{1b}[31m",
            "message": "bad input\u{1b}[2J\n::warning file=dns/x.yaml::pwned\r\n##[error]old style",
            "details": {
                "::error file=a.yaml::field": ["text\u{202e}desrever\u{9b}31m"],
                "content": ["line one\nline two"]
            },
            "request_id": "req_\u{1b}]8;;http://evil\u{7}x"
        }}),
    )
}

fn plan_in(dir: &Path, stub: &Stub, format: &str) -> Test {
    std::fs::write(dir.join("example.com.yaml"), ZONE_FILE).unwrap();
    Test::new()
        .args(["plan", "example.com.yaml", "--format", format])
        .api(&stub.base_url, TOKEN)
        .current_dir(dir)
        .plan_stamp()
}

fn snapshot_name(what: &str, format: &str) -> String {
    format!("{what}_{format}")
}

/// `plan` in each output format against `stub`: the whole output (snapshot `{what}_{format}`),
/// nothing raw on stdout or stderr, and nothing but reads sent.
async fn plan_in_every_format(stub: &Stub, what: &str) {
    for format in ["text", "json", "markdown", "github"] {
        let dir = tempfile::tempdir().unwrap();
        let test = plan_in(dir.path(), stub, format);
        let out = run(move || test.snapshot()).await;
        assert_safe_to_print(&out, format == "github");
        insta::with_settings!({ filters => filters() }, {
            insta::assert_snapshot!(snapshot_name(what, format), out);
        });
    }
    assert!(stub.requests().iter().all(|s| s.method == "GET"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hostile_error_message_is_escaped_in_every_format() {
    let stub = Stub::start(|seen| match seen.path.as_str() {
        "/dns/example.com/records" => hostile_error(),
        "/domains" => no_domains(),
        _ => Reply::error(404, "not_found", "no such thing"),
    })
    .await;
    plan_in_every_format(&stub, "hostile_error").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_live_records_are_escaped_in_every_format() {
    let stub = Stub::start(|seen| match seen.path.as_str() {
        "/dns/example.com/records" => Reply::ok(json!({
            "records": [
                {"id": 7, "name": "www.example.com.", "type": "A", "ttl": 3600, "content": "192.0.2.7"},
                {"id": 8, "name": "note.example.com.", "type": "TXT", "ttl": 3600,
                 "content": "\"x\u{1b}[2J\n::warning file=a::pwned \u{202e}txt\""},
                {"id": 9, "name": "mail.example.com.", "type": "CNAME", "ttl": 3600,
                 "content": "::error::x\u{1b}[1m"}
            ],
            "nameservers": ["ns1.veldhost.net"], "meta": {"has_more": false}})),
        "/domains" => no_domains(),
        _ => Reply::error(404, "not_found", "no such thing"),
    })
    .await;
    plan_in_every_format(&stub, "hostile_records").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hostile_error_on_a_write_is_escaped_in_the_apply_report() {
    let stub = Stub::start(|seen| match (seen.method.as_str(), seen.path.as_str()) {
        ("GET", "/dns/example.com/records") => Reply::ok(json!({
            "records": [], "nameservers": ["ns1.veldhost.net"], "meta": {"has_more": false}})),
        ("POST", "/dns/example.com/records") => hostile_error(),
        ("GET", "/domains") => no_domains(),
        _ => Reply::error(404, "not_found", "no such thing"),
    })
    .await;
    for format in ["text", "json"] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("example.com.yaml"), ZONE_FILE).unwrap();
        let test = Test::new()
            .args(["apply", "example.com.yaml", "--yes", "--format", format])
            .api(&stub.base_url, TOKEN)
            .current_dir(dir.path())
            .plan_stamp()
            .expect_status(1);
        let out = run(move || test.snapshot()).await;
        assert_safe_to_print(&out, false);
        insta::with_settings!({ filters => filters() }, {
            insta::assert_snapshot!(snapshot_name("hostile_apply_error", format), out);
        });
    }
}

/// An account that registers none of the zones: plan reads `GET /domains` for the registrar
/// findings beside the zone listings, in no fixed order.
fn no_domains() -> Reply {
    Reply::ok(json!({"domains": [], "meta": {"has_more": false}}))
}
