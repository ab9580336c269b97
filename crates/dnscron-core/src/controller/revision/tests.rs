//! Directory layouts: a plain folder, git-sync's link, a ConfigMap, swaps during a read, and
//! the bounds of the walk. Repositories themselves: `git_tests.rs`.

#![allow(clippy::unwrap_used)]

use std::fs;
use std::path::{Path, PathBuf};

use super::*;

pub(super) const C1: &str = "1111111111111111111111111111111111111111";
pub(super) const C2: &str = "2222222222222222222222222222222222222222";

pub(super) fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn shown(snapshot: &Snapshot) -> Vec<(PathBuf, &str)> {
    snapshot
        .files
        .iter()
        .map(|(path, text)| (path.clone(), text.as_str()))
        .collect()
}

fn zone(name: &str) -> String {
    format!("zone: {name}\nrecords: []\n")
}

#[test]
fn a_plain_folder_is_its_yaml_files_digest() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    write(&dir.join("b.yaml"), &zone("b.example"));
    write(&dir.join("a/c.yml"), &zone("c.example"));
    write(&dir.join("notes.txt"), "not read");
    write(&dir.join(".hidden.yaml"), "not read");
    write(&dir.join(".github/workflow.yaml"), "not read");

    let snapshot = read(dir).unwrap();

    assert_eq!(
        shown(&snapshot),
        [
            (dir.join("a/c.yml"), zone("c.example").as_str()),
            (dir.join("b.yaml"), zone("b.example").as_str()),
        ]
    );
    // The id is kept in the controller's state: the same files give it on every run, every
    // machine, every release. (Python's hashlib over the same length-prefixed input agrees.)
    let expected = "sha256:a406fea8c59b0dd160a5e395d17411e3cf406ac270cf9a1d6687234ffdbc2b2e";
    assert_eq!(
        snapshot.revision,
        Revision {
            id: expected.to_string(),
            source: RevisionSource::Digest,
        }
    );
    assert_eq!(snapshot.content_digest, expected);
    assert_eq!(snapshot.probe.dir, dir.canonicalize().unwrap());
    assert_eq!((&snapshot.probe.data, &snapshot.probe.git), (&None, &None));
    assert_eq!(snapshot.probe.stamps.as_ref().map(Vec::len), Some(2));
    assert_eq!(read(dir).unwrap().revision.id, expected);
}

#[test]
fn the_digest_does_not_depend_on_where_or_in_which_order_files_were_written() {
    let first = tempfile::tempdir().unwrap();
    write(&first.path().join("a.yaml"), "one");
    write(&first.path().join("z/b.yaml"), "two");
    let second = tempfile::tempdir().unwrap();
    write(&second.path().join("z/b.yaml"), "two");
    write(&second.path().join("a.yaml"), "one");

    assert_eq!(
        read(first.path()).unwrap().revision.id,
        read(second.path()).unwrap().revision.id
    );
}

#[test]
fn the_digest_changes_with_a_file_its_name_or_a_file_more() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    write(&dir.join("a.yaml"), "one");
    let mut seen = vec![read(dir).unwrap().revision.id];
    write(&dir.join("a.yaml"), "one ");
    seen.push(read(dir).unwrap().revision.id);
    fs::rename(dir.join("a.yaml"), dir.join("b.yaml")).unwrap();
    seen.push(read(dir).unwrap().revision.id);
    write(&dir.join("c.yaml"), "");
    seen.push(read(dir).unwrap().revision.id);
    // A path's end and a text's start cannot trade bytes: each is length-prefixed.
    let other = tempfile::tempdir().unwrap();
    write(&other.path().join("b.yam"), "lone ");
    seen.push(read(other.path()).unwrap().revision.id);

    let mut distinct = seen.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), seen.len(), "{seen:?}");
}

#[test]
fn a_file_written_in_place_changes_the_probe() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    write(&dir.join("a.yaml"), "zone: a.example\n");
    write(&dir.join("notes.txt"), "");
    let first = probe(dir).unwrap();
    assert_eq!(probe(dir).unwrap(), first);
    // What is not read is not looked at.
    write(&dir.join("notes.txt"), "more");
    assert_eq!(probe(dir).unwrap(), first);

    write(&dir.join("b.yaml"), "");
    let added = probe(dir).unwrap();
    assert_ne!(added, first);
    write(&dir.join("a.yaml"), "zone: b.example\n");
    assert_ne!(probe(dir).unwrap(), added);
}

