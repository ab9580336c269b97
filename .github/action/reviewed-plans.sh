#!/usr/bin/env bash
# Finds the reviewed plans an apply on main must be bound to (docs/ci.md, "Merge"), with the
# GitHub CLI (GH_TOKEN: a token with actions: read, pull-requests: read, contents: read).
#
# 1. Only main's newest commit is applied: when main moved on since this run's commit and the
#    move touched DNSCRON_DIR, this run (e.g. a re-run of an old merge's job) would roll the
#    newer merge back. It then sends nothing: a notice names main's head and the newest run of
#    this workflow, `current=false`, exit 0. (GitHub's compare lists at most 300 files: a move
#    of 300 files or more counts as touching DNSCRON_DIR.)
# 2. The plans of every pull request merged since the last successful apply (the newest run of
#    this workflow on main whose step DNSCRON_APPLY_STEP succeeded): GitHub cancels a pending
#    run when a newer one is queued, so the newest run must apply every merge it stands for.
#    Before the first successful apply, that is every merge since this workflow's oldest run on
#    the branch (a first run that failed or was cancelled applied nothing of its merge).
#    Each pull request that changed DNSCRON_DIR must have its plan artifact
#    (dnscron-plan-<number>-<head commit>), downloaded by run id from the newest successful run
#    of the plan workflow (DNSCRON_PLAN_WORKFLOW) for its merged head commit, else the job fails
#    closed (exit 1) naming it. Nothing in the file approves anything: a pull_request run uses
#    the pull request's own copy of the plan workflow, so the file is only the list of changes
#    that were shown for review, which `apply --reviewed` checks against the files it plans.
# 3. Mass changes: this job decides, from GitHub's records read now, never from the plan file.
#    A pull request's plan is approved for mass changes (output `mass`, one
#    `--allow-mass-changes-in FILE` each) when the label DNSCRON_MASS_LABEL is on it now and was
#    added after its last push. The time of the last push is GitHub's own, not the commit's
#    (committer dates are the author's to write): the creation of the first run of the plan
#    workflow for the head commit (a push starts one; a label, a re-run, a later event of the
#    same commit start later ones), or the latest force push in the pull request's timeline
#    (`head_ref_force_pushed`: a head moved back to a commit that ran before), whichever is
#    later. The label's time is the latest `labeled` event of it in the timeline.
# DNSCRON_ALLOW_UNREVIEWED=true (a person's manual run) skips 2: `unreviewed=true`, a warning.
#
# Environment: GITHUB_REPOSITORY, GITHUB_SHA, GITHUB_WORKFLOW_REF, GITHUB_RUN_ID, GITHUB_OUTPUT,
# GITHUB_STEP_SUMMARY (optional); DNSCRON_BRANCH (main), DNSCRON_DIR (dns/),
# DNSCRON_REVIEWED_DIR (reviewed), DNSCRON_APPLY_STEP (Apply), DNSCRON_ALLOW_UNREVIEWED,
# DNSCRON_PLAN_WORKFLOW (dnscron-plan.yml), DNSCRON_MASS_LABEL (dnscron:allow-mass-changes).
# Outputs: current=true|false; plans=<one plan file a line>; mass=<the plan files approved for
# mass changes, one a line>; unreviewed=true|false; base=<the commit of the last successful
# apply>, empty when there was none yet (the apply then passes no `--changed-since`: the
# reviewed plans' scopes alone decide what is read).
set -euo pipefail

