//! What a safe deployment of the controller needs, asserted on the typed manifest: one pod at a
//! time, locked down, probes where `--listen` serves, the state on the claim, the token a
//! Secret file, git-sync pinned by digest feeding the DIR the controller reads.

use std::net::SocketAddr;
use std::path::Path;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Container, PodSpec, Probe, Volume, VolumeMount};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use super::command::{ControllerCommand, controller_command};
use super::strict::{Manifest, manifest};
use super::{MANIFEST, read};

fn shipped() -> Manifest {
    manifest(&read(MANIFEST)).unwrap()
}

fn pod(deployment: &Deployment) -> &PodSpec {
    deployment
        .spec
        .as_ref()
        .unwrap()
        .template
        .spec
        .as_ref()
        .unwrap()
}

fn container<'a>(pod: &'a PodSpec, name: &str) -> &'a Container {
    pod.containers
        .iter()
        .chain(pod.init_containers.iter().flatten())
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no container {name}"))
}

fn command(pod: &PodSpec) -> ControllerCommand {
    let dnscron = container(pod, "dnscron");
    assert_eq!(dnscron.command, None, "the image's entrypoint is dnscron");
    controller_command(dnscron.args.as_deref().unwrap()).unwrap()
}

/// The volume and the mount of `container` that hold `file`, and the file's path inside it.
fn volume_of<'a>(pod: &'a PodSpec, container: &Container, file: &str) -> (&'a Volume, String) {
    let mount = container
        .volume_mounts
        .iter()
        .flatten()
        .filter(|m| Path::new(file).starts_with(&m.mount_path))
        .max_by_key(|m| m.mount_path.len())
        .unwrap_or_else(|| panic!("{file} is on no mount of {}", container.name));
    let volume = pod
        .volumes
        .iter()
        .flatten()
        .find(|v| v.name == mount.name)
        .unwrap();
    let inside = Path::new(file)
        .strip_prefix(&mount.mount_path)
        .unwrap()
        .display()
        .to_string();
    (volume, inside)
}

fn mount_of<'a>(container: &'a Container, volume: &str) -> &'a VolumeMount {
    let mut mounts = container.volume_mounts.iter().flatten();
    mounts.find(|m| m.name == volume).unwrap()
}

fn http_get(probe: &Option<Probe>) -> (String, IntOrString) {
    let get = probe.as_ref().unwrap().http_get.as_ref().unwrap();
    (get.path.clone().unwrap(), get.port.clone())
}

#[test]
fn one_pod_at_a_time() {
    let manifest = shipped();
    let spec = manifest.deployments[0].spec.as_ref().unwrap();
    assert_eq!(spec.replicas, Some(1));
    assert_eq!(
        spec.strategy.as_ref().unwrap().type_.as_deref(),
        Some("Recreate")
    );
    assert_eq!(
        manifest.claims[0].spec.as_ref().unwrap().access_modes,
        Some(vec!["ReadWriteOnce".to_string()])
    );
}

#[test]
fn every_container_runs_locked_down() {
    let manifest = shipped();
    let pod = pod(&manifest.deployments[0]);
    assert_eq!(pod.automount_service_account_token, Some(false));
    let context = pod.security_context.as_ref().unwrap();
    assert_eq!(context.run_as_non_root, Some(true));
    assert_eq!(
        (context.run_as_user, context.run_as_group, context.fs_group),
        (Some(65532), Some(65532), Some(65532))
    );
    assert_eq!(
        context.seccomp_profile.as_ref().unwrap().type_,
        "RuntimeDefault"
    );
    let all: Vec<&Container> = pod
        .containers
        .iter()
        .chain(pod.init_containers.iter().flatten())
        .collect();
    assert_eq!(all.len(), 2);
    for c in all {
        let context = c.security_context.as_ref().unwrap();
        assert_eq!(
            context.allow_privilege_escalation,
            Some(false),
            "{}",
            c.name
        );
        assert_eq!(context.read_only_root_filesystem, Some(true), "{}", c.name);
        assert_eq!(context.privileged, None, "{}", c.name);
        assert_eq!(
            context.capabilities.as_ref().unwrap().drop,
            Some(vec!["ALL".to_string()]),
            "{}",
            c.name
        );
        assert!(context.capabilities.as_ref().unwrap().add.is_none());
        assert_ne!(context.run_as_user, Some(0), "{}", c.name);
        assert_eq!(context.run_as_non_root, None, "the pod's holds, {}", c.name);
        let resources = c.resources.as_ref().unwrap();
        assert!(resources.requests.as_ref().unwrap().contains_key("memory"));
        assert!(resources.limits.as_ref().unwrap().contains_key("memory"));
    }
}

