//! `dnscron controller manifests`: the controller's Kubernetes kit for one account, printed (as
//! Flux's `--export` prints its objects) or written to a folder with its alert rules, their
//! tests and the Grafana dashboard. examples/ci/kubernetes/controller/ is this command's output
//! (its first line names the command), and a test holds the two equal, so the kit is generated,
//! never kept by hand.
//!
//! The kit is text with its comments (they say why each choice), filled from the flags. Each
//! value is checked against a closed alphabet before it goes in, so none can end a YAML scalar,
//! start a comment or reach another field: what the flags can't name, the kit doesn't hold.

mod accounts;

use std::path::{Path, PathBuf};

use crate::cli::error::{CommandError, CommandResult, ErrorKind, Outcome};

use super::args::Policy;

const KIT: &str = include_str!("manifests/kit.yaml");
const RULES: &str = include_str!("manifests/rules.yaml");
const RULES_TEST: &str = include_str!("manifests/rules.test.yaml");
const DASHBOARD: &str = include_str!("manifests/dashboard.json");

/// The files `--out-dir` writes, by name; the rules' tests name the rules file by this name.
pub const FILES: [&str; 4] = [
    "dnscron-controller.yaml",
    "dnscron-controller.rules.yaml",
    "dnscron-controller.rules.test.yaml",
    "dnscron-controller-dashboard.json",
];

/// The release image of this build.
const IMAGE: &str = concat!("ghcr.io/dnscron/dnscron:", env!("CARGO_PKG_VERSION"));

#[derive(Debug, Clone, clap::Args)]
#[command(after_long_help = "\
Prints the Deployment (with git-sync), its claim, Service, ServiceMonitor and NetworkPolicy as
one YAML stream (`| kubectl apply -f -`). With --out-dir, writes them to dnscron-controller.yaml
beside the alert rules, their promtool tests and the Grafana dashboard (docs/controller.md,
\"Deploying on Kubernetes\").")]
pub struct ManifestsArgs {
    /// The namespace of every object (a DNS label).
    #[arg(long, value_name = "NAMESPACE", default_value = "dnscron", value_parser = namespace)]
    pub namespace: String,
    /// The name of the Deployment, its Service, Secret and claim (a DNS label of at most 57
    /// characters); the alert rules name it as the scrape job.
    #[arg(long, value_name = "NAME", default_value = "dnscron-controller", value_parser = name)]
    pub name: String,
    /// The git repository git-sync keeps checked out (https://…, ssh://… or git@host:path).
    #[arg(long, value_name = "URL", value_parser = repository)]
    pub repository: String,
    /// The branch the controller follows.
    #[arg(long, value_name = "BRANCH", default_value = "main", value_parser = branch)]
    pub branch: String,
    /// The folder of the desired-state files inside the repository ("." for its root). Default:
    /// `dns`; with --accounts-file, the folder that holds that file.
    #[arg(long, value_name = "PATH", value_parser = repo_path)]
    pub path: Option<String>,
    /// What the controller may write.
    #[arg(long, value_enum, default_value_t = Policy::Apply)]
    pub policy: Policy,
    /// The share of the API's rate limit the controller may spend.
    #[arg(long, value_name = "PERCENT", default_value_t = 50,
          value_parser = clap::value_parser!(u8).range(1..=100))]
    pub api_share: u8,
    /// The dnscron image (default: this release's, by tag; pin it with @sha256:…).
    #[arg(long, value_name = "IMAGE", default_value = IMAGE, value_parser = image)]
    pub image: String,
    /// A repository of several accounts: its dnscron-accounts.yaml, as a path from the
    /// repository's root (its folder is --path's default). The Secret gets one key per account, its name, given to the pod as the
    /// file's token_env or token_file says; no API URL or token file on the command line.
    #[arg(long, value_name = "FILE", value_parser = accounts_file)]
    pub accounts_file: Option<PathBuf>,
    /// Write the kit's four files into this folder (created if missing) instead of printing the
    /// manifests.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
}

