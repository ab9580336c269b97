//! The security rules of the recipes, checked on their text: actions pinned by commit, the
//! write token only in the apply step of a job bound to the protected environment, secrets
//! never at workflow or job level, least-privilege permissions (nothing but reads at a workflow's
//! top, writes on the job that makes them), a locked-down CronJob.

use serde_json::Value;

use crate::common::repo_root;

fn workflow(name: &str) -> String {
    std::fs::read_to_string(repo_root().join("examples/ci/github").join(name)).unwrap()
}

const WORKFLOWS: [&str; 4] = [
    "dnscron-plan.yml",
    "dnscron-apply.yml",
    "dnscron-drift.yml",
    "dnscron-adopt.yml",
];

/// Every rule a workflow breaks, one line each.
pub(super) fn violations(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text
        .lines()
        .filter(|l| l.trim_start().trim_start_matches("- ").starts_with("uses:"))
    {
        let pinned = line
            .split_once('@')
            .map(|(_, rest)| rest.split_once(" # v"))
            .is_some_and(|pin| {
                pin.is_some_and(|(sha, _)| {
                    sha.len() == 40 && sha.chars().all(|c| c.is_ascii_hexdigit())
                })
            });
        if !pinned {
            out.push(format!(
                "not pinned by commit SHA with its tag: {}",
                line.trim()
            ));
        }
    }
    let doc: Value = serde_saphyr::from_str(text).unwrap();
    match doc["permissions"].as_object() {
        None => out.push("no workflow-level permissions map".into()),
        Some(granted) => out.extend(
            granted
                .iter()
                .filter(|(_, level)| level.as_str() != Some("read"))
                .map(|(scope, level)| {
                    format!(
                        "{scope}: {level} at the workflow level; grant it to the job that needs it"
                    )
                }),
        ),
    }
    if doc["on"].get("pull_request_target").is_some() {
        out.push("pull_request_target runs fork code with secrets".into());
    }
    let secret_in = |v: &Value| v.to_string().contains("secrets.");
    if secret_in(&doc["env"]) {
        out.push("secrets in workflow-level env".into());
    }
    for (name, job) in doc["jobs"].as_object().unwrap() {
        if secret_in(&job["env"]) {
            out.push(format!("{name}: secrets in job-level env"));
        }
        for step in job["steps"].as_array().unwrap() {
            let writes = step.to_string().contains("secrets.DNSCRON_APPLY_TOKEN");
            let bound = job["environment"].as_str() == Some("dnscron-apply")
                && step["name"].as_str() == Some("Apply");
            if writes && !bound {
                out.push(format!("{name}: the write token outside the Apply step of the dnscron-apply environment"));
            }
        }
    }
    out
}

#[test]
fn the_workflows_keep_the_rules() {
    for name in WORKFLOWS {
        assert_eq!(violations(&workflow(name)), Vec::<String>::new(), "{name}");
    }
}

#[test]
fn a_broken_rule_is_caught() {
    let apply = workflow("dnscron-apply.yml");
    let unpinned = apply.replace(
        "actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1",
        "actions/checkout@v7",
    );
    assert_eq!(
        violations(&unpinned),
        ["not pinned by commit SHA with its tag: - uses: actions/checkout@v7"]
    );
    // A `uses:` under a step's `name:` is held to the same rule.
    let named = apply.replace(
        "        uses: dnscron/dnscron@0000000000000000000000000000000000000000 # v0.1.0 (placeholder: the commit of the release tag)",
        "        uses: dnscron/dnscron@v0.1.0",
    );
    assert_eq!(
        violations(&named),
        ["not pinned by commit SHA with its tag: uses: dnscron/dnscron@v0.1.0"]
    );
    let job_level = apply.replace(
        "    environment: dnscron-apply\n",
        "    environment: dnscron-apply\n    env:\n      DNSCRON_TOKEN: ${{ secrets.DNSCRON_APPLY_TOKEN }}\n",
    );
    assert_eq!(violations(&job_level), ["apply: secrets in job-level env"]);
    let no_environment = apply.replace("    environment: dnscron-apply\n", "");
    assert_eq!(
        violations(&no_environment),
        ["apply: the write token outside the Apply step of the dnscron-apply environment"]
    );
    let workflow_write = workflow("dnscron-drift.yml").replace(
        "permissions: {}\n",
        "permissions:\n  contents: read\n  issues: write\n",
    );
    assert_eq!(
        violations(&workflow_write),
        ["issues: \"write\" at the workflow level; grant it to the job that needs it"]
    );
    let plan = workflow("dnscron-plan.yml")
        .replace("secrets.DNSCRON_READ_TOKEN", "secrets.DNSCRON_APPLY_TOKEN");
    assert_eq!(
        violations(&plan),
        ["plan: the write token outside the Apply step of the dnscron-apply environment"]
    );
}