repo=$GITHUB_REPOSITORY
sha=$GITHUB_SHA
branch=${DNSCRON_BRANCH:-main}
dir=${DNSCRON_DIR:-dns/}
dir=${dir%/}/
out=${DNSCRON_REVIEWED_DIR:-reviewed}
apply_step=${DNSCRON_APPLY_STEP:-Apply}
plan_workflow=${DNSCRON_PLAN_WORKFLOW:-dnscron-plan.yml}
label=${DNSCRON_MASS_LABEL:-dnscron:allow-mass-changes}
workflow=${GITHUB_WORKFLOW_REF%%@*}
workflow=${workflow##*/}

output() { echo "$1" >> "$GITHUB_OUTPUT"; }
summary() { [ -z "${GITHUB_STEP_SUMMARY:-}" ] || echo "$1" >> "$GITHUB_STEP_SUMMARY"; }

# 1. Is this run's commit still what main holds in $dir?
head=$(gh api "repos/$repo/branches/$branch" --jq .commit.sha)
if [ "$head" != "$sha" ]; then
  moved=$(gh api "repos/$repo/compare/$sha...$head" \
    --jq "if .status != \"ahead\" then \"diverged\" elif (.files | length) >= 300 then \"300 files or more, not all listed\" else [.files[]? | select(.filename | startswith(\"$dir\"))] | length end")
  if [ "$moved" != 0 ]; then
    newest=$(gh run list --workflow "$workflow" --branch "$branch" --limit 2 --json databaseId,url,headSha,status \
      --jq "map(select(.databaseId != ${GITHUB_RUN_ID:-0})) | .[0] // empty | \"\\(.url) (commit \\(.headSha), \\(.status))\"")
    msg="nothing applied: this run is for $sha, but $branch is at $head, which changed $dir since; the newest run of this workflow applies it: ${newest:-none yet}. To apply again, re-run the newest run, not this one."
    echo "::notice title=dnscron apply skipped::$msg"
    summary "### dnscron apply: skipped, $branch moved on"
    summary ""
    summary "$msg"
    output current=false
    exit 0
  fi
fi
output current=true
if [ "${DNSCRON_ALLOW_UNREVIEWED:-false}" = true ]; then
  echo "::warning::applying $dir of $branch at $sha unreviewed (allow_unreviewed): no reviewed plan bounds it"
  output unreviewed=true
  exit 0
fi

# 2. The commit of the last successful apply: runs newest first (a re-run keeps its place).
base=
for run in $(gh run list --workflow "$workflow" --branch "$branch" --status success --limit 50 \
  --json databaseId --jq '.[].databaseId'); do
  base=$(gh run view "$run" --json headSha,jobs \
    --jq "if any(.jobs[].steps[]; .name == \"$apply_step\" and .conclusion == \"success\") then .headSha else empty end")
  [ -z "$base" ] || break
done
output "base=$base"

commits=()
if [ -n "$base" ]; then
  mapfile -t commits < <(gh api "repos/$repo/compare/$base...$sha" --paginate --jq '.commits[].sha')
else
  # No successful apply yet: every merge since this workflow's oldest run on $branch counts (a
  # run cancelled while pending, or one that failed, applied nothing of its merge; left out,
  # its reviewed change would never be applied).
  oldest=$(gh run list --workflow "$workflow" --branch "$branch" --limit 100 --json databaseId,headSha \
    --jq "map(select(.databaseId != ${GITHUB_RUN_ID:-0})) | last // empty | .headSha")
  if [ -n "$oldest" ] && [ "$oldest" != "$sha" ]; then
    commits=("$oldest")
    mapfile -t -O 1 commits < <(gh api "repos/$repo/compare/$oldest...$sha" --paginate --jq '.commits[].sha')
  fi
fi
if [ ${#commits[@]} = 0 ] || [ "${commits[${#commits[@]} - 1]}" != "$sha" ]; then commits+=("$sha"); fi

# Whether the label approves pull request $1's mass changes: on it now, and added after its
# last push, which is the later of $2 (the first plan run's creation for its head commit) and
# its latest force push. Says why on stdout either way (a notice or a warning).
mass_approved() {
  local labels events labelled forced pushed
  labels=$(gh api "repos/$repo/issues/$1" --jq '.labels[].name')
  grep -qxF -- "$label" <<< "$labels" || return 1
  events=$(gh api "repos/$repo/issues/$1/timeline" --paginate \
    --jq ".[] | select((.event == \"labeled\" and .label.name == \"$label\") or .event == \"head_ref_force_pushed\") | \"\(.event) \(.created_at)\"")
  labelled=$(awk '$1 == "labeled" { print $2 }' <<< "$events" | sort | tail -n 1)
  forced=$(awk '$1 == "head_ref_force_pushed" { print $2 }' <<< "$events" | sort | tail -n 1)
  pushed=$(printf '%s\n' "$2" "$forced" | sort | tail -n 1)
  # ISO 8601 times in UTC (GitHub's `…Z`) compare as text.
  if [ -n "$labelled" ] && [ -n "$pushed" ] && [[ $labelled > $pushed ]]; then
    echo "::notice title=dnscron mass changes approved::pull request #$1: the label $label was added at $labelled, after its last push at $pushed: its changes may go past the safety limits"
    return 0
  fi
  echo "::warning title=dnscron mass changes not approved::pull request #$1 carries the label $label, but it was added at ${labelled:-an unknown time}, not after its last push at ${pushed:-an unknown time}: a label approves what was pushed before it, so its changes must stay within the safety limits (remove the label and add it again after the last push)"
  return 1
}

plans=()
mass=()
missing=()
seen=" "
for commit in "${commits[@]}"; do
  pr=$(gh api "repos/$repo/commits/$commit/pulls" \
    --jq "map(select(.merge_commit_sha == \"$commit\")) | .[0] // empty | \"\(.number) \(.head.sha) \(.head.ref)\"")
  [ -n "$pr" ] || continue
  # shellcheck disable=SC2086 # "NUMBER HEAD REF": split on purpose (a ref has no spaces)
  set -- $pr
  case $seen in *" $1 "*) continue ;; esac
  seen="$seen$1 "
  changed=$(gh api "repos/$repo/pulls/$1/files" --paginate \
    --jq ".[] | select(.filename | startswith(\"$dir\")) | .filename")
  [ -n "$changed" ] || continue
  # The plan workflow's runs for the merged head commit on the pull request's branch, oldest
  # first: the first one's creation is the push; the newest successful one holds the plan.
  runs=$(gh run list --workflow "$plan_workflow" --commit "$2" --branch "$3" --event pull_request \
    --limit 100 --json databaseId,createdAt,conclusion \
    --jq 'sort_by(.createdAt, .databaseId) | .[] | "\(.databaseId) \(.createdAt) \(.conclusion)"')
  first=$(awk 'NR == 1 { print $2 }' <<< "$runs")
  run=$(awk '$3 == "success" { id = $1 } END { print id }' <<< "$runs")
  if [ -n "$run" ] && gh run download "$run" --name "dnscron-plan-$1-$2" --dir "$out/$1" > /dev/null; then
    plans+=("$out/$1/plan.json")
    if mass_approved "$1" "$first"; then mass+=("$out/$1/plan.json"); fi
  else
    missing+=("#$1 at $2")
  fi
done

since="since the last successful apply ${base:+of $base}"
since=${since% }
[ -n "$base" ] || since="$since (none yet)"
if [ ${#missing[@]} = 0 ] && [ ${#plans[@]} -gt 0 ]; then
  echo "reviewed plans of the pull requests merged $since: ${plans[*]}"
  { echo "plans<<DNSCRON_PLANS"; printf '%s\n' "${plans[@]}"; echo DNSCRON_PLANS; } >> "$GITHUB_OUTPUT"
  { echo "mass<<DNSCRON_PLANS"; [ ${#mass[@]} = 0 ] || printf '%s\n' "${mass[@]}"; echo DNSCRON_PLANS; } >> "$GITHUB_OUTPUT"
  output unreviewed=false
  exit 0
fi
if [ ${#missing[@]} -gt 0 ]; then
  printf -v list '%s, ' "${missing[@]}"
  why="no saved plan in a successful run of $plan_workflow for pull request ${list%, }, merged $since: re-run its dnscron plan check, then re-run the newest run of this workflow"
else
  why="no pull request that changed $dir was merged $since, so no plan was reviewed"
fi
echo "::error::$why; nothing was applied (to apply $branch as it is, run this workflow by hand with allow_unreviewed)"
exit 1
