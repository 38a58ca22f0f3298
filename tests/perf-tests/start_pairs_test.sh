#!/usr/bin/env bash
# start-pairs.sh, small: every row of both tables (a --variant's among them)
# and every step, each with its figures; bare is the 1.000x of each table.
# Bad usage: one line, exit 1.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
BUILD=${1:?usage: start_pairs_test.sh BUILD_DIR PERF_TESTS_DIR}
PERF=${2:?usage: start_pairs_test.sh BUILD_DIR PERF_TESTS_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$PERF/start-pairs.sh" --starts 20 --build "$BUILD" \
  --variant "same shim=$BUILD/libaccount/libaccount.so" >"$tmp/out" 2>"$tmp/err" ||
  fail "start-pairs.sh exited $?: $(tail -3 "$tmp/err")"
row='[0-9]+\.[0-9]{3} ms +[0-9]+\.[0-9]{3}x +\(p25 [0-9.]+, p75 [0-9.]+\)$'
for name in "bare" "empty preload" "account" "account sampling off" "same shim"; do
  [ "$(grep -Ec "^$name +$row" "$tmp/out")" -ge 1 ] || fail "no row '$name': $(cat "$tmp/out")"
done
grep -Eq "^account run +$row" "$tmp/out" || fail "no account run row: $(cat "$tmp/out")"
[ "$(grep -Ec "^bare +[0-9.]+ ms +1\.000x" "$tmp/out")" -eq 2 ] || fail "bare is not 1.000x twice"
steps=$(grep -Ec '^(the first open|a second open|image file|anonymous Region|readlink|/proc/self/status).* us ' "$tmp/out")
[ "$steps" -eq 12 ] || fail "$steps of 12 steps: $(cat "$tmp/out")"
status=0
"$PERF/start-pairs.sh" --bogus >"$tmp/out" 2>"$tmp/err" || status=$?
[ "$status" -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
  grep -q "unknown option --bogus" "$tmp/err" || fail "bad usage: status $status, $(cat "$tmp/err")"
echo ok
