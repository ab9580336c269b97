#!/bin/sh
# BIND's own reading of the `import --from bind` corpus: `named-compilezone` prints each zone
# file of tests/it/import/bind/ in its canonical text form, recorded next to it as
# NAME.named-compilezone.txt. The default tests seed the emulator from these recordings; the
# live test (cargo feature `live-tools`) runs this script into a temporary folder and fails when
# a recording differs from what BIND prints today.
#
# Usage: tests/recorders/bind.sh [OUT_DIR]   (OUT_DIR: where the recordings go; default: the corpus)
# Needs: named-compilezone (Debian: bind9-utils).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
corpus=$root/tests/it/import/bind
out=${1:-$corpus}
mkdir -p "$out"
out=$(cd "$out" && pwd)

# BIND refuses a zone without apex NS (a Cloudflare export has none): each file is read from a
# copy with one added, which the tests drop as they drop every apex NS.
zone=example.com
harness_ns="$zone. 3600 IN NS ns.harness.invalid."

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The whole corpus: `$INCLUDE` paths are relative to it.
cp -R "$corpus/." "$work/"
for file in "$corpus"/*.zone; do
  name=$(basename "$file" .zone)
  { cat "$file"; printf '\n%s\n' "$harness_ns"; } >"$work/.bind-$name.zone"
  (cd "$work" && named-compilezone -q -f text -F text -o - "$zone" ".bind-$name.zone") \
    >"$out/$name.named-compilezone.txt"
done
