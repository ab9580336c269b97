#!/usr/bin/env bash
# Installs the dnscron release binary for this runner: picks the archive for the OS and
# architecture, downloads it and the release's sums, refuses it unless its sha256 matches, and
# puts `dnscron` in DNSCRON_INSTALL_DIR. Used by action.yml; runs anywhere bash runs.
#
# Environment (all but DNSCRON_VERSION have defaults):
#   DNSCRON_VERSION      release to install, e.g. 0.1.0 (no leading v)
#   DNSCRON_BASE_URL     where releases live: $BASE/v$VERSION/<asset>
#                        (default https://github.com/dnscron/dnscron/releases/download)
#   DNSCRON_INSTALL_DIR  folder that receives the binary (default ~/.dnscron/bin)
#   RUNNER_OS, RUNNER_ARCH  set by GitHub Actions; `uname` decides when they are unset
#   GITHUB_OUTPUT, GITHUB_PATH  when set, the binary's path is written to the first and its
#                        folder appended to the second
set -euo pipefail

fail() {
  echo "::error title=dnscron install::$*" >&2
  exit 1
}

need_tools() {
  local missing=() tool
  for tool in "$@"; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
  done
  if ((${#missing[@]})); then
    fail "dnscron's installer needs ${missing[*]} on PATH; install it on the runner (or use the container image ghcr.io/dnscron/dnscron)"
  fi
}

# The Rust target triple of the archive built for this runner.
target_for() {
  local os=$1 arch=$2
  case "$os/$arch" in
    Linux/X64 | Linux/x86_64) echo x86_64-unknown-linux-musl ;;
    Linux/ARM64 | Linux/aarch64 | Linux/arm64) echo aarch64-unknown-linux-musl ;;
    macOS/X64 | macOS/x86_64 | Darwin/x86_64) echo x86_64-apple-darwin ;;
    macOS/ARM64 | macOS/arm64 | Darwin/arm64) echo aarch64-apple-darwin ;;
    Windows/X64 | Windows/x86_64) echo x86_64-pc-windows-msvc ;;
    *) return 1 ;;
  esac
}

# Plain http would let anyone on the path swap the archive and its sums together; only a
# server on this machine (the tests' fake release) may be reached without TLS.
check_base_url() {
  case "$1" in
    https://*) ;;
    http://127.0.0.1[:/]* | http://localhost[:/]* | http://\[::1\][:/]*) ;;
    *) fail "DNSCRON_BASE_URL must be an https:// URL (plain http only to 127.0.0.1 or localhost); got '$1'" ;;
  esac
}

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d' ' -f1
  else
    shasum -a 256 "$1" | cut -d' ' -f1
  fi
}

# The sum the release publishes for one asset (sha256sum format: "<hex>  <name>" or "<hex> *<name>").
published_sum() {
  local sums=$1 name=$2
  awk -v name="$name" '{ file = $2; sub(/^\*/, "", file); if (file == name) { print $1; exit } }' "$sums"
}

download() {
  curl --fail --silent --show-error --location --retry 3 --connect-timeout 20 \
    --proto '=https,http' --proto-redir '=https' --output "$2" "$1" ||
    fail "could not download $1 (curl exit $?); check that release v$DNSCRON_VERSION exists and has this asset"
}

main() {
  local version=${DNSCRON_VERSION:-}
  [[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] ||
    fail "DNSCRON_VERSION must be a release version like 0.1.0 (no leading v); got '$version'"
  local base=${DNSCRON_BASE_URL:-https://github.com/dnscron/dnscron/releases/download}
  check_base_url "$base"
  local dir=${DNSCRON_INSTALL_DIR:-$HOME/.dnscron/bin}

  local os=${RUNNER_OS:-$(uname -s)} arch=${RUNNER_ARCH:-$(uname -m)} target
  target=$(target_for "$os" "$arch") ||
    fail "no dnscron release binary for $os/$arch; released: Linux X64, Linux ARM64, macOS X64, macOS ARM64, Windows X64 (elsewhere: cargo install dnscron --locked)"

  local exe=dnscron ext=tar.gz extract_tool=tar
  if [[ $target == *windows* ]]; then exe=dnscron.exe ext=zip extract_tool=unzip; fi
  need_tools curl "$extract_tool" awk cut mktemp
  command -v sha256sum >/dev/null 2>&1 || need_tools shasum

  if [[ -x $dir/$exe ]] && [[ $("$dir/$exe" --version 2>/dev/null) == "dnscron $version" ]]; then
    echo "dnscron $version already installed in $dir (cached)"
    publish "$dir" "$exe"
    return
  fi

  local stem="dnscron-$version-$target"
  local archive="$stem.$ext" url="$base/v$version"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT

  echo "downloading $url/$archive"
  download "$url/$archive" "$work/$archive"
  download "$url/sha256sums.txt" "$work/sha256sums.txt"

  local want got
  want=$(published_sum "$work/sha256sums.txt" "$archive")
  [[ -n $want ]] || fail "sha256sums.txt of v$version lists no $archive; refusing to install an unverified binary"
  got=$(sha256_of "$work/$archive")
  [[ $got == "$want" ]] ||
    fail "sha256 mismatch for $archive: the release publishes $want, the download is $got; nothing was installed (a corrupted or tampered download: retry, and report it if it persists)"
  echo "sha256 ok: $got  $archive"

  mkdir -p "$work/x"
  if [[ $ext == zip ]]; then
    unzip -q "$work/$archive" -d "$work/x"
  else
    tar -xzf "$work/$archive" -C "$work/x"
  fi
  [[ -f $work/x/$stem/$exe ]] || fail "$archive has no $stem/$exe"

  mkdir -p "$dir"
  # Moved in under a temporary name first, so an interrupted install never leaves half a binary.
  cp "$work/x/$stem/$exe" "$dir/.$exe.partial"
  chmod 0755 "$dir/.$exe.partial"
  mv -f "$dir/.$exe.partial" "$dir/$exe"
  echo "installed dnscron $version ($target) in $dir"
  publish "$dir" "$exe"
}

publish() {
  local dir=$1
  # Git Bash on Windows: the runner reads GITHUB_PATH and outputs as Windows paths.
  if command -v cygpath >/dev/null 2>&1; then dir=$(cygpath -w "$dir"); fi
  if [[ -n ${GITHUB_OUTPUT:-} ]]; then echo "path=$dir/$2" >>"$GITHUB_OUTPUT"; fi
  if [[ -n ${GITHUB_PATH:-} ]]; then echo "$dir" >>"$GITHUB_PATH"; fi
}

main "$@"
