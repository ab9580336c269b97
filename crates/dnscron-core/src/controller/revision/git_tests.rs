//! Repositories written by hand (no git binary), their untrusted files, and one differential
//! test against git itself when it is on PATH.

#![allow(clippy::unwrap_used)]

use std::fs;
use std::path::Path;
use std::process::Command;

use super::tests::{C1, C2, write};
use super::*;

const C3: &str = "3333333333333333333333333333333333333333";
const C4: &str = "4444444444444444444444444444444444444444";

/// A checkout of `main` at C1 with one zone file.
fn checkout() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    write(&tmp.path().join(".git/HEAD"), "ref: refs/heads/main\n");
    write(&tmp.path().join(".git/refs/heads/main"), &format!("{C1}\n"));
    write(&tmp.path().join("zones/a.yaml"), "zone: a.example\n");
    tmp
}

fn id(dir: &Path) -> String {
    let snapshot = read(dir).unwrap();
    assert_eq!(snapshot.revision.source, RevisionSource::Git);
    snapshot.revision.id
}

fn head(dir: &Path, text: &str) {
    write(&dir.join(".git/HEAD"), text);
}

#[test]
fn a_branch_resolves_through_its_loose_ref_then_packed_refs() {
    let repo = checkout();
    let dir = repo.path();
    let snapshot = read(dir).unwrap();
    assert_eq!(
        snapshot.revision,
        Revision {
            id: C1.to_string(),
            source: RevisionSource::Git,
        }
    );
    assert_eq!(
        snapshot.probe.git,
        Some(GitHead {
            head: "ref: refs/heads/main\n".to_string(),
            commit: C1.to_string(),
        })
    );
    // `.git` is never taken for content.
    assert_eq!(snapshot.files.len(), 1);
    assert_ne!(snapshot.content_digest, C1);
    // The revision is the commit: an edit not committed is not another one.
    write(&dir.join("zones/a.yaml"), "zone: edited.example\n");
    assert_eq!(probe(dir).unwrap(), snapshot.probe);
    assert_eq!(read(dir).unwrap().revision, snapshot.revision);
    assert_ne!(read(dir).unwrap().content_digest, snapshot.content_digest);

    // A pull moves the branch: HEAD's text stays, the probe still changes.
    write(&dir.join(".git/refs/heads/main"), &format!("{C2}\n"));
    let moved = probe(dir).unwrap();
    assert_ne!(moved, snapshot.probe);
    assert_eq!(moved.git.unwrap().commit, C2);

    fs::remove_file(dir.join(".git/refs/heads/main")).unwrap();
    write(
        &dir.join(".git/packed-refs"),
        &format!(
            "# pack-refs with: peeled fully-peeled sorted \n\
             {C3} refs/heads/main\n\
             {C4} refs/tags/v1\n\
             ^{C2}\n"
        ),
    );
    assert_eq!(id(dir), C3);
}

#[test]
fn a_detached_head_is_the_commit_it_holds() {
    let repo = checkout();
    head(repo.path(), &format!("{C4}\n"));
    assert_eq!(id(repo.path()), C4);
    head(repo.path(), &C4.to_ascii_uppercase().replace('4', "A"));
    assert_eq!(id(repo.path()), "a".repeat(40));
    // SHA-256 repositories (`git init --object-format=sha256`).
    head(repo.path(), &"b".repeat(64));
    assert_eq!(id(repo.path()), "b".repeat(64));
}

#[test]
fn a_subfolder_of_a_repository_has_the_repositorys_commit_and_its_own_files() {
    let repo = checkout();
    write(&repo.path().join("other.yaml"), "zone: other.example\n");
    let zones = repo.path().join("zones");
    let snapshot = read(&zones).unwrap();
    assert_eq!(snapshot.revision.id, C1);
    assert_eq!(
        snapshot.files,
        [(zones.join("a.yaml"), "zone: a.example\n".to_string())]
    );
}

#[test]
fn a_git_file_leads_to_the_git_directory_relative_or_absolute() {
    let tmp = tempfile::tempdir().unwrap();
    let store = tmp.path().join("store/modules/dns");
    write(&store.join("HEAD"), &format!("{C2}\n"));
    let checkout = tmp.path().join("checkout");
    write(&checkout.join(".git"), "gitdir: ../store/modules/dns\n");
    write(&checkout.join("a.yaml"), "");
    assert_eq!(id(&checkout), C2);
    write(
        &checkout.join(".git"),
        &format!("gitdir: {}\n", store.display()),
    );
    assert_eq!(id(&checkout), C2);

    write(&checkout.join(".git"), "gitdir:\n");
    assert!(matches!(
        read(&checkout),
        Err(RevisionError::NoGitdir { path }) if path == checkout.join(".git")
    ));
    write(&checkout.join(".git"), &format!("{C2}\n"));
    assert!(matches!(
        read(&checkout),
        Err(RevisionError::NoGitdir { path }) if path == checkout.join(".git")
    ));
}