#[test]
fn the_cronjob_runs_the_release_image_with_least_privilege() {
    let path = repo_root().join("examples/ci/kubernetes/dnscron-drift-cronjob.yaml");
    let doc: Value = serde_saphyr::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(cronjob_facts(&doc), LEAST_PRIVILEGE);
    let container = &doc["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0];
    // Its one token is a file of the Secret (`--token-file`), not a variable.
    assert!(!container["env"].to_string().contains("secretKeyRef"));
}

/// What [`cronjob_facts`] must say: no overlap, no service-account token, non-root, read-only
/// root filesystem, no privilege escalation, no capabilities, the release image.
pub(super) const LEAST_PRIVILEGE: [&str; 7] = [
    "\"Forbid\"",
    "false",
    "true",
    "true",
    "false",
    "[\"ALL\"]",
    "true",
];

/// A CronJob's privilege settings, each as JSON text, in [`LEAST_PRIVILEGE`]'s order.
pub(super) fn cronjob_facts(doc: &Value) -> Vec<String> {
    let pod = &doc["spec"]["jobTemplate"]["spec"]["template"]["spec"];
    let container = &pod["containers"][0];
    [
        doc["spec"]["concurrencyPolicy"].clone(),
        pod["automountServiceAccountToken"].clone(),
        pod["securityContext"]["runAsNonRoot"].clone(),
        container["securityContext"]["readOnlyRootFilesystem"].clone(),
        container["securityContext"]["allowPrivilegeEscalation"].clone(),
        container["securityContext"]["capabilities"]["drop"].clone(),
        Value::Bool(
            container["image"]
                .as_str()
                .unwrap()
                .starts_with("ghcr.io/dnscron/dnscron:"),
        ),
    ]
    .iter()
    .map(Value::to_string)
    .collect()
}

/// Write access only where it is used: the plan job alone may comment, the drift job alone may
/// touch issues, and neither workflow grants anything at its top (zizmor's pedantic audit, run
/// by .ci/run, asks the same).
#[test]
fn write_permissions_belong_to_the_job_that_writes() {
    for (name, job, granted) in [
        (
            "dnscron-plan.yml",
            "plan",
            serde_json::json!({"contents": "read", "pull-requests": "write"}),
        ),
        (
            "dnscron-drift.yml",
            "drift",
            serde_json::json!({"contents": "read", "issues": "write"}),
        ),
        (
            "dnscron-adopt.yml",
            "adopt",
            serde_json::json!({"contents": "write", "pull-requests": "write"}),
        ),
    ] {
        let doc: Value = serde_saphyr::from_str(&workflow(name)).unwrap();
        assert_eq!(doc["permissions"], serde_json::json!({}), "{name}");
        assert_eq!(doc["jobs"][job]["permissions"], granted, "{name}");
    }
}

/// The apply job reads runs, artifacts, pull requests and commits, and nothing more: the
/// write token is DNSCRON_APPLY_TOKEN, behind the protected environment.
#[test]
fn the_apply_workflow_only_reads_from_github() {
    let doc: Value = serde_saphyr::from_str(&workflow("dnscron-apply.yml")).unwrap();
    assert_eq!(
        doc["permissions"],
        serde_json::json!({"contents": "read", "actions": "read", "pull-requests": "read"})
    );
    assert_eq!(
        doc["concurrency"],
        serde_json::json!({"group": "dnscron-apply", "cancel-in-progress": false})
    );
    assert_eq!(doc["jobs"]["apply"]["environment"], "dnscron-apply");
}

/// Every `run:` script, by workflow and step name, that puts a `${{ }}` expression into the
/// shell's text (where a value from the event would be run, not read).
fn expressions_in_scripts(text: &str) -> Vec<String> {
    let doc: Value = serde_saphyr::from_str(text).unwrap();
    let mut out = Vec::new();
    for job in doc["jobs"].as_object().unwrap().values() {
        for step in job["steps"].as_array().unwrap() {
            if step["run"].as_str().is_some_and(|run| run.contains("${{")) {
                out.push(step["name"].as_str().unwrap_or("run").to_string());
            }
        }
    }
    out
}

/// The plan check runs again when a label is added or removed (the approval of mass changes),
/// and the label is read from the event into `env:`, never into a script's text.
#[test]
fn the_plan_workflow_reads_the_approval_label_from_the_event_on_every_label_change() {
    let text = workflow("dnscron-plan.yml");
    let doc: Value = serde_saphyr::from_str(&text).unwrap();
    assert_eq!(
        doc["on"]["pull_request"]["types"],
        serde_json::json!(["opened", "synchronize", "reopened", "labeled", "unlabeled"])
    );
    let plan_step = doc["jobs"]["plan"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "Validate and plan")
        .unwrap();
    assert_eq!(
        plan_step["env"]["MASS_CHANGES_APPROVED"],
        "${{ contains(github.event.pull_request.labels.*.name, 'dnscron:allow-mass-changes') && github.event.action != 'synchronize' }}"
    );
    for name in WORKFLOWS {
        assert_eq!(
            expressions_in_scripts(&workflow(name)),
            Vec::<String>::new(),
            "{name}"
        );
    }
    // Refused form: the label interpolated into the script.
    let inline = text.replace(
        "if [ \"$MASS_CHANGES_APPROVED\" = true ]",
        "if [ \"${{ github.event.label.name }}\" = dnscron:allow-mass-changes ]",
    );
    assert_eq!(expressions_in_scripts(&inline), ["Validate and plan"]);
}
