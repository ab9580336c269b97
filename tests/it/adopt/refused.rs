//! What adopt refuses, each time with nothing written: broken files (located problems), a
//! server that is down, rate-limits past the wait allowed, or pages a listing that is not one
//! list; a file changed or moved on disk while adopt read the account; a file that is a link
//! out of the folder. And what it leaves: a file layout it does not edit in place.

use std::path::Path;
use std::sync::{Arc, Mutex};

use crate::client::stub::{Reply, Stub};
use crate::common::Test;
use crate::common::emulator::start_emulator;
use crate::hostile::paging::stand_in::{Paging, RECORDS, StandIn, zone_file, zone_rows};

use super::{EXAMPLE_COM, Portal, dnscron, read, seed};

fn zone_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("example.com.yaml"), EXAMPLE_COM).unwrap();
    dir
}

#[test]
fn broken_files_are_located_and_nothing_is_written() {
    let emu = start_emulator(seed());
    let dir = zone_dir();
    let broken = EXAMPLE_COM.replace("content: \"192.0.2.1\"", "content: \"192.0.2.300\"");
    std::fs::write(dir.path().join("example.com.yaml"), &broken).unwrap();
    Portal::of(&emu).update("example.com", "www", "CNAME", "shop.example.net.", 3600);
    emu.reset_counters();
    let out = dnscron(&emu, dir.path(), &["adopt"]).snapshot();
    assert!(out.starts_with("exit: Some(1)\n"), "{out}");
    assert!(out.contains("example.com.yaml:9:"), "{out}");
    assert_eq!(read(dir.path(), "example.com.yaml"), broken);
    assert!(emu.counters().per_route.is_empty(), "nothing is read");
}

#[test]
fn an_outage_writes_nothing() {
    let emu = start_emulator(seed());
    let dir = zone_dir();
    Portal::of(&emu).update("example.com", "www", "CNAME", "shop.example.net.", 3600);
    emu.set_outage(true);
    let out = dnscron(&emu, dir.path(), &["adopt", "--timeout", "2s"]).snapshot();
    assert!(out.starts_with("exit: Some(1)\n"), "{out}");
    assert_eq!(read(dir.path(), "example.com.yaml"), EXAMPLE_COM);
}

/// A stub answering every read with `reply`, and what it received.
fn stub_of(
    reply: impl Fn(&crate::client::stub::Seen) -> Reply + Send + Sync + 'static,
) -> (tokio::runtime::Runtime, Stub) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let stub = rt.block_on(Stub::start(reply));
    (rt, stub)
}

fn adopt_against(url: &str, dir: &Path, args: &[&str]) -> String {
    Test::new()
        .api(url, "tok_stub")
        .current_dir(dir)
        .arg("adopt")
        .args(args)
        .snapshot()
}

#[test]
fn rate_limited_past_the_wait_allowed_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = zone_file(dir.path(), 2, &[("www", "192.0.2.1")]);
    let (_rt, stub) =
        stub_of(|_| Reply::error(429, "rate_limited", "slow down").header("retry-after", "120"));
    let out = adopt_against(&stub.base_url, dir.path(), &[&file, "--max-wait", "1s"]);
    assert!(out.starts_with("exit: Some(1)\n"), "{out}");
    assert!(out.contains("429"), "{out}");
    assert!(stub.requests().iter().all(|r| r.method == "GET"));
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "zone: example.com\ndefaults:\n  ttl: 300\nrecords:\n  - { name: h0, type: A, content: 10.0.0.0 }\n  - { name: h1, type: A, content: 10.0.0.1 }\n  - { name: www, type: A, content: 192.0.2.1 }\n"
    );
}

#[test]
fn a_listing_that_is_not_one_list_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = zone_file(dir.path(), 150, &[("www", "192.0.2.1")]);
    let before = std::fs::read_to_string(&file).unwrap();
    let stand_in = StandIn::start(
        zone_rows(150, &[("www", "A", "192.0.2.99")]),
        Paging::CursorComesBack,
        None,
    );
    let state = Arc::clone(&stand_in);
    let (_rt, stub) = stub_of(move |seen| state.answer(seen));
    let out = adopt_against(&stub.base_url, dir.path(), &[&file]);
    assert!(out.starts_with("exit: Some(1)\n"), "{out}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
}