#[test]
fn a_worktree_reads_shared_refs_from_its_common_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let common = tmp.path().join("repo/.git");
    write(&common.join("HEAD"), "ref: refs/heads/main\n");
    write(&common.join("refs/heads/feature/x"), &format!("{C3}\n"));
    let own = common.join("worktrees/wt");
    write(&own.join("HEAD"), "ref: refs/heads/feature/x\n");
    write(&own.join("commondir"), "../..\n");
    // A branch of the same name in the worktree's own folder is not where git looks.
    write(&own.join("refs/heads/feature/x"), &format!("{C1}\n"));
    let worktree = tmp.path().join("wt");
    write(
        &worktree.join(".git"),
        &format!("gitdir: {}\n", own.display()),
    );
    assert_eq!(id(&worktree), C3);
    // Per-worktree refs are the worktree's own.
    write(&own.join("HEAD"), "ref: refs/worktree/mine\n");
    write(&own.join("refs/worktree/mine"), &format!("{C4}\n"));
    assert_eq!(id(&worktree), C4);
}

#[test]
fn an_id_that_is_not_hex_is_refused_naming_its_file() {
    let repo = checkout();
    let dir = repo.path();
    let git = dir.join(".git");
    for bad in [
        "not-a-commit\n",
        "",
        &C1[..39],
        &format!("{C1}0"),
        &"g".repeat(40),
    ] {
        head(dir, bad);
        let err = read(dir).unwrap_err();
        assert!(
            matches!(&err, RevisionError::NotHex { path } if *path == git.join("HEAD")),
            "{bad:?}: {err:?}"
        );
    }
    head(dir, "ref: refs/heads/main\n");
    write(&git.join("refs/heads/main"), "zzz\n");
    assert!(matches!(
        read(dir),
        Err(RevisionError::NotHex { path }) if path == git.join("refs/heads/main")
    ));
    fs::remove_file(git.join("refs/heads/main")).unwrap();
    write(&git.join("packed-refs"), "xyz refs/heads/main\n");
    assert!(matches!(
        read(dir),
        Err(RevisionError::NotHex { path }) if path == git.join("packed-refs")
    ));
}

#[test]
fn a_head_over_four_kib_is_refused() {
    let repo = checkout();
    let dir = repo.path();
    let padded = format!("{C2}{}", "\n".repeat(4096 - 40));
    head(dir, &padded);
    assert_eq!(id(dir), C2);
    head(dir, &format!("{padded}\n"));
    assert!(matches!(
        read(dir),
        Err(RevisionError::TooLarge { path, limit: 4096 }) if path == dir.join(".git/HEAD")
    ));
}

#[test]
fn a_ref_name_that_climbs_out_or_is_absolute_is_refused() {
    let repo = checkout();
    let dir = repo.path();
    write(&dir.join(".git/refs/heads/feature/x"), &format!("{C2}\n"));
    head(dir, "ref: refs/heads/feature/x\n");
    assert_eq!(id(dir), C2);
    for bad in [
        "refs/heads/../../../../etc/passwd",
        "/etc/passwd",
        "refs/../HEAD",
        "HEAD",
        "refs/heads/main.lock",
        "refs/heads/.hidden",
        "refs//heads",
        "refs/heads/a b",
        "refs/heads/x\\y",
        "refs/heads/C:x",
        "refs/heads/",
    ] {
        head(dir, &format!("ref: {bad}\n"));
        let err = read(dir).unwrap_err();
        assert!(
            matches!(&err, RevisionError::BadRefName { path, name }
                if *path == dir.join(".git/HEAD") && name == bad),
            "{bad}: {err:?}"
        );
    }
}

#[test]
fn a_branch_with_no_commit_yet_is_an_error() {
    let repo = checkout();
    head(repo.path(), "ref: refs/heads/unborn\n");
    assert!(matches!(
        read(repo.path()),
        Err(RevisionError::RefNotFound { path, name })
            if path == repo.path().join(".git/HEAD") && name == "refs/heads/unborn"
    ));
}

#[test]
fn symbolic_refs_are_followed_a_few_times_then_refused() {
    let repo = checkout();
    let refs = repo.path().join(".git/refs");
    write(&refs.join("remotes/origin/HEAD"), "ref: refs/heads/main\n");
    head(repo.path(), "ref: refs/remotes/origin/HEAD\n");
    assert_eq!(id(repo.path()), C1);

    write(&refs.join("heads/a"), "ref: refs/heads/b\n");
    write(&refs.join("heads/b"), "ref: refs/heads/a\n");
    head(repo.path(), "ref: refs/heads/a\n");
    assert!(matches!(
        read(repo.path()),
        Err(RevisionError::SymrefChain { limit: 5, .. })
    ));
}

