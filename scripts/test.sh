#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test. CI runs exactly this:
#  1. the whole suite (build/ or $ACCOUNT_BUILD_DIR);
#  2. the unit tests of the tools (label "unit", target unit_tests: parse/, the account binary,
#     sampler units) built with AddressSanitizer+UBSan in build-asan/ (the
#     preload tests stay in step 1: the shim and its targets are never sanitized);
#  3. every libFuzzer target for ACCOUNT_FUZZ_SECONDS (default 30) each.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh"
build=${ACCOUNT_BUILD_DIR:-$root/build}
ctest --test-dir "$build" --output-on-failure -j2 --timeout 300

asan=${ACCOUNT_ASAN_BUILD_DIR:-$root/build-asan}
cmake -S "$root" -B "$asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DACCOUNT_SANITIZE=ON >/dev/null
cmake --build "$asan" -j"$(nproc)" --target account unit_tests
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir "$asan" --output-on-failure -j2 --timeout 300 -L unit

"$root/scripts/fuzz.sh" "${ACCOUNT_FUZZ_SECONDS:-30}"
