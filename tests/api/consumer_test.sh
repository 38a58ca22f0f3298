#!/usr/bin/env bash
# usage: consumer_test.sh BUILD_DIR SOURCE_DIR [deb DEB_DIR]
# tests/consumer, a project of its own, built against account as a user gets
# it: `cmake --install` into a throw-away prefix, or (with `deb`) the .deb made
# by cpack (tests/packaging/make_deb.sh, into DEB_DIR) and unpacked into a
# throw-away root. Its gtest passes one budget and
# fails the other with its message, run under the installed `account run`; its
# benchmark's JSON has the memory figures; account_add_test's BUDGET passes one
# ctest and fails the other; a C program built with `pkg-config account` counts.
set -euo pipefail
build=$1 src=$2 how=${3:-prefix} debs_dir=${4:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

if [ "$how" = deb ]; then
  debs=("$debs_dir"/account_*.deb)
  [ -f "${debs[0]}" ] || fail "no account_*.deb in $debs_dir (made by make_deb.sh)"
  dpkg-deb -x "${debs[0]}" "$tmp/root"
  prefix=$tmp/root/usr
else
  cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
  prefix=$tmp/prefix
fi
unset ACCOUNT_LIB LD_PRELOAD
account=$prefix/bin/account

cmake -S "$src/tests/consumer" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$tmp/configure.log" 2>&1 ||
  fail "configure: $(tail -5 "$tmp/configure.log")"
grep -q "ACCOUNT_SHIM" "$tmp/consumer/CMakeCache.txt" && fail "ACCOUNT_SHIM leaked into the cache"
cmake --build "$tmp/consumer" -j2 >"$tmp/build.log" 2>&1 || fail "build: $(tail -20 "$tmp/build.log")"

# The gtest: one pass, one failure with its one message.
status=0
"$account" run -q -- "$tmp/consumer/budget_test" >"$tmp/gtest.out" 2>&1 || status=$?
[ "$status" = 1 ] || fail "budget_test under account run exited $status: $(cat "$tmp/gtest.out")"
grep -q '^\[       OK \] Budget.Holds' "$tmp/gtest.out" || fail "Budget.Holds did not pass: $(cat "$tmp/gtest.out")"
grep -qF 'take_4096() malloc 4096 bytes in 1 call (largest block 4096 bytes), over its budget of 0 bytes' \
  "$tmp/gtest.out" || fail "no budget message: $(cat "$tmp/gtest.out")"
grep -q '^\[  FAILED  \] Budget.Exceeded (' "$tmp/gtest.out" || fail "Budget.Exceeded did not fail"

# The benchmark's JSON: 100 iterations; Benchmark 1.7's memory run is 16 more.
"$account" run -q -- "$tmp/consumer/budget_bench" --benchmark_format=json >"$tmp/bench.json" ||
  fail "budget_bench exited $?"
python3 - "$tmp/bench.json" <<'PY' || fail "benchmark JSON: $(cat "$tmp/bench.json")"
import json, sys
b = json.load(open(sys.argv[1]))["benchmarks"][0]
assert b["iterations"] == 100, b
assert 1 <= b["allocs_per_iter"] < 1.5, b  # Benchmark's own few in its memory run
assert 16 * 4096 <= b["total_allocated_bytes"] < 16 * 4096 + 4096, b
assert b["max_bytes_used"] >= 4096, b
assert b["copied_bytes"] == 0 and b["copied_calls"] == 0, b
PY

# account_add_test: within and over budget, as ctest runs them.
ctest --test-dir "$tmp/consumer" -R consumer.within_budget --output-on-failure >"$tmp/within.log" 2>&1 ||
  fail "consumer.within_budget failed: $(cat "$tmp/within.log")"
if ctest --test-dir "$tmp/consumer" -R consumer.over_budget --output-on-failure >"$tmp/over.log" 2>&1; then
  fail "consumer.over_budget passed: $(cat "$tmp/over.log")"
fi
grep -q 'account run: malloc .* is over its budget of 0.00 MiB (1024 bytes)' "$tmp/over.log" ||
  fail "no budget line from consumer.over_budget: $(cat "$tmp/over.log")"

# pkg-config: a C program, linked with what account.pc says, counts under the shim it names.
export PKG_CONFIG_PATH=$(dirname "$(find "$prefix" -name account.pc)")
shim=$(pkg-config --variable=shim account)
[ -f "$shim" ] || fail "account.pc's shim $shim is not a file"
cc -o "$tmp/api_probe" "$src/tests/programs/api_probe.c" $(pkg-config --cflags --libs account) ||
  fail "cc with pkg-config account"
out=$(ACCOUNT_OUTPUT=/dev/null LD_PRELOAD=$shim "$tmp/api_probe")
[ "$out" = "$(printf 'counting=1 snapshot=0 reset=0 stack=0\nwindow_peak_above_live=0')" ] ||
  fail "api_probe under $shim: $out"
echo "ok: $how: gtest pass and budget failure, benchmark JSON, account_add_test BUDGET, pkg-config"