/// The same size and the modification time set back (as `touch -d` or an archive would): the
/// inode's change time, which no one can set, still tells.
#[cfg(unix)]
#[test]
fn a_write_that_keeps_size_and_modification_time_is_seen() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("a.yaml");
    write(&path, "zone: a.example\n");
    let modified = fs::metadata(&path).unwrap().modified().unwrap();
    let before = probe(tmp.path()).unwrap();
    fs::write(&path, "zone: b.example\n").unwrap();
    fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(modified)
        .unwrap();
    assert_eq!(fs::metadata(&path).unwrap().modified().unwrap(), modified);
    assert_ne!(probe(tmp.path()).unwrap(), before);
}

#[test]
fn a_missing_directory_or_a_file_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("missing");
    assert!(matches!(
        read(&missing),
        Err(RevisionError::Io { path, .. }) if path == missing
    ));
    let file = tmp.path().join("zones.yaml");
    write(&file, "zone: a.example");
    assert!(matches!(
        probe(&file),
        Err(RevisionError::NotADirectory { path }) if path == file
    ));
}

#[test]
fn a_yaml_file_that_is_not_utf8_is_refused_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    fs::write(tmp.path().join("bad.yaml"), b"zone: \xff\n").unwrap();
    assert!(matches!(
        read(tmp.path()),
        Err(RevisionError::NotUtf8 { path }) if path == tmp.path().join("bad.yaml")
    ));
}

#[test]
fn a_file_over_the_loaders_cap_is_refused_without_being_read() {
    let tmp = tempfile::tempdir().unwrap();
    let big = tmp.path().join("big.yaml");
    let file = fs::File::create(&big).unwrap();
    // Sparse: the size is all the check looks at.
    file.set_len(walk::MAX_FILE_BYTES + 1).unwrap();
    let err = read(tmp.path()).unwrap_err();
    assert!(
        matches!(&err, RevisionError::TooLarge { path, limit } if *path == big && *limit == 64 * 1024 * 1024),
        "{err:?}"
    );
    file.set_len(10).unwrap();
    fs::write(&big, "zone: a.ex").unwrap();
    assert_eq!(read(tmp.path()).unwrap().files.len(), 1);
}

#[test]
fn at_most_ten_thousand_files_are_read() {
    let tmp = tempfile::tempdir().unwrap();
    for i in 0..walk::MAX_FILES {
        fs::write(tmp.path().join(format!("{i:05}.yaml")), "").unwrap();
    }
    assert_eq!(read(tmp.path()).unwrap().files.len(), 10_000);
    fs::write(tmp.path().join("one-more.yaml"), "").unwrap();
    assert!(matches!(
        read(tmp.path()),
        Err(RevisionError::TooManyFiles { dir, limit: 10_000 }) if dir == tmp.path()
    ));
}

#[cfg(unix)]
mod links {
    use std::os::unix::fs::symlink;

    use super::*;

    /// git-sync v4's layout with `--root ROOT --link LINK`: `ROOT/.worktrees/<commit>` is a
    /// worktree of the repository in `ROOT/.git`, and the link points at the current one.
    fn git_sync_worktree(root: &Path, commit: &str, text: &str) {
        let worktree = root.join(".worktrees").join(commit);
        let git_dir = root.join(".git/worktrees").join(commit);
        write(&git_dir.join("HEAD"), &format!("{commit}\n"));
        write(&git_dir.join("commondir"), "../..\n");
        write(
            &worktree.join(".git"),
            &format!("gitdir: {}\n", git_dir.display()),
        );
        write(&worktree.join("zones/a.yaml"), text);
    }

    /// Points `link` at `target` the way git-sync and the kubelet do: a new link renamed over
    /// the old one, so a reader sees one or the other.
    fn swap_link(link: &Path, target: &str) {
        let tmp = link.with_file_name(".swap-tmp");
        symlink(target, &tmp).unwrap();
        fs::rename(&tmp, link).unwrap();
    }

