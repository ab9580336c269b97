#!/bin/sh
# Records the other tools' answers the default tests read: every tests/recorders/*.sh runs the
# real tool (BIND's named-compilezone, octoDNS, Prometheus) on its tests' inputs and writes its
# answers next to them, to be reviewed and committed with the inputs. `cargo test --workspace`
# reads only the recordings, so it needs nothing but Rust; `cargo test --workspace --features
# live-tools` runs the tools and fails when a recording is stale (.ci/run does both).
#
# Usage: tests/record-answers.sh   (each recorder says what it needs installed)
set -eu
cd "$(dirname "$0")/.."
for recorder in tests/recorders/*.sh; do
  echo "recording: $recorder" >&2
  "./$recorder"
done