pub fn run(mut args: ManifestsArgs) -> CommandResult {
    if args.path.is_none() {
        args.path = Some(default_folder(args.accounts_file.as_deref())?);
    }
    let tokens = match &args.accounts_file {
        None => None,
        Some(file) => {
            let accounts = dnscron_core::config::accounts::discover(std::slice::from_ref(file))
                .map_err(|diags| crate::cli::validate::report_diagnostics(&diags))?
                .ok_or_else(|| {
                    CommandError::user(format!(
                        "{} is not a {} file",
                        file.display(),
                        dnscron_core::config::accounts::ACCOUNTS_FILE
                    ))
                })?;
            Some(accounts::tokens(&accounts).map_err(CommandError::user)?)
        }
    };
    let files = render_with(&args, tokens.as_ref());
    match &args.out_dir {
        None => {
            print!("{}", files[0].1);
            Ok(Outcome::Success)
        }
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| {
                CommandError::quoting(
                    ErrorKind::User,
                    &format!("cannot create {}", dir.display()),
                    e,
                )
            })?;
            for (file, text) in files {
                let path = dir.join(file);
                std::fs::write(&path, text).map_err(|e| {
                    CommandError::quoting(
                        ErrorKind::User,
                        &format!("cannot write {}", path.display()),
                        e,
                    )
                })?;
                eprintln!("wrote {}", path.display());
            }
            Ok(Outcome::Success)
        }
    }
}

/// The kit's files, named as in [`FILES`], the manifests first.
pub fn render(args: &ManifestsArgs) -> [(&'static str, String); 4] {
    render_with(args, None)
}

/// [`render`], for the accounts' `tokens` when the repository holds several.
fn render_with(
    args: &ManifestsArgs,
    tokens: Option<&accounts::Tokens>,
) -> [(&'static str, String); 4] {
    let fill = |template: &str| fill(template, args);
    let kit = match tokens {
        None => fill(KIT),
        Some(tokens) => accounts::rewrite(&fill(KIT), &args.name, tokens),
    };
    [
        (FILES[0], kit),
        (FILES[1], fill(RULES)),
        (FILES[2], fill(RULES_TEST)),
        (FILES[3], DASHBOARD.to_owned()),
    ]
}

/// The command line that makes this kit, every flag said (`--out-dir` aside): the files' first
/// line, which the examples' test runs again.
pub fn command_line(args: &ManifestsArgs) -> String {
    format!(
        "dnscron controller manifests --namespace {} --name {} --repository {} --branch {} \
         --path {} --policy {} --api-share {} --image {}",
        args.namespace,
        args.name,
        args.repository,
        args.branch,
        args.folder(),
        args.policy.name(),
        args.api_share,
        args.image
    ) + &args
        .accounts_file
        .as_ref()
        .map(|f| format!(" --accounts-file {}", f.display()))
        .unwrap_or_default()
}

/// A path in plain characters: it is written into the kit's first line.
fn accounts_file(value: &str) -> Result<PathBuf, String> {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-._/".contains(c);
    match value.chars().find(|&c| !plain(c)) {
        Some(bad) => Err(format!(
            "{bad:?} is not allowed: letters, digits and - . _ / only"
        )),
        None => Ok(PathBuf::from(value)),
    }
}

impl ManifestsArgs {
    /// The folder in the repository the controller reads.
    fn folder(&self) -> &str {
        self.path.as_deref().unwrap_or(DEFAULT_FOLDER)
    }
}

const DEFAULT_FOLDER: &str = "dns";

/// `--path` when not given: the folder of the accounts file (a path from the repository's
/// root), so the pod reads the folder that holds it; `dns` for one account.
fn default_folder(accounts_file: Option<&Path>) -> Result<String, CommandError> {
    let Some(file) = accounts_file else {
        return Ok(DEFAULT_FOLDER.to_owned());
    };
    let folder = file.parent().map(Path::to_string_lossy).unwrap_or_default();
    let folder = folder.trim_start_matches("./");
    let folder = if folder.is_empty() { "." } else { folder };
    repo_path(folder).map_err(|why| {
        CommandError::user(format!(
            "--accounts-file {}: its folder is not a folder of the repository: {why}",
            file.display()
        ))
        .with_hint(
            "give the accounts file as a path from the repository's root (dns/dnscron-accounts.yaml), \
             or say the folder that holds it with --path",
        )
    })
}

fn fill(template: &str, args: &ManifestsArgs) -> String {
    let dir = match args.folder() {
        "." => "/repo/current".to_owned(),
        path => format!("/repo/current/{path}"),
    };
    let shown = match args.folder() {
        "." => "root".to_owned(),
        path => format!("{path}/"),
    };
    template
        .replace("@COMMAND@", &command_line(args))
        .replace("@NAMESPACE@", &args.namespace)
        .replace("@NAME@", &args.name)
        .replace("@REPOSITORY@", &args.repository)
        .replace("@BRANCH@", &args.branch)
        .replace("@PATH_SHOWN@", &shown)
        .replace("@DIR@", &dir)
        .replace("@POLICY@", args.policy.name())
        .replace("@API_SHARE@", &args.api_share.to_string())
        .replace("@IMAGE@", &args.image)
}

/// A DNS label (RFC 1123, as Kubernetes names namespaces and Services): lowercase letters,
/// digits and `-`, starting and ending with a letter or digit, at most `max` characters.
fn dns_label(value: &str, max: usize) -> Result<String, String> {
    let alnum = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
    if value.is_empty() || value.len() > max {
        return Err(format!("1 to {max} characters, a DNS label"));
    }
    if !value.chars().all(|c| alnum(c) || c == '-') {
        return Err("only lowercase letters, digits and '-' (a DNS label)".into());
    }
    if !value.starts_with(alnum) || !value.ends_with(alnum) {
        return Err("starts and ends with a lowercase letter or digit (a DNS label)".into());
    }
    Ok(value.to_owned())
}

fn namespace(value: &str) -> Result<String, String> {
    dns_label(value, 63)
}

// The claim is NAME-state, itself a DNS label of at most 63.
fn name(value: &str) -> Result<String, String> {
    dns_label(value, 57)
}

/// A URL git-sync can fetch, in characters that need no quoting in YAML or a shell: https://
/// or ssh:// with a host and a path, or scp-like `user@host:path`. Credentials never go in it
/// (they would sit in the manifest): a token goes in a Secret git-sync reads.
fn repository(value: &str) -> Result<String, String> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || "-._~/:@+".contains(c);
    if let Some(bad) = value.chars().find(|&c| !allowed(c)) {
        return Err(format!(
            "{bad:?} is not allowed: letters, digits and - . _ ~ / : @ + only"
        ));
    }
    let (host, path) = if let Some(rest) = value.strip_prefix("https://") {
        if rest.contains('@') {
            return Err(
                "no credentials in the URL: give git-sync a token from a Secret \
                        (--password-file) instead"
                    .into(),
            );
        }
        rest.split_once('/').unwrap_or((rest, ""))
    } else if let Some(rest) = value.strip_prefix("ssh://") {
        let rest = rest.rsplit_once('@').map_or(rest, |(_, host)| host);
        rest.split_once('/').unwrap_or((rest, ""))
    } else if value.contains("://") {
        return Err(
            "https://, ssh:// or user@host:path (plain http:// and git:// are not \
                    authenticated)"
                .into(),
        );
    } else {
        let (user_host, path) = value
            .split_once(':')
            .ok_or("https://host/path, ssh://host/path or user@host:path")?;
        let host = user_host.rsplit_once('@').map_or(user_host, |(_, h)| h);
        (host, path)
    };
    if host.is_empty() || path.trim_matches('/').is_empty() || value.starts_with('-') {
        return Err("a host and a repository path".into());
    }
    Ok(value.to_owned())
}

/// A branch name git accepts (git check-ref-format), within letters, digits and `._/-`.
fn branch(value: &str) -> Result<String, String> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || "._/-".contains(c);
    let refused = value.is_empty()
        || value.len() > 255
        || !value.chars().all(allowed)
        || value.starts_with(['-', '/', '.'])
        || value.ends_with(['/', '.'])
        || value.ends_with(".lock")
        || value.contains("..")
        || value.contains("//")
        || value.contains("/.");
    if refused {
        return Err(
            "a branch name: letters, digits and . _ / - (as git check-ref-format \
                    allows)"
                .into(),
        );
    }
    Ok(value.to_owned())
}

