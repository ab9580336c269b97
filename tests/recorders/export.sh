#!/usr/bin/env bash
# Records BIND's and octoDNS's own reading of `dnscron export` (tests/it/export/): the account
# in tests/it/export/account/ is exported with both `--to` values into OUT_DIR/bind and
# OUT_DIR/octodns (kept as the tools read them, so `cargo test` can tell when the export no
# longer writes these files), then named-compilezone prints each zone file in its canonical
# text form (ZONE.named-compilezone.txt) and octoDNS 1.22's YamlProvider loads the
# configuration (octodns.json, by octodns_export.py). `cargo test` reads the recordings;
# `cargo test --features live-tools` runs this script again and fails when one is stale.
#
# Usage: tests/recorders/export.sh [OUT_DIR]   (default: tests/it/export/recorded)
# Needs: named-compilezone (Debian: bind9-utils); OCTODNS_PYTHON, a Python with
# octodns==1.22.0 (.ci/run makes one under target/ci-tools/octodns-1.22.0); DNSCRON, the
# binary (default: target/debug/dnscron, built when missing).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${1:-$root/tests/it/export/recorded}
python=${OCTODNS_PYTHON:?set OCTODNS_PYTHON to a Python with octodns==1.22.0 installed}
version=$("$python" -c 'import octodns; print(octodns.__version__)')
if [[ $version != 1.22.0 ]]; then
  echo "export.sh: $python has octoDNS $version; the recordings are octoDNS 1.22.0's" >&2
  exit 1
fi
dnscron=${DNSCRON:-$root/target/debug/dnscron}
if [[ ! -x $dnscron ]]; then
  (cd "$root" && cargo build --quiet)
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -rf "$out/bind" "$out/octodns"

# What is not exported (octoDNS's refused TXT values) exits 1 by design: the files are written.
"$dnscron" export --to bind --out "$out/bind" "$root/tests/it/export/account" >/dev/null 2>&1
"$dnscron" export --to octodns --out "$out/octodns" "$root/tests/it/export/account" \
  >/dev/null 2>&1 || [[ $? == 1 ]]

# named loads a zone only with an SOA and apex NS: a file without them (its domain on the
# hosting service's nameservers) is read from a copy with the harness's, which the tests drop.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for file in "$out"/bind/*.zone; do
  zone=$(basename "$file" .zone)
  cp "$file" "$work/$zone.zone"
  if ! grep -q '^[^;]* IN SOA ' "$file"; then
    printf '%s\n' "$zone. 3600 IN SOA ns.harness.invalid. hostmaster.harness.invalid. 1 3600 600 1209600 300" \
      "$zone. 3600 IN NS ns.harness.invalid." >>"$work/$zone.zone"
  fi
  named-compilezone -q -f text -F text -o - "$zone" "$work/$zone.zone" \
    >"$out/bind/$zone.named-compilezone.txt"
done
(cd "$out/octodns" && "$python" "$root/tests/recorders/octodns_export.py") >"$work/octodns.json"
mv "$work/octodns.json" "$out/octodns/octodns.json"
echo "recorded $out"
