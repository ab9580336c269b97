//! run.sh: dnscron's exit code becomes an output, only the allowed codes keep the step green,
//! and `args` is taken literally.

use std::path::Path;

use tempfile::TempDir;

use super::{Ran, make_executable, run_script, stub};

/// A run that failed the step with `status` and one error annotation.
fn failed(status: i32, stdout: &str, error: &str) -> Ran {
    Ran {
        status,
        stdout: stdout.to_string(),
        stderr: format!("::error title=dnscron::{error}\n"),
    }
}

struct Step {
    dir: TempDir,
}

impl Step {
    fn new() -> Step {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("temp")).unwrap();
        let bin = dir.path().join("dnscron");
        std::fs::write(&bin, stub()).unwrap();
        make_executable(&bin);
        Step { dir }
    }

    fn path(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }

    async fn run(
        &self,
        args: &str,
        allowed: &str,
        exit: &str,
        extra: &[(&'static str, &str)],
    ) -> Ran {
        let mut env = vec![
            ("DNSCRON_BIN", self.path("dnscron")),
            ("DNSCRON_ARGS", args.to_string()),
            ("DNSCRON_ALLOWED_EXIT_CODES", allowed.to_string()),
            ("STUB_EXIT", exit.to_string()),
            ("RUNNER_TEMP", self.path("temp")),
            ("GITHUB_OUTPUT", self.path("output")),
        ];
        env.extend(extra.iter().map(|(k, v)| (*k, v.to_string())));
        run_script("run.sh", self.dir.path(), env).await
    }

    fn output(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("output")).unwrap_or_default()
    }

    /// The outputs written, with the temporary stdout file's name replaced by STDOUT_FILE once
    /// its content was checked.
    fn outputs_with_stdout(&self, stdout: &str) -> String {
        let output = self.output();
        let file = output
            .lines()
            .find_map(|l| l.strip_prefix("stdout-file="))
            .unwrap()
            .to_string();
        assert!(Path::new(&file).starts_with(self.path("temp")), "{file}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), stdout);
        output.replace(&file, "STDOUT_FILE")
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_allowed_exit_code_keeps_the_step_green_and_is_an_output() {
    let step = Step::new();
    let ran = step
        .run(
            "plan dns/  --detailed-exitcode\n--format markdown",
            "0, 2",
            "2",
            &[("DNSCRON_PLAN_FILE", "plan.json")],
        )
        .await;
    let printed = "stub dnscron: plan dns/ --detailed-exitcode --format markdown --out plan.json\n";
    let expected = Ran {
        status: 0,
        stdout: printed.to_string(),
        stderr: String::new(),
    };
    assert_eq!(ran, expected);
    assert_eq!(
        step.outputs_with_stdout(printed),
        "plan-file=plan.json\nexit-code=2\nstdout-file=STDOUT_FILE\n"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn any_other_exit_code_fails_the_step_with_that_code() {
    let step = Step::new();
    let ran = step.run("apply dns/ --yes", "0", "3", &[]).await;
    let expected = failed(
        3,
        "stub dnscron: apply dns/ --yes\n",
        "dnscron exited 3 (allowed: 0); its output is above",
    );
    assert_eq!(ran, expected);
    assert_eq!(
        step.outputs_with_stdout("stub dnscron: apply dns/ --yes\n"),
        "exit-code=3\nstdout-file=STDOUT_FILE\n"
    );

    // A 0 the workflow did not allow fails too, with 1.
    let step = Step::new();
    let ran = step.run("plan dns/", "2", "0", &[]).await;
    let expected = failed(
        1,
        "stub dnscron: plan dns/\n",
        "dnscron exited 0 (allowed: 2); its output is above",
    );
    assert_eq!(ran, expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn args_are_words_taken_literally() {
    let step = Step::new();
    let ran = step
        .run("plan $(touch pwned) `touch pwned` * ${HOME}", "0", "0", &[])
        .await;
    let expected = Ran {
        status: 0,
        stdout: "stub dnscron: plan $(touch pwned) `touch pwned` * ${HOME}\n".to_string(),
        stderr: String::new(),
    };
    assert_eq!(ran, expected);
    assert!(!step.dir.path().join("pwned").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn empty_args_and_a_malformed_code_list_are_refused_without_running_dnscron() {
    let step = Step::new();
    let ran = step.run("  \n", "0", "0", &[]).await;
    let expected = failed(
        1,
        "",
        "the action's args input is empty; name a command, e.g. args: plan dns/",
    );
    assert_eq!(ran, expected);

    let ran = step.run("plan dns/", "0 or 2", "0", &[]).await;
    let expected = failed(
        1,
        "",
        "allowed-exit-codes must be a comma-separated list of numbers like 0,2; got '0 or 2'",
    );
    assert_eq!(ran, expected);
    assert_eq!(step.output(), "");
}

/// With `reviewed-plans`, the plans reviewed-plans.sh found become one `--reviewed FILE`
/// each (paths with spaces kept whole); when a person allowed an unreviewed apply, `--yes`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reviewed_plans_become_one_reviewed_flag_each() {
    let step = Step::new();
    let plans = "reviewed/21/plan.json\nreviewed/my pr/plan.json\n";
    let extra = [
        ("DNSCRON_REVIEWED_PLANS", plans),
        ("DNSCRON_UNREVIEWED", "false"),
    ];
    let ran = step.run("apply dns/", "0", "0", &extra).await;
    let expected = Ran {
        status: 0,
        stdout: "stub dnscron: apply dns/ --reviewed reviewed/21/plan.json --reviewed reviewed/my pr/plan.json\n".to_string(),
        stderr: String::new(),
    };
    assert_eq!(ran, expected);

    let extra = [
        ("DNSCRON_REVIEWED_PLANS", ""),
        ("DNSCRON_UNREVIEWED", "true"),
    ];
    let ran = step.run("apply dns/", "0", "0", &extra).await;
    let expected = Ran {
        status: 0,
        stdout: "stub dnscron: apply dns/ --yes\n".to_string(),
        stderr: String::new(),
    };
    assert_eq!(ran, expected);
}

/// The last successful apply's commit (reviewed-plans.sh's `base`) becomes `--changed-since`
/// beside the reviewed plans; without reviewed plans (an unreviewed run) it is not passed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_last_applied_commit_becomes_changed_since_beside_reviewed_plans() {
    let step = Step::new();
    let extra = [
        ("DNSCRON_REVIEWED_PLANS", "reviewed/21/plan.json\n"),
        ("DNSCRON_UNREVIEWED", "false"),
        ("DNSCRON_BASE", "e20e20e2"),
    ];
    let ran = step.run("apply dns/", "0", "0", &extra).await;
    let expected = Ran {
        status: 0,
        stdout:
            "stub dnscron: apply dns/ --reviewed reviewed/21/plan.json --changed-since e20e20e2\n"
                .to_string(),
        stderr: String::new(),
    };
    assert_eq!(ran, expected);

    let extra = [
        ("DNSCRON_REVIEWED_PLANS", ""),
        ("DNSCRON_UNREVIEWED", "true"),
        ("DNSCRON_BASE", "e20e20e2"),
    ];
    let ran = step.run("apply dns/", "0", "0", &extra).await;
    let expected = Ran {
        status: 0,
        stdout: "stub dnscron: apply dns/ --yes\n".to_string(),
        stderr: String::new(),
    };
    assert_eq!(ran, expected);
}

/// action.yml runs dnscron only when reviewed-plans.sh found this commit still current (or
/// reviewed-plans is off), evaluated as Actions would (the recipes' expression subset).
#[test]
fn the_run_step_is_skipped_when_main_moved_on() {
    use crate::ci_recipes::expr::Contexts;
    let text = std::fs::read_to_string(crate::common::repo_root().join("action.yml")).unwrap();
    let action: serde_json::Value = serde_saphyr::from_str(&text).unwrap();
    let steps = action["runs"]["steps"].as_array().unwrap();
    let run_if = steps.iter().find(|s| s["id"] == "run").unwrap()["if"]
        .as_str()
        .unwrap();
    let runs = |current: Option<&str>| {
        let outputs = match current {
            Some(c) => serde_json::json!({"reviewed": {"outputs": {"current": c}}}),
            None => serde_json::json!({}),
        };
        let root = serde_json::json!({"inputs": {"args": "apply dns/"}, "steps": outputs});
        Contexts {
            root,
            failed: false,
        }
        .condition(Some(run_if))
    };
    assert_eq!(
        [runs(None), runs(Some("true")), runs(Some("false"))],
        [true, true, false]
    );
}
