#!/usr/bin/env bash
# Runs the installed dnscron with the action's `args`, keeps its stdout in a file for later steps
# (a Markdown plan for a comment, a JSON report), and fails the step unless the exit code is one
# the workflow allowed (e.g. 0,2 for drift detection with --detailed-exitcode).
#
# Environment: DNSCRON_BIN, DNSCRON_ARGS, DNSCRON_PLAN_FILE, DNSCRON_ALLOWED_EXIT_CODES
# (comma-separated, default 0), DNSCRON_STDOUT_FILE (default: a new file in RUNNER_TEMP),
# DNSCRON_REVIEWED_PLANS (plan files, one a line: one `--reviewed FILE` each),
# DNSCRON_MASS_PLANS (those approved for mass changes: one `--allow-mass-changes-in FILE` each) and
# DNSCRON_UNREVIEWED (`true`: `--yes`) and DNSCRON_BASE (the last successful apply's commit:
# `--changed-since BASE` beside the reviewed plans), all from reviewed-plans.sh; GITHUB_OUTPUT.
set -uo pipefail

fail() {
  echo "::error title=dnscron::$*" >&2
  exit 1
}

# Whitespace-separated words, taken literally: no quotes, globs or $expansion, so a value an
# attacker controls (a branch name in `args`) cannot run anything.
set -f
# shellcheck disable=SC2206
argv=(${DNSCRON_ARGS:-})
set +f
((${#argv[@]})) || fail "the action's args input is empty; name a command, e.g. args: plan dns/"

if [[ -n ${DNSCRON_PLAN_FILE:-} ]]; then
  argv+=(--out "$DNSCRON_PLAN_FILE")
  [[ -z ${GITHUB_OUTPUT:-} ]] || echo "plan-file=$DNSCRON_PLAN_FILE" >>"$GITHUB_OUTPUT"
fi

while IFS= read -r plan; do
  [[ -z $plan ]] || argv+=(--reviewed "$plan")
done <<<"${DNSCRON_REVIEWED_PLANS:-}"
# The plans this job approved for mass changes (from the pull requests' labels, read now).
while IFS= read -r plan; do
  [[ -z $plan ]] || argv+=(--allow-mass-changes-in "$plan")
done <<<"${DNSCRON_MASS_PLANS:-}"
[[ ${DNSCRON_UNREVIEWED:-} != true ]] || argv+=(--yes)
# What changed since the last successful apply is read too, so a change merged without review
# since then is refused; a base is only reported beside reviewed plans.
[[ -z ${DNSCRON_BASE:-} || -z ${DNSCRON_REVIEWED_PLANS:-} ]] || argv+=(--changed-since "$DNSCRON_BASE")

allowed=${DNSCRON_ALLOWED_EXIT_CODES:-0}
allowed=${allowed// /}
[[ $allowed =~ ^[0-9]+(,[0-9]+)*$ ]] ||
  fail "allowed-exit-codes must be a comma-separated list of numbers like 0,2; got '${DNSCRON_ALLOWED_EXIT_CODES:-}'"

out=${DNSCRON_STDOUT_FILE:-}
[[ -n $out ]] || out=$(mktemp "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/dnscron-stdout.XXXXXX") ||
  fail "could not create a file for dnscron's stdout in ${RUNNER_TEMP:-${TMPDIR:-/tmp}}"
"${DNSCRON_BIN:-dnscron}" "${argv[@]}" | tee "$out"
code=${PIPESTATUS[0]}

if [[ -n ${GITHUB_OUTPUT:-} ]]; then
  {
    echo "exit-code=$code"
    echo "stdout-file=$out"
  } >>"$GITHUB_OUTPUT"
fi

if [[ ",$allowed," != *",$code,"* ]]; then
  echo "::error title=dnscron::dnscron exited $code (allowed: $allowed); its output is above" >&2
  # A 0 that was not allowed (allowed-exit-codes: 2) still fails the step.
  exit $((code == 0 ? 1 : code))
fi