    fn git_sync_root() -> (tempfile::TempDir, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().to_path_buf();
        write(&root.join(".git/HEAD"), "ref: refs/heads/main\n");
        write(&root.join(".git/refs/heads/main"), &format!("{C2}\n"));
        git_sync_worktree(&root, C1, "zone: one.example\n");
        git_sync_worktree(&root, C2, "zone: two.example\n");
        symlink(format!(".worktrees/{C1}"), root.join("link")).unwrap();
        (tmp, root)
    }

    #[test]
    fn a_git_sync_link_is_its_worktrees_commit_and_a_swap_is_seen() {
        let (_tmp, root) = git_sync_root();
        let link = root.join("link");

        let first = read(&link).unwrap();
        assert_eq!(
            first.revision,
            Revision {
                id: C1.to_string(),
                source: RevisionSource::Git,
            }
        );
        // Named through the link, as the user knows them.
        assert_eq!(
            shown(&first),
            [(link.join("zones/a.yaml"), "zone: one.example\n")]
        );
        assert_eq!(
            first.probe.dir,
            root.join(".worktrees").join(C1).canonicalize().unwrap()
        );
        assert_eq!(probe(&link).unwrap(), first.probe);

        swap_link(&link, &format!(".worktrees/{C2}"));

        let after = probe(&link).unwrap();
        assert_ne!(after, first.probe);
        assert_is_the_second_worktree(&read(&link).unwrap(), &link);
    }

    fn assert_is_the_second_worktree(snapshot: &Snapshot, link: &Path) {
        assert_eq!(snapshot.revision.id, C2);
        assert_eq!(
            shown(snapshot),
            [(link.join("zones/a.yaml"), "zone: two.example\n")]
        );
    }

    #[test]
    fn a_swap_during_a_read_reads_again() {
        let (_tmp, root) = git_sync_root();
        let link = root.join("link");
        let mut swaps = 0;
        let snapshot = read_settled(&link, &mut || {
            if swaps == 0 {
                swap_link(&link, &format!(".worktrees/{C2}"));
            }
            swaps += 1;
        })
        .unwrap();
        assert_eq!(swaps, 2);
        assert_is_the_second_worktree(&snapshot, &link);
    }

    #[test]
    fn a_directory_swapped_during_every_read_is_unsettled() {
        let (_tmp, root) = git_sync_root();
        let link = root.join("link");
        let mut at = 0;
        let err = read_settled(&link, &mut || {
            at += 1;
            let commit = if at % 2 == 1 { C2 } else { C1 };
            swap_link(&link, &format!(".worktrees/{commit}"));
        })
        .unwrap_err();
        assert!(
            matches!(&err, RevisionError::Unsettled { dir, attempts: 3 } if *dir == link),
            "{err:?}"
        );
        assert_eq!(at, 3);
    }

    #[test]
    fn a_worktree_removed_during_a_read_is_read_again_from_the_new_one() {
        let (_tmp, root) = git_sync_root();
        let link = root.join("link");
        let old = root.join(".worktrees").join(C1);
        let mut first = true;
        let snapshot = read_settled(&link, &mut || {
            if first {
                first = false;
                // git-sync removes the old worktree once the link is swapped: the first read
                // fails, and the probe after it tells why.
                swap_link(&link, &format!(".worktrees/{C2}"));
                fs::remove_dir_all(&old).unwrap();
            }
        })
        .unwrap();
        assert_is_the_second_worktree(&snapshot, &link);
    }

    /// The kubelet's names for a ConfigMap's versions.
    const FIRST_STAMP: &str = "..2026_01_02_03_04_05.1";
    const SECOND_STAMP: &str = "..2026_01_02_03_09_00.2";

    /// A mounted ConfigMap: the keys are links through `..data` to a timestamped folder.
    fn config_map(mount: &Path, stamp: &str, keys: &[(&str, &str)]) {
        for (key, text) in keys {
            write(&mount.join(stamp).join(key), text);
        }
        swap_link(&mount.join("..data"), stamp);
        for (key, _) in keys {
            let top = mount.join(key);
            if fs::symlink_metadata(&top).is_err() {
                symlink(format!("..data/{key}"), top).unwrap();
            }
        }
    }

