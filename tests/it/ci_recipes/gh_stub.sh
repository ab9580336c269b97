#!/usr/bin/env bash
# Stand-in for the GitHub CLI in the recipe tests (tests/it/ci_recipes/): only the calls the
# recipes make, against files under $GH_STUB_STATE, each call logged to $GH_STUB_STATE/calls.log.
#   pulls/N/K            comment K of pull request N (`pr comment --edit-last --create-if-none`)
#   commits/SHA.json     what `api repos/R/commits/SHA/pulls` answers (default: [])
#   main.log             main's commits, oldest first, `SHA FILE...` a line: `api
#                        repos/R/branches/main` (the last), `api repos/R/compare/A...B`
#   pulls-files/N        what `api repos/R/pulls/N/files` answers
#   runs/ID.json         the workflow runs (`run list`, newest first; `run view ID`)
#   issues/N/{title,labels,state,body,comments}
#   prs/N/{title,head,base,state,body,comments}   pull requests `gh pr create` opened
#   labels/N             pull request N's labels, one a line (`api repos/R/issues/N`)
#   timeline/N.json      pull request N's timeline events (`api repos/R/issues/N/timeline`)
#   $GH_STUB_ARTIFACTS/run-ID/NAME/   what `run download ID --name NAME` finds (a download
#                        without a run id is refused: it would take any run's artifact)
# Any other call exits 2, so a recipe can't depend on behaviour this stub doesn't have.
set -euo pipefail
state=$GH_STUB_STATE
{
  printf 'gh'
  for a in "$@"; do
    if [[ $a =~ ^[A-Za-z0-9_./:=@#,-]+$ ]]; then printf ' %s' "$a"; else printf " '%s'" "$a"; fi
  done
  echo
} >> "$state/calls.log"

if [ "$1" = api ]; then group=api; target=$2; shift 2; else group="$1 $2"; shift 2; fi
declare -A opt=()
pos=()
while [ $# -gt 0 ]; do
  case "$1" in
    --edit-last | --create-if-none | --force | --paginate) opt[$1]=1; shift ;;
    --*) opt[$1]=$2; shift 2 ;;
    *) pos+=("$1"); shift ;;
  esac
done
filter() { if [ -n "${opt[--jq]:-}" ]; then jq -r "${opt[--jq]}"; else cat; fi; }
last_in() { ls "$1" | sort -n | tail -n 1; }

case "$group" in
  api)
    if [[ $target =~ ^repos/[^/]+/[^/]+/commits/([0-9a-f]+)/pulls$ ]]; then
      cat "$state/commits/${BASH_REMATCH[1]}.json" 2> /dev/null || echo '[]'
    elif [[ $target =~ ^repos/[^/]+/[^/]+/branches/main$ ]]; then
      tail -n 1 "$state/main.log" | jq -R '{commit: {sha: split(" ")[0]}}'
    elif [[ $target =~ ^repos/[^/]+/[^/]+/compare/([0-9a-f]+)\.\.\.([0-9a-f]+)$ ]]; then
      from=$(grep -n "^${BASH_REMATCH[1]} " "$state/main.log" | cut -d: -f1)
      to=$(grep -n "^${BASH_REMATCH[2]} " "$state/main.log" | cut -d: -f1)
      if [ -z "$from" ] || [ -z "$to" ] || [ "$from" -gt "$to" ]; then
        echo '{"status": "diverged", "commits": [], "files": []}'
      elif [ "$from" = "$to" ]; then
        echo '{"status": "identical", "commits": [], "files": []}'
      else
        sed -n "$((from + 1)),${to}p" "$state/main.log" | jq -R -s '
          split("\n") | map(select(length > 0) | split(" ")) |
          {status: "ahead", commits: map({sha: .[0]}),
           files: (map(.[1:][]) | unique | map({filename: .}))}'
      fi
    elif [[ $target =~ ^repos/[^/]+/[^/]+/issues/([0-9]+)$ ]]; then
      jq -R -s '{labels: (split("\n") | map(select(length > 0) | {name: .}))}' \
        "$state/labels/${BASH_REMATCH[1]}" 2> /dev/null || echo '{"labels": []}'
    elif [[ $target =~ ^repos/[^/]+/[^/]+/issues/([0-9]+)/timeline$ ]]; then
      cat "$state/timeline/${BASH_REMATCH[1]}.json" 2> /dev/null || echo '[]'
    elif [[ $target =~ ^repos/[^/]+/[^/]+/pulls/([0-9]+)/files$ ]]; then
      cat "$state/pulls-files/${BASH_REMATCH[1]}" 2> /dev/null || echo '[]'
    else
      echo "gh stub: no stand-in for api $target" >&2; exit 2
    fi | filter ;;
  "pr comment")
    dir=$state/pulls/${pos[0]}; mkdir -p "$dir"
    last=$(last_in "$dir")
    if [ -z "${opt[--edit-last]:-}" ] || [ -z "${opt[--create-if-none]:-}" ]; then
      echo "gh stub: pr comment needs --edit-last --create-if-none" >&2; exit 2
    fi
    cp "${opt[--body-file]}" "$dir/${last:-1}" ;;
  "run download")
    if [ -z "${pos[0]:-}" ]; then echo "gh stub: run download needs a run id" >&2; exit 2; fi
    src=$GH_STUB_ARTIFACTS/run-${pos[0]}/${opt[--name]}
    if [ ! -d "$src" ]; then echo "no valid artifacts found to download" >&2; exit 1; fi
    mkdir -p "${opt[--dir]:-.}"; cp -R "$src/." "${opt[--dir]:-.}/" ;;
  "run list")
    mkdir -p "$state/runs"
    for f in "$state"/runs/*.json; do [ ! -e "$f" ] || cat "$f"; done |
      jq -s --arg wf "${opt[--workflow]}" --arg branch "${opt[--branch]:-}" --arg st "${opt[--status]:-}" \
        --arg commit "${opt[--commit]:-}" --arg event "${opt[--event]:-}" --argjson limit "${opt[--limit]}" '
        map(select(.workflowName == $wf and ($branch == "" or .headBranch == $branch)
          and ($st == "" or .conclusion == $st) and ($commit == "" or .headSha == $commit)
          and ($event == "" or .event == $event)))
        | sort_by(-.databaseId) | .[:$limit] | map(del(.jobs))' | filter ;;
  "run view") filter < "$state/runs/${pos[0]}.json" ;;
  "issue list")
    mkdir -p "$state/issues"
    for n in $(ls "$state/issues" | sort -rn); do
      d=$state/issues/$n
      if [ "$(cat "$d/state")" = "${opt[--state]}" ] && grep -qxF "${opt[--label]}" "$d/labels"; then echo "$n"; fi
    done | head -n "${opt[--limit]}" | jq -s '[.[] | {number: .}]' | filter ;;
  "issue view")
    jq -n --rawfile body "$state/issues/${pos[0]}/body" '{body: $body}' | filter ;;
  "issue create")
    mkdir -p "$state/issues"; last=$(last_in "$state/issues"); n=$((${last:-0} + 1)); d=$state/issues/$n
    mkdir "$d"; echo "${opt[--title]}" > "$d/title"; echo "${opt[--label]}" > "$d/labels"
    echo open > "$d/state"; cp "${opt[--body-file]}" "$d/body"; : > "$d/comments"
    echo "https://github.com/$GITHUB_REPOSITORY/issues/$n" ;;
  "issue edit") cp "${opt[--body-file]}" "$state/issues/${pos[0]}/body" ;;
  "issue comment") echo "${opt[--body]}" >> "$state/issues/${pos[0]}/comments" ;;
  "issue close")
    echo closed > "$state/issues/${pos[0]}/state"
    if [ -n "${opt[--comment]:-}" ]; then echo "${opt[--comment]}" >> "$state/issues/${pos[0]}/comments"; fi ;;
  "label create") ;;
  "pr list")
    mkdir -p "$state/prs"
    for n in $(ls "$state/prs" | sort -rn); do
      d=$state/prs/$n
      if [ "$(cat "$d/state")" = "${opt[--state]}" ] && [ "$(cat "$d/head")" = "${opt[--head]}" ]; then echo "$n"; fi
    done | head -n "${opt[--limit]}" | jq -s '[.[] | {number: .}]' | filter ;;
  "pr create")
    mkdir -p "$state/prs"; last=$(last_in "$state/prs"); n=$((${last:-0} + 1)); d=$state/prs/$n
    mkdir "$d"; echo "${opt[--title]}" > "$d/title"; echo "${opt[--head]}" > "$d/head"
    echo "${opt[--base]}" > "$d/base"; echo open > "$d/state"; cp "${opt[--body-file]}" "$d/body"
    : > "$d/comments"; echo "https://github.com/$GITHUB_REPOSITORY/pull/$n" ;;
  "pr view")
    jq -n --rawfile body "$state/prs/${pos[0]}/body" '{body: $body}' | filter ;;
  "pr edit") cp "${opt[--body-file]}" "$state/prs/${pos[0]}/body" ;;
  "pr close")
    echo closed > "$state/prs/${pos[0]}/state"
    if [ -n "${opt[--comment]:-}" ]; then echo "${opt[--comment]}" >> "$state/prs/${pos[0]}/comments"; fi ;;
  *) echo "gh stub: no stand-in for gh $group" >&2; exit 2 ;;
esac
