#!/usr/bin/env bash
# The release archives (docs/release.md): what ships beside the binary, and the archive itself.
# Used by .github/workflows/release.yml; tests/it/release_archive.rs runs both steps with the
# binary cargo test built and then README's "Try it by hand" in the unpacked archive.
#
#   archive.sh extras DNSCRON OUT
#       Into OUT: the man page (man/dnscron.1) and the completions (completions/) that the
#       binary DNSCRON generates, and the examples folder. Run once per release: the files
#       are the same for every target, and one binary the runner can run makes them.
#   archive.sh pack BINARY EXTRAS STEM DIST
#       One folder STEM (a name: BINARY, README.md and EXTRAS' files) packed into
#       DIST/STEM.tar.gz, or DIST/STEM.zip for a BINARY ending in .exe, with
#       DIST/<archive>.sha256 beside it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

usage() {
  echo "usage: $0 extras DNSCRON OUT | pack BINARY EXTRAS STEM DIST" >&2
  exit 2
}

extras() {
  local dnscron=$1 out=$2 shell
  mkdir -p "$out/man" "$out/completions"
  "$dnscron" man >"$out/man/dnscron.1"
  for shell in bash zsh fish powershell elvish; do
    "$dnscron" completions "$shell" >"$out/completions/$(completion_file "$shell")"
  done
  cp -R examples "$out/examples"
}

# Where each shell looks for a completion script by name.
completion_file() {
  case $1 in
    bash) echo dnscron.bash ;;
    zsh) echo _dnscron ;;
    fish) echo dnscron.fish ;;
    powershell) echo _dnscron.ps1 ;;
    elvish) echo dnscron.elv ;;
    *) usage ;;
  esac
}

pack() {
  local binary=$1 extras=$2 stem=$3 dist=$4 archive
  [[ $stem != */* ]] || usage
  mkdir -p "$dist/$stem"
  cp README.md "$binary" "$dist/$stem/"
  cp -R "$extras"/. "$dist/$stem/"
  (
    cd "$dist"
    if [[ $binary == *.exe ]]; then
      archive=$stem.zip
      7z a -tzip "$archive" "$stem" >/dev/null
    else
      archive=$stem.tar.gz
      tar -czf "$archive" "$stem"
    fi
    rm -r "$stem"
    if command -v sha256sum >/dev/null; then
      sha256sum "$archive"
    else
      shasum -a 256 "$archive"
    fi >"$archive.sha256"
    cat "$archive.sha256"
  )
}

case ${1:-} in
  extras) (($# == 3)) || usage; extras "$2" "$3" ;;
  pack) (($# == 5)) || usage; pack "$2" "$3" "$4" "$5" ;;
  *) usage ;;
esac