#[test]
fn the_probes_and_the_service_are_where_listen_serves() {
    let manifest = shipped();
    let pod = pod(&manifest.deployments[0]);
    let listen: SocketAddr = command(pod).flags["--listen"].parse().unwrap();
    assert!(
        listen.ip().is_unspecified(),
        "the kubelet and Prometheus reach it"
    );
    let port = i32::from(listen.port());
    let dnscron = container(pod, "dnscron");
    assert_eq!(
        http_get(&dnscron.liveness_probe),
        ("/healthz".to_string(), IntOrString::Int(port))
    );
    assert_eq!(
        http_get(&dnscron.readiness_probe),
        ("/readyz".to_string(), IntOrString::Int(port))
    );
    let declared = &dnscron.ports.as_ref().unwrap()[0];
    assert_eq!(
        (declared.name.as_deref(), declared.container_port),
        (Some("http-metrics"), port)
    );
    let service = manifest.services[0].spec.as_ref().unwrap();
    let service_port = &service.ports.as_ref().unwrap()[0];
    assert_eq!(
        (
            service_port.name.as_deref(),
            service_port.port,
            service_port.target_port.clone()
        ),
        (
            Some("http-metrics"),
            port,
            Some(IntOrString::String("http-metrics".into()))
        )
    );
    let labels = manifest.deployments[0]
        .spec
        .as_ref()
        .unwrap()
        .template
        .metadata
        .as_ref()
        .unwrap()
        .labels
        .clone()
        .unwrap();
    assert_eq!(service.selector.as_ref().unwrap(), &labels);
    let monitor = &manifest.service_monitors[0].spec;
    assert_eq!(
        monitor.selector.match_labels.as_ref(),
        manifest.services[0].metadata.labels.as_ref()
    );
    assert_eq!(
        (
            monitor.endpoints[0].port.as_str(),
            monitor.endpoints[0].path.as_str()
        ),
        ("http-metrics", "/metrics")
    );
}

#[test]
fn the_state_and_the_suspend_file_are_on_the_claim() {
    let manifest = shipped();
    let pod = pod(&manifest.deployments[0]);
    let flags = command(pod).flags;
    let dnscron = container(pod, "dnscron");
    let claim = manifest.claims[0].metadata.name.clone().unwrap();
    for flag in ["--state-file", "--suspend-file"] {
        let (volume, inside) = volume_of(pod, dnscron, &flags[flag]);
        let on = volume
            .persistent_volume_claim
            .as_ref()
            .map(|c| &c.claim_name);
        assert_eq!(on, Some(&claim), "{flag}");
        assert!(!inside.is_empty(), "{flag}");
    }
}

#[test]
fn the_token_is_a_required_secret_file_and_the_webhook_an_optional_one() {
    let manifest = shipped();
    let pod = pod(&manifest.deployments[0]);
    let flags = command(pod).flags;
    let dnscron = container(pod, "dnscron");
    for (flag, optional) in [("--token-file", None), ("--webhook-url-file", Some(true))] {
        let (volume, inside) = volume_of(pod, dnscron, &flags[flag]);
        let sources = volume.projected.as_ref().unwrap().sources.as_ref().unwrap();
        let from: Vec<_> = sources
            .iter()
            .filter_map(|s| s.secret.as_ref())
            .filter(|secret| {
                secret
                    .items
                    .iter()
                    .flatten()
                    .any(|item| item.path == inside)
            })
            .collect();
        assert_eq!(from.len(), 1, "{flag}");
        assert_eq!(from[0].name, "dnscron-controller", "{flag}");
        assert_eq!(from[0].optional, optional, "{flag}");
    }
    // Never in the environment, where `kubectl describe` and crash dumps show it.
    for c in pod
        .containers
        .iter()
        .chain(pod.init_containers.iter().flatten())
    {
        for env in c.env.iter().flatten() {
            let secret = env
                .value_from
                .as_ref()
                .and_then(|v| v.secret_key_ref.as_ref());
            assert!(secret.is_none(), "{}: {}", c.name, env.name);
        }
    }
    assert!(
        !flags.contains_key("--api-url"),
        "the URL comes from the ConfigMap"
    );
}