#[test]
fn refs_in_reftable_files_are_refused() {
    let repo = checkout();
    // What git 2.45+ writes for `--ref-format=reftable`: HEAD is a placeholder.
    head(repo.path(), "ref: refs/heads/.invalid\n");
    fs::create_dir_all(repo.path().join(".git/reftable")).unwrap();
    assert!(matches!(
        read(repo.path()),
        Err(RevisionError::Reftable { path }) if path == repo.path().join(".git/reftable")
    ));
}

/// `git` with no system or user configuration, in `dir`; its trimmed stdout. `None` when it
/// fails (an older git without an option).
fn git(home: &Path, dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_DATE", "2026-01-02T03:04:05Z")
        .env("GIT_COMMITTER_DATE", "2026-01-02T03:04:05Z")
        .args([
            "-c",
            "user.name=dnscron tests",
            "-c",
            "user.email=t@example.com",
        ])
        .args([
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
        ])
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8(out.stdout).unwrap().trim().to_string())
}

#[test]
fn the_commit_read_is_the_one_git_rev_parse_gives() {
    if Command::new("git").arg("--version").output().is_err() {
        eprintln!("no git on PATH: the differential test against git did not run");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let repo = tmp.path().join("repo");
    fs::create_dir_all(&home).unwrap();
    fs::create_dir_all(&repo).unwrap();
    let git = |dir: &Path, args: &[&str]| git(&home, dir, args).unwrap();
    let rev_parse = |dir: &Path| git(dir, &["rev-parse", "HEAD"]);

    git(&repo, &["init", "-q"]);
    write(&repo.join("zones/a.yaml"), "zone: a.example\n");
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "one"]);
    assert_eq!(id(&repo), rev_parse(&repo));

    write(&repo.join("zones/a.yaml"), "zone: b.example\n");
    git(&repo, &["commit", "-q", "-am", "two"]);
    assert_eq!(id(&repo), rev_parse(&repo));
    assert_eq!(id(&repo.join("zones")), rev_parse(&repo));

    git(&repo, &["pack-refs", "--all"]);
    assert!(!repo.join(".git/refs/heads/main").exists());
    assert_eq!(id(&repo), rev_parse(&repo));

    // As git-sync makes them.
    let worktree = tmp.path().join("worktree");
    git(
        &repo,
        &[
            "worktree",
            "add",
            "-q",
            "--detach",
            worktree.to_str().unwrap(),
            "HEAD~1",
        ],
    );
    assert_eq!(id(&worktree), rev_parse(&worktree));
    assert_ne!(id(&worktree), id(&repo));
    git(&worktree, &["checkout", "-q", "-b", "side"]);
    assert_eq!(id(&worktree), rev_parse(&worktree));

    let sha256 = tmp.path().join("sha256");
    if repository_with(&home, &sha256, "--object-format=sha256") {
        assert_eq!(id(&sha256).len(), 64);
        assert_eq!(id(&sha256), rev_parse(&sha256));
    }

    let reftable = tmp.path().join("reftable");
    if repository_with(&home, &reftable, "--ref-format=reftable") {
        assert!(matches!(
            read(&reftable),
            Err(RevisionError::Reftable { .. })
        ));
    }
}

/// A repository `git init OPTION` makes, with one commit; `false` (said) when this git does not
/// know the option.
fn repository_with(home: &Path, dir: &Path, option: &str) -> bool {
    fs::create_dir_all(dir).unwrap();
    if git(home, dir, &["init", "-q", option]).is_none() {
        eprintln!("this git cannot run `git init {option}`: that part did not run");
        return false;
    }
    write(&dir.join("a.yaml"), "zone: a.example\n");
    git(home, dir, &["add", "."]).unwrap();
    git(home, dir, &["commit", "-q", "-m", "one"]).unwrap();
    true
}

/// Windows allows no control characters in file names.
#[cfg(unix)]
#[test]
fn text_found_through_git_is_escaped_in_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().canonicalize().unwrap();
    write(
        &base.join("evil\u{1b}[2J/HEAD"),
        "ref: refs/heads/\u{1b}[31m\n",
    );
    write(&base.join("checkout/.git"), "gitdir: ../evil\u{1b}[2J\n");
    let err = read(&base.join("checkout")).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "`{}/checkout/../evil\\u{{1b}}[2J/HEAD` names `refs/heads/\\u{{1b}}[31m`, which is \
             not a valid ref name under refs/",
            base.display()
        )
    );
}
