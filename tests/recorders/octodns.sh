#!/usr/bin/env bash
# Records octoDNS's answers for the `import --from octodns` tests: for each case of
# tests/it/import/octodns/ (a folder with a config.yaml), octoDNS 1.22's own YamlProvider and
# planner (`Zone.changes`) run by plan.py, written next to the case as CASE/octodns.json.
# `cargo test` reads the recordings; `cargo test --features live-tools` runs plan.py again and
# fails when a recording is stale.
#
# OCTODNS_PYTHON: a Python with octodns==1.22.0 installed (.ci/run makes one under
# target/ci-tools/octodns-1.22.0). Called by tests/record-answers.sh, or on its own.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../it/import/octodns"
python=${OCTODNS_PYTHON:?set OCTODNS_PYTHON to a Python with octodns==1.22.0 installed}
version=$("$python" -c 'import octodns; print(octodns.__version__)')
if [[ $version != 1.22.0 ]]; then
  echo "octodns.sh: $python has octoDNS $version; the recordings are octoDNS 1.22.0's" >&2
  exit 1
fi
for config in */config.yaml; do
  case=${config%/config.yaml}
  "$python" plan.py "$case" >"$case/octodns.json.new"
  mv "$case/octodns.json.new" "$case/octodns.json"
  echo "recorded tests/it/import/octodns/$case/octodns.json"
done