/// A folder inside the repository, relative: `.` for its root.
fn repo_path(value: &str) -> Result<String, String> {
    if value == "." {
        return Ok(value.to_owned());
    }
    let value = value.trim_end_matches('/');
    let segment_ok = |s: &str| {
        !s.is_empty()
            && s != "."
            && s != ".."
            && !s.starts_with('-')
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
    };
    if value.starts_with('/') || !value.split('/').all(segment_ok) {
        return Err(
            "a relative folder inside the repository (letters, digits and . _ -, \
                    no '..'), or '.' for its root"
                .into(),
        );
    }
    Ok(value.to_owned())
}

/// An image reference: a repository with a tag, a digest or both, in lowercase letters, digits
/// and `._/:@-`; a digest is `@sha256:` and 64 lowercase hex digits.
fn image(value: &str) -> Result<String, String> {
    let allowed = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || "._/:@-".contains(c);
    if value.is_empty() || value.len() > 255 || value.starts_with(['-', '/', ':', '@']) {
        return Err("an image reference, such as ghcr.io/dnscron/dnscron:0.1.0".into());
    }
    if let Some(bad) = value.chars().find(|&c| !allowed(c)) {
        return Err(format!(
            "{bad:?} is not allowed in an image reference (lowercase letters, digits, . _ / : @ -)"
        ));
    }
    let (name, digest) = match value.split_once('@') {
        Some((name, digest)) => (name, Some(digest)),
        None => (value, None),
    };
    if let Some(digest) = digest {
        let hex = digest.strip_prefix("sha256:").unwrap_or("");
        let lower_hex = |c: char| c.is_ascii_digit() || ('a'..='f').contains(&c);
        if hex.len() != 64 || !hex.chars().all(lower_hex) {
            return Err("a digest is @sha256: and 64 lowercase hex digits".into());
        }
    }
    let last = name.rsplit('/').next().unwrap_or(name);
    let tag = last.split_once(':').map(|(_, tag)| tag);
    if tag == Some("") || (tag.is_none() && digest.is_none()) {
        return Err(
            "name a tag (:0.1.0) or a digest (@sha256:…): an image without either is \
                    whatever :latest is that day"
                .into(),
        );
    }
    Ok(value.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_namespaces_are_dns_labels() {
        assert_eq!(namespace("dns-prod").as_deref(), Ok("dns-prod"));
        assert!(name(&"a".repeat(57)).is_ok());
        for refused in [
            "", "Dns", "-dns", "dns-", "dns_prod", "dns prod", "dns\nx", "a.b",
        ] {
            assert!(namespace(refused).is_err(), "{refused:?}");
        }
        assert!(name(&"a".repeat(58)).is_err());
        assert!(namespace(&"a".repeat(64)).is_err());
    }

    #[test]
    fn repositories_are_authenticated_urls_without_credentials() {
        for accepted in [
            "https://github.com/example/dns.git",
            "ssh://git@gitlab.example.net:2222/team/dns.git",
            "git@github.com:example/dns.git",
        ] {
            assert_eq!(repository(accepted).as_deref(), Ok(accepted));
        }
        for (refused, why) in [
            ("http://github.com/example/dns.git", "https://"),
            ("git://github.com/example/dns.git", "https://"),
            ("https://user:token@github.com/x/y.git", "no credentials"),
            ("https://github.com/x/y.git # comment", "' ' is not allowed"),
            ("https://github.com/x/y.git\"", "'\"' is not allowed"),
            (
                "https://github.com/x/y\n- --one-time=true",
                "'\\n' is not allowed",
            ),
            ("https://github.com", "a host and a repository path"),
            ("github.com/example/dns", "user@host:path"),
            ("-c:x", "a host and a repository path"),
        ] {
            let error = repository(refused).unwrap_err();
            assert!(error.contains(why), "{refused:?}: {error}");
        }
    }

    #[test]
    fn branches_are_git_ref_names() {
        for accepted in ["main", "release/2026.1", "dns_v2"] {
            assert!(branch(accepted).is_ok(), "{accepted}");
        }
        for refused in [
            "", "-main", "a..b", "a/", "a.lock", "a b", "a:b", "/a", ".a", "a/.b",
        ] {
            assert!(branch(refused).is_err(), "{refused:?}");
        }
    }

    #[test]
    fn paths_stay_inside_the_repository() {
        assert_eq!(repo_path("dns/").as_deref(), Ok("dns"));
        assert_eq!(repo_path("infra/dns").as_deref(), Ok("infra/dns"));
        assert_eq!(repo_path(".").as_deref(), Ok("."));
        for refused in ["/etc", "../x", "dns/../..", "a//b", "a b", "-x", ""] {
            assert!(repo_path(refused).is_err(), "{refused:?}");
        }
    }

    #[test]
    fn images_name_a_tag_or_a_digest() {
        let digest = format!("@sha256:{}", "0a".repeat(32));
        for accepted in [
            "ghcr.io/dnscron/dnscron:0.1.0".to_owned(),
            format!("ghcr.io/dnscron/dnscron:0.1.0{digest}"),
            format!("registry.example.net:5000/dnscron{digest}"),
        ] {
            assert!(image(&accepted).is_ok(), "{accepted}");
        }
        for refused in [
            "ghcr.io/dnscron/dnscron".to_owned(),
            "registry.example.net:5000/dnscron".to_owned(),
            "ghcr.io/dnscron/dnscron:".to_owned(),
            "GHCR.io/dnscron/dnscron:1".to_owned(),
            "ghcr.io/dnscron/dnscron:1 ".to_owned(),
            format!("ghcr.io/dnscron/dnscron@sha256:{}", "0A".repeat(32)),
            "ghcr.io/dnscron/dnscron@sha256:abc".to_owned(),
            "-ghcr.io/x:1".to_owned(),
        ] {
            assert!(image(&refused).is_err(), "{refused:?}");
        }
    }
}