/// Runs adopt against a stand-in zone whose `www` drifted, calling `meanwhile` with the file's
/// path when the zone's records are first read: a person saving the file in an editor.
fn edited_while_reading(
    meanwhile: impl Fn(&Path) + Send + Sync + 'static,
) -> (String, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let file = zone_file(dir.path(), 2, &[("www", "192.0.2.1")]);
    let stand_in = StandIn::start(
        zone_rows(2, &[("www", "A", "192.0.2.99")]),
        Paging::Honest,
        None,
    );
    let state = Arc::clone(&stand_in);
    let done = Mutex::new(false);
    let path = std::path::PathBuf::from(&file);
    let (_rt, stub) = stub_of(move |seen| {
        if seen.path == RECORDS {
            let mut done = done.lock().unwrap();
            if !*done {
                meanwhile(&path);
                *done = true;
            }
        }
        state.answer(seen)
    });
    let out = adopt_against(&stub.base_url, dir.path(), &[&file]);
    (out, dir)
}

#[test]
fn a_file_changed_on_disk_while_reading_is_not_overwritten() {
    let (out, dir) = edited_while_reading(|path| {
        let mut text = std::fs::read_to_string(path).unwrap();
        text.push_str("# a note saved meanwhile\n");
        std::fs::write(path, text).unwrap();
    });
    assert!(out.starts_with("exit: Some(1)\n"), "{out}");
    assert!(
        out.contains("changed on disk (or moved) since adopt read it; nothing was written"),
        "{out}"
    );
    let text = read(dir.path(), "example.com.yaml");
    assert!(
        text.ends_with("content: 192.0.2.1 }\n# a note saved meanwhile\n"),
        "{text}"
    );
}

#[test]
fn a_file_moved_while_reading_is_not_written_back() {
    let (out, dir) = edited_while_reading(|path| {
        std::fs::rename(path, path.with_extension("moved")).unwrap();
    });
    assert!(out.starts_with("exit: Some(1)\n"), "{out}");
    assert!(!dir.path().join("example.com.yaml").exists(), "{out}");
    assert!(dir.path().join("example.com.moved").exists());
}

#[cfg(unix)]
#[test]
fn a_link_out_of_the_folder_is_never_written_through() {
    let emu = start_emulator(seed());
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("example.com.yaml"), EXAMPLE_COM).unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("example.com.yaml"),
        dir.path().join("example.com.yaml"),
    )
    .unwrap();
    Portal::of(&emu).update("example.com", "www", "CNAME", "shop.example.net.", 3600);
    let out = dnscron(&emu, dir.path(), &["adopt", "example.com.yaml"]).snapshot();
    assert!(out.starts_with("exit: Some(1)\n"), "{out}");
    assert!(
        out.contains("which is a link or lies outside the paths given; nothing was written"),
        "{out}"
    );
    assert_eq!(read(outside.path(), "example.com.yaml"), EXAMPLE_COM);
    assert!(
        std::fs::symlink_metadata(dir.path().join("example.com.yaml"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[test]
fn a_flow_list_is_left_with_where_and_what_to_do() {
    let emu = start_emulator(seed());
    let dir = tempfile::tempdir().unwrap();
    let zone = "zone: example.com\nrecords: [{ name: \"@\", type: A, content: 203.0.113.10 }, { name: \"@\", type: MX, content: \"10 mail.example.com.\" }, { name: old, type: A, content: 192.0.2.1, ttl: 300 }, { name: www, type: CNAME, content: example.com. }]\n";
    std::fs::write(dir.path().join("z.yaml"), zone).unwrap();
    Portal::of(&emu).update("example.com", "www", "CNAME", "shop.example.net.", 3600);
    dnscron(&emu, dir.path(), &["adopt"])
        .expect_status(2)
        .expect_stdout("left: zone example.com, www CNAME (live shop.example.net. ttl 3600): ./z.yaml:2:170 is written as a flow list (`records: [ … ]`): `dnscron fmt` writes it one item a line\nadopted 0 changes into 0 files; left 1 (see above): `plan` still shows them\n")
        .run();
    assert_eq!(read(dir.path(), "z.yaml"), zone);
}