#[test]
fn git_sync_is_a_pinned_sidecar_feeding_the_controllers_dir() {
    let manifest = shipped();
    let pod = pod(&manifest.deployments[0]);
    let git_sync = container(pod, "git-sync");
    assert!(
        pod.init_containers
            .iter()
            .flatten()
            .any(|c| c.name == "git-sync"),
        "a native sidecar"
    );
    assert_eq!(git_sync.restart_policy.as_deref(), Some("Always"));
    let image = git_sync.image.as_deref().unwrap();
    let (name, digest) = image.split_once("@sha256:").unwrap();
    assert!(
        name.starts_with("registry.k8s.io/git-sync/git-sync:v4."),
        "{image}"
    );
    assert!(
        digest.len() == 64
            && digest
                .chars()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()),
        "{image}"
    );
    let args = git_sync.args.clone().unwrap();
    let arg = |flag: &str| {
        args.iter()
            .find_map(|a| a.strip_prefix(&format!("{flag}=")))
            .unwrap_or_else(|| panic!("no {flag}"))
            .to_string()
    };
    assert!(arg("--repo").starts_with("https://"));
    assert!(!arg("--ref").is_empty());
    assert!(!arg("--period").is_empty());
    assert_eq!(arg("--one-time"), "false");
    let linked = Path::new(&arg("--root")).join(arg("--link"));
    let dir = command(pod).dir;
    assert!(
        Path::new(&dir).starts_with(&linked),
        "{dir} is not under {linked:?}"
    );
    // One emptyDir, written by git-sync, read-only for the controller.
    let (volume, _) = volume_of(pod, git_sync, &arg("--root"));
    assert!(volume.empty_dir.is_some());
    let reader = mount_of(container(pod, "dnscron"), &volume.name);
    assert_eq!(reader.read_only, Some(true));
    // A git-sync worktree's `.git` file names its gitdir by absolute path.
    assert_eq!(
        reader.mount_path,
        mount_of(git_sync, &volume.name).mount_path
    );
    assert!(Path::new(&dir).starts_with(&reader.mount_path));
}

#[test]
fn the_controller_runs_the_release_image_by_its_tag() {
    let manifest = shipped();
    let pod = pod(&manifest.deployments[0]);
    assert_eq!(
        container(pod, "dnscron").image.as_deref(),
        Some(concat!(
            "ghcr.io/dnscron/dnscron:",
            env!("CARGO_PKG_VERSION")
        ))
    );
    let action = read("action.yml");
    assert!(
        action.contains(&format!("default: \"{}\"", env!("CARGO_PKG_VERSION"))),
        "action.yml installs the same release"
    );
}

/// What the pod reads from ConfigMaps and Secrets: `kind name key`.
fn referenced(pod: &PodSpec) -> Vec<String> {
    let mut out = Vec::new();
    for c in pod
        .containers
        .iter()
        .chain(pod.init_containers.iter().flatten())
    {
        for env in c.env.iter().flatten() {
            let from = env.value_from.as_ref();
            if let Some(key) = from.and_then(|v| v.config_map_key_ref.as_ref()) {
                out.push(format!("configmap {} {}", key.name, key.key));
            }
        }
    }
    for volume in pod.volumes.iter().flatten() {
        let sources = volume
            .projected
            .iter()
            .flat_map(|p| p.sources.iter().flatten());
        for secret in sources.filter_map(|s| s.secret.as_ref()) {
            for item in secret.items.iter().flatten() {
                out.push(format!("secret {} {}", secret.name, item.key));
            }
        }
        assert!(
            volume.secret.is_none() && volume.config_map.is_none(),
            "{}",
            volume.name
        );
    }
    out.sort();
    out
}

/// What the header's `kubectl create` lines make: `kind name key`, a literal marked.
fn created(text: &str) -> Vec<String> {
    use crate::ci_recipes::kubernetes::{header_commands, provided};
    let mut created: Vec<String> = header_commands(text)
        .iter()
        .flat_map(|c| provided(c))
        .collect();
    created.sort();
    created.dedup();
    created
}

/// What the pod reads that the header doesn't create.
fn missing(text: &str) -> Vec<String> {
    let created: Vec<String> = created(text)
        .into_iter()
        .map(|c| c.trim_end_matches(" (literal)").to_string())
        .collect();
    referenced(pod(&manifest(text).unwrap().deployments[0]))
        .into_iter()
        .filter(|wanted| !created.contains(wanted))
        .collect()
}

/// The header's `kubectl create` lines make every ConfigMap key and Secret key the pod reads,
/// the secrets from files only (never a literal on a command line); without the webhook's
/// `--from-file` its key is missing.
#[test]
fn the_header_creates_what_the_pod_reads() {
    let text = read(MANIFEST);
    assert_eq!(
        created(&text),
        [
            "configmap dnscron api-url (literal)",
            "secret dnscron-controller token",
            "secret dnscron-controller webhook-url",
        ]
    );
    assert_eq!(missing(&text), Vec::<String>::new());
    assert!(
        text.contains("(umask 077 && read -rs -p 'apply token: ' t && printf '%s' \"$t\" > token)")
    );
    let without_webhook = text.replace("--from-file=webhook-url=webhook-url", "");
    assert_eq!(
        missing(&without_webhook),
        ["secret dnscron-controller webhook-url"]
    );
}

