#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test. CI runs exactly this:
#  1. the whole suite (build/ or $ACCOUNT_BUILD_DIR);
#  2. the unit tests of the tools (label "unit", target unit_tests: parse/, the account binary,
#     proc units) built with clang, AddressSanitizer+UBSan in build-asan/ (the
#     preload tests stay in step 1: the shim and its targets are never sanitized);
#  3. every libFuzzer target for ACCOUNT_FUZZ_SECONDS (default 30), side by side, built in
#     the same sanitized directory as step 2, so its libraries are compiled once.
# Each stage prints its wall time on stderr.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
started=$SECONDS
stage() {  # stage NAME COMMAND...: runs it and prints how long it took
  local name=$1 t0=$SECONDS
  shift
  "$@"
  echo "test.sh: $name took $((SECONDS - t0)) s (total $((SECONDS - started)) s)" >&2
}

stage build "$root/scripts/build.sh"
build=${ACCOUNT_BUILD_DIR:-$root/build}
stage tests ctest --test-dir "$build" --output-on-failure -j2 --timeout 300

asan=${ACCOUNT_ASAN_BUILD_DIR:-$root/build-asan}
stage asan-configure cmake -S "$root" -B "$asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DACCOUNT_SANITIZE=ON -DACCOUNT_FUZZ=ON \
  -DCMAKE_C_COMPILER="${ACCOUNT_FUZZ_CC:-clang}" -DCMAKE_CXX_COMPILER="${ACCOUNT_FUZZ_CXX:-clang++}" >/dev/null
stage asan-build cmake --build "$asan" -j"$(nproc)" --target account unit_tests fuzz_record fuzz_values
stage asan-tests env ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir "$asan" --output-on-failure -j2 --timeout 300 -L unit

stage fuzz env ACCOUNT_FUZZ_BUILD_DIR="$asan" "$root/scripts/fuzz.sh" "${ACCOUNT_FUZZ_SECONDS:-30}"
