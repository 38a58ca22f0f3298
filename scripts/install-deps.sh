#!/usr/bin/env bash
# Installs the Debian packages account needs, only those missing.
# Usage: install-deps.sh [build|test]
#   build: what building account and running perf-tests need (scripts/demo.sh);
#   test (default): that and what the test suite runs against.
# Idempotent: a second run installs nothing. Needs root (or sudo) when something is missing.
set -euo pipefail
set_name=${1:-test}
case "$set_name" in
  build|test) ;;
  *) echo "install-deps.sh: unknown set '$set_name' (build or test)" >&2; exit 1 ;;
esac

packages=(
  build-essential cmake pkg-config git ccache
  binutils
  libunwind-dev
  libboost-program-options1.81-dev libboost-json1.81-dev
  # Boost's header-only libraries: Beast and Asio, for account watch --push's
  # HTTP PUT to a Pushgateway (Debian packages them only in the whole dev set).
  libboost1.81-dev
  libfmt-dev
  # account export: pprof protobufs from upstream profile.proto, gzip.
  libprotobuf-dev protobuf-compiler golang-github-google-pprof-dev zlib1g-dev
  # pprof itself, built from that source by the tests: its -diff_base reads
  # two exported profiles (tests/libaccount/leak_sites_test.cc).
  golang-go
  # Man pages are made from --help at build time.
  help2man
  # The results store (account store, history, bisect): SQLite, and libpq
  # for a PostgreSQL store.
  libsqlite3-dev libpq-dev
  # perf-test.sh makes its random data sets with openssl enc (also run installed).
  openssl
)
test_packages=(
  libgtest-dev googletest
  # The in-test API's Google Benchmark layer (api/, tests/api, tests/consumer)
  # and the per-call microbenchmark (perf-tests/bench/shim_bench.cc).
  libbenchmark-dev
  python3 perl
  # Real programs the robustness tests run under the shim; clang for the
  # sanitized unit tests and the fuzzers.
  default-jdk-headless nodejs clang
  # The test programs link with lld (tests/CMakeLists.txt): a third of ld.bfd's time.
  lld
  # Other allocators the shim must forward to (tests/libaccount/allocator_test.cc).
  libjemalloc-dev libtcmalloc-minimal4
  # promtool checks the OpenMetrics export; account watch --push is tested
  # against a real Pushgateway on 127.0.0.1.
  prometheus prometheus-pushgateway
  # Packaging: man pages rendered by the test (man-db); the .deb's Depends
  # (dpkg-dev's dpkg-shlibdeps, which runs file); the completion test loads
  # through bash-completion.
  man-db dpkg-dev file bash-completion
  # account report --format html is checked in a real browser, with the system's fonts.
  chromium fonts-dejavu-core
  # The per-call cost table counts instructions with callgrind
  # (perf-tests/bench/per_call_cost.sh, perf_tests.PerCallCostTable).
  valgrind
  # The shim's system calls at a process's end are counted under strace
  # (tests/libaccount/end_syscalls_test.sh).
  strace
  # The PostgreSQL store is tested against a real server the test starts
  # (initdb and pg_ctl from /usr/lib/postgresql/15/bin).
  postgresql-15
)
[ "$set_name" = test ] && packages+=("${test_packages[@]}")

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