/// git-sync's own endpoint: the startup probe on `/` and the metrics port, on the address its
/// `--http-bind` names, scraped through the Service and the ServiceMonitor; it keeps fetching
/// after a failure so the failures are counted.
#[test]
fn git_syncs_probe_and_metrics_are_wired() {
    let manifest = shipped();
    let pod = pod(&manifest.deployments[0]);
    let git_sync = container(pod, "git-sync");
    let args = git_sync.args.clone().unwrap();
    assert!(args.contains(&"--http-bind=:8081".to_owned()), "{args:?}");
    assert!(args.contains(&"--http-metrics".to_owned()), "{args:?}");
    assert!(args.contains(&"--max-failures=-1".to_owned()), "{args:?}");
    assert_eq!(
        http_get(&git_sync.startup_probe),
        ("/".to_owned(), IntOrString::Int(8081))
    );
    let port = &git_sync.ports.as_ref().unwrap()[0];
    assert_eq!(
        (port.name.as_deref(), port.container_port),
        (Some("git-sync-metrics"), 8081)
    );
    let service = manifest.services[0].spec.as_ref().unwrap();
    let names: Vec<_> = service
        .ports
        .iter()
        .flatten()
        .map(|p| (p.name.clone().unwrap(), p.target_port.clone().unwrap()))
        .collect();
    assert_eq!(
        names,
        [
            (
                "http-metrics".to_owned(),
                IntOrString::String("http-metrics".into())
            ),
            (
                "git-sync-metrics".to_owned(),
                IntOrString::String("git-sync-metrics".into())
            )
        ]
    );
    let scraped: Vec<&str> = manifest.service_monitors[0]
        .spec
        .endpoints
        .iter()
        .map(|e| e.port.as_str())
        .collect();
    assert_eq!(scraped, ["http-metrics", "git-sync-metrics"]);
}

/// The NetworkPolicy: it selects the pod, lets only Prometheus reach the two metrics ports, and
/// lets the pod out to DNS, HTTPS and SSH only.
#[test]
fn the_network_policy_lets_in_scrapes_only_and_out_dns_https_and_ssh() {
    let manifest = shipped();
    let policy = manifest.network_policies[0].spec.as_ref().unwrap();
    let labels = manifest.deployments[0]
        .spec
        .as_ref()
        .unwrap()
        .template
        .metadata
        .as_ref()
        .unwrap()
        .labels
        .clone();
    assert_eq!(policy.pod_selector.as_ref().unwrap().match_labels, labels);
    assert_eq!(policy.policy_types.clone().unwrap(), ["Ingress", "Egress"]);
    let port_list = |ports: &Option<Vec<k8s_openapi::api::networking::v1::NetworkPolicyPort>>| {
        ports
            .iter()
            .flatten()
            .map(|p| {
                format!(
                    "{}/{}",
                    p.protocol.clone().unwrap(),
                    match p.port.clone().unwrap() {
                        IntOrString::Int(n) => n.to_string(),
                        IntOrString::String(s) => s,
                    }
                )
            })
            .collect::<Vec<_>>()
    };
    let ingress = policy.ingress.as_ref().unwrap();
    assert_eq!(ingress.len(), 1);
    assert_eq!(port_list(&ingress[0].ports), ["TCP/8080", "TCP/8081"]);
    let from = ingress[0].from.as_ref().unwrap();
    assert_eq!(from.len(), 1);
    let prometheus = from[0].pod_selector.as_ref().unwrap().match_labels.clone();
    assert_eq!(
        prometheus
            .unwrap()
            .get("app.kubernetes.io/name")
            .map(String::as_str),
        Some("prometheus")
    );
    let egress: Vec<Vec<String>> = policy
        .egress
        .iter()
        .flatten()
        .map(|rule| port_list(&rule.ports))
        .collect();
    assert_eq!(
        egress,
        [vec!["UDP/53", "TCP/53"], vec!["TCP/443", "TCP/22"]]
    );
    // The controller's port is the one the policy opens.
    let listen: SocketAddr = command(pod(&manifest.deployments[0])).flags["--listen"]
        .parse()
        .unwrap();
    assert_eq!(listen.port(), 8080);
}