    #[test]
    fn a_config_map_is_read_once_through_its_top_level_links() {
        let tmp = tempfile::tempdir().unwrap();
        let mount = tmp.path();
        config_map(
            mount,
            FIRST_STAMP,
            &[
                ("zones.yaml", "zone: a.example\n"),
                ("sites.yml", "site: s\n"),
            ],
        );

        let first = read(mount).unwrap();
        assert_eq!(
            shown(&first),
            [
                (mount.join("sites.yml"), "site: s\n"),
                (mount.join("zones.yaml"), "zone: a.example\n"),
            ]
        );
        assert_eq!(first.revision.source, RevisionSource::Digest);
        // The kubelet only swaps: `..data` tells, no file is looked at.
        assert_eq!(first.probe.stamps, None);
        assert_eq!(
            first.probe.data,
            Some(mount.join(FIRST_STAMP).canonicalize().unwrap())
        );

        config_map(
            mount,
            SECOND_STAMP,
            &[
                ("zones.yaml", "zone: b.example\n"),
                ("sites.yml", "site: s\n"),
            ],
        );
        let second = read(mount).unwrap();
        assert_ne!(second.probe, first.probe);
        assert_ne!(second.revision, first.revision);
        assert_eq!(second.files[1].1, "zone: b.example\n");
    }

    #[test]
    fn a_half_swapped_config_map_names_the_link_to_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let mount = tmp.path();
        config_map(
            mount,
            FIRST_STAMP,
            &[
                ("zones.yaml", "zone: a.example\n"),
                ("gone.yaml", "zone: g\n"),
            ],
        );
        // The new revision drops `gone.yaml`; its top-level link is not removed yet.
        config_map(mount, SECOND_STAMP, &[("zones.yaml", "zone: b.example\n")]);
        fs::remove_dir_all(mount.join(FIRST_STAMP)).unwrap();
        assert!(matches!(
            read(mount),
            Err(RevisionError::Dangling { path }) if path == mount.join("gone.yaml")
        ));
        fs::remove_file(mount.join("gone.yaml")).unwrap();
        assert_eq!(
            shown(&read(mount).unwrap()),
            [(mount.join("zones.yaml"), "zone: b.example\n")]
        );
    }

    #[test]
    fn a_link_to_nothing_that_would_not_be_read_is_passed_over() {
        let tmp = tempfile::tempdir().unwrap();
        write(&tmp.path().join("a.yaml"), "zone: a.example\n");
        symlink("nowhere", tmp.path().join("README")).unwrap();
        assert_eq!(read(tmp.path()).unwrap().files.len(), 1);
    }

    #[test]
    fn a_link_out_of_the_directory_is_refused() {
        let outside = tempfile::tempdir().unwrap();
        write(&outside.path().join("x.yaml"), "zone: x.example\n");
        write(&outside.path().join("notes.txt"), "");
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        write(&dir.join("a.yaml"), "zone: a.example\n");
        // A link to a file that would not be read anyway is no reason to refuse.
        symlink(outside.path().join("notes.txt"), dir.join("notes.txt")).unwrap();
        // A link inside is followed, and the file named by the link.
        symlink("a.yaml", dir.join("b.yaml")).unwrap();
        assert_eq!(
            shown(&read(dir).unwrap()),
            [
                (dir.join("a.yaml"), "zone: a.example\n"),
                (dir.join("b.yaml"), "zone: a.example\n"),
            ]
        );

        symlink(outside.path().join("x.yaml"), dir.join("x.yaml")).unwrap();
        let err = read(dir).unwrap_err();
        assert!(
            matches!(&err, RevisionError::OutsideDir { path, target }
                if *path == dir.join("x.yaml")
                    && *target == outside.path().join("x.yaml").canonicalize().unwrap()),
            "{err:?}"
        );
        fs::remove_file(dir.join("x.yaml")).unwrap();

        symlink(outside.path(), dir.join("more")).unwrap();
        assert!(matches!(
            read(dir),
            Err(RevisionError::OutsideDir { path, .. }) if path == dir.join("more")
        ));
    }

    #[test]
    fn a_link_loop_inside_the_directory_ends_at_the_depth_bound() {
        let tmp = tempfile::tempdir().unwrap();
        write(&tmp.path().join("a/z.yaml"), "");
        symlink("..", tmp.path().join("a/loop")).unwrap();
        assert!(matches!(
            read(tmp.path()),
            Err(RevisionError::TooDeep { limit: 32, .. })
        ));
    }
}
