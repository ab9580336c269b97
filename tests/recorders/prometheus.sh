#!/bin/sh
# Records what promtool and a Prometheus server answer about the controller's kit and metrics:
# the recordings the default tests read (tests/it/controller_manifests/recorded/,
# tests/it/controller/recorded/), so that `cargo test` needs neither tool. It runs the same
# tests with the cargo feature `live-tools`, which ask the real tools, and
# DNSCRON_RECORD_ANSWERS=1, which makes them write what they were told instead of comparing.
# Needs `promtool` and `prometheus` on PATH (the Debian package prometheus).
#
# Without DNSCRON_RECORD_ANSWERS, `cargo test --features live-tools` is the live comparison:
# it fails where a recording is stale.
set -eu
cd "$(dirname "$0")/../.."
for tool in promtool prometheus; do
  command -v "$tool" >/dev/null || { echo "$0: $tool is not on PATH" >&2; exit 1; }
done
DNSCRON_RECORD_ANSWERS=1 cargo test --features live-tools --test it -- \
  controller_manifests::monitoring::live:: controller::prometheus::live::
