#!/usr/bin/env bash
# Installs the Debian packages account needs to build and test, only those missing.
# Idempotent: a second run installs nothing. Needs root (or sudo) when something is missing.
set -euo pipefail

packages=(
  build-essential cmake pkg-config git
  binutils
  libunwind-dev
  libboost-program-options1.81-dev libboost-json1.81-dev
  # Boost's header-only libraries: Beast and Asio, for account watch --push's
  # HTTP PUT to a Pushgateway (Debian packages them only in the whole dev set).
  libboost1.81-dev
  libfmt-dev
  libgtest-dev googletest
  python3 perl
  # Real programs the robustness tests run under the shim; clang for the fuzzers.
  default-jdk-headless nodejs clang
  # Other allocators the shim must forward to (tests/libaccount/allocator_test.cc).
  libjemalloc-dev libtcmalloc-minimal4
  # account export: pprof protobufs from upstream profile.proto, gzip, promtool for OpenMetrics.
  libprotobuf-dev protobuf-compiler golang-github-google-pprof-dev zlib1g-dev prometheus
  # account watch --push is tested against a real Pushgateway on 127.0.0.1.
  prometheus-pushgateway
  # Packaging: man pages from --help (help2man), rendered by the test (man-db);
  # the .deb's Depends (dpkg-dev's dpkg-shlibdeps, which runs file); the
  # completion test loads through bash-completion.
  help2man man-db dpkg-dev file bash-completion
  # perf-test.sh makes its random data sets with openssl enc (also run installed).
  openssl
  # account report --format html is checked in a real browser, with the system's fonts.
  chromium fonts-dejavu-core
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
