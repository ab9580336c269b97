//! The manifest's documents read into the Kubernetes API's types. k8s-openapi's types skip a
//! field they don't know, as the API server's lenient decoding does, so a misspelt field would
//! parse and then be dropped by the cluster without a word. Strict here: the typed value is
//! written back and must equal the document, so a field the type doesn't have shows up as lost.

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{PersistentVolumeClaim, Service};
use k8s_openapi::api::networking::v1::NetworkPolicy;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{MANIFEST, documents, read};

/// The Prometheus Operator's ServiceMonitor is a custom resource, not in k8s-openapi: the fields
/// the manifest uses, and no others.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ServiceMonitor {
    pub api_version: String,
    pub kind: String,
    pub metadata: ObjectMeta,
    pub spec: ServiceMonitorSpec,
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ServiceMonitorSpec {
    pub selector: LabelSelector,
    pub endpoints: Vec<ScrapeEndpoint>,
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ScrapeEndpoint {
    pub port: String,
    pub path: String,
    pub interval: String,
}

/// The manifest's objects, each in its type.
#[derive(Debug, Default)]
pub struct Manifest {
    pub claims: Vec<PersistentVolumeClaim>,
    pub deployments: Vec<Deployment>,
    pub services: Vec<Service>,
    pub service_monitors: Vec<ServiceMonitor>,
    pub network_policies: Vec<NetworkPolicy>,
}

/// Reads every document strictly; the error lists each problem, one line each.
pub fn manifest(text: &str) -> Result<Manifest, Vec<String>> {
    let mut manifest = Manifest::default();
    let mut problems = Vec::new();
    for (index, doc) in documents(text).into_iter().enumerate() {
        let kind = (
            doc["apiVersion"].as_str().unwrap_or_default().to_string(),
            doc["kind"].as_str().unwrap_or_default().to_string(),
        );
        let read = match (kind.0.as_str(), kind.1.as_str()) {
            ("v1", "PersistentVolumeClaim") => strict(&doc).map(|c| manifest.claims.push(c)),
            ("apps/v1", "Deployment") => strict(&doc).map(|d| manifest.deployments.push(d)),
            ("v1", "Service") => strict(&doc).map(|s| manifest.services.push(s)),
            ("monitoring.coreos.com/v1", "ServiceMonitor") => {
                strict(&doc).map(|m| manifest.service_monitors.push(m))
            }
            ("networking.k8s.io/v1", "NetworkPolicy") => {
                strict(&doc).map(|p| manifest.network_policies.push(p))
            }
            (api_version, kind) => Err(vec![format!(
                "a {kind} of {api_version}, which the manifest has no business creating"
            )]),
        };
        if let Err(found) = read {
            problems.extend(found.into_iter().map(|p| format!("document {index}: {p}")));
        }
    }
    if problems.is_empty() {
        Ok(manifest)
    } else {
        Err(problems)
    }
}

/// `doc` as a `T`, refused when the type can't read it or when writing it back loses or
/// changes anything.
fn strict<T: DeserializeOwned + Serialize>(doc: &Value) -> Result<T, Vec<String>> {
    let typed: T = serde_json::from_value(doc.clone()).map_err(|e| vec![e.to_string()])?;
    let written = serde_json::to_value(&typed).unwrap();
    let mut lost = Vec::new();
    differences("", doc, &written, &mut lost);
    if lost.is_empty() {
        Ok(typed)
    } else {
        Err(lost)
    }
}

/// Where `written` differs from `original`, as JSON pointers.
fn differences(at: &str, original: &Value, written: &Value, out: &mut Vec<String>) {
    match (original, written) {
        (Value::Object(before), Value::Object(after)) => {
            for (key, value) in before {
                let path = format!("{at}/{key}");
                match after.get(key) {
                    Some(kept) => differences(&path, value, kept, out),
                    None => out.push(format!("{path}: not a field of this type")),
                }
            }
            for key in after.keys().filter(|k| !before.contains_key(*k)) {
                out.push(format!("{at}/{key}: added by the type"));
            }
        }
        (Value::Array(before), Value::Array(after)) if before.len() == after.len() => {
            for (index, (value, kept)) in before.iter().zip(after).enumerate() {
                differences(&format!("{at}/{index}"), value, kept, out);
            }
        }
        (before, after) if before == after => {}
        (before, after) => out.push(format!("{at}: {before} read as {after}")),
    }
}

#[test]
fn every_document_is_read_strictly_into_its_kubernetes_type() {
    let manifest = manifest(&read(MANIFEST)).unwrap_or_else(|p| panic!("{p:#?}"));
    assert_eq!(
        [
            manifest.claims.len(),
            manifest.deployments.len(),
            manifest.services.len(),
            manifest.service_monitors.len(),
            manifest.network_policies.len(),
        ],
        [1, 1, 1, 1, 1]
    );
}

/// Both forms of the rule: the lenient reading takes a misspelt `readinessProbe` and drops the
/// probe; the strict one names the field.
#[test]
fn a_misspelt_field_fails() {
    let text = read(MANIFEST);
    assert_eq!(text.matches("readinessProbe:").count(), 1);
    let misspelt = text.replace("readinessProbe:", "readynessProbe:");
    let deployment = documents(&misspelt)
        .into_iter()
        .find(|d| d["kind"] == "Deployment")
        .unwrap();
    let lenient: Deployment = serde_json::from_value(deployment).unwrap();
    let pod = lenient.spec.unwrap().template.spec.unwrap();
    assert!(pod.containers[0].readiness_probe.is_none());
    assert_eq!(
        manifest(&misspelt).unwrap_err(),
        ["document 1: /spec/template/spec/containers/0/readynessProbe: not a field of this type"]
    );
}

#[test]
fn a_misspelt_service_monitor_field_fails() {
    let text = read(MANIFEST);
    let misspelt = text.replacen("      interval: 30s", "      scrapeInterval: 30s", 1);
    assert_ne!(misspelt, text);
    let problems = manifest(&misspelt).unwrap_err();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].starts_with("document 3: unknown field `scrapeInterval`, expected one of"),
        "{problems:?}"
    );
}

/// A value of the wrong shape is refused too (a port as a list), and a kind the kit doesn't
/// ship (a Secret, which would put the token in the repository) is named.
#[test]
fn a_wrong_value_or_an_unexpected_kind_fails() {
    let text = read(MANIFEST);
    let wrong = text.replace("replicas: 1", "replicas: [1]");
    let problems = manifest(&wrong).unwrap_err();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].starts_with("document 1: "), "{problems:?}");
    let with_secret = format!(
        "{text}---\napiVersion: v1\nkind: Secret\nmetadata: {{ name: dnscron-controller }}\nstringData: {{ token: x }}\n"
    );
    assert_eq!(
        manifest(&with_secret).unwrap_err(),
        ["document 5: a Secret of v1, which the manifest has no business creating"]
    );
}

#[test]
fn a_misspelt_network_policy_field_fails() {
    let text = read(MANIFEST);
    let misspelt = text.replace(
        "  policyTypes: [Ingress, Egress]",
        "  policyType: [Ingress, Egress]",
    );
    assert_ne!(misspelt, text);
    assert_eq!(
        manifest(&misspelt).unwrap_err(),
        ["document 4: /spec/policyType: not a field of this type"]
    );
}
