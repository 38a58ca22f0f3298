#!/usr/bin/env bash
# run-pairs.sh, small: both tables (--cgroup=auto and off), each with this
# build's row (1.000x), a --variant's and the command alone's, every figure a
# median with its quartiles and ratio. Bad usage and a variant that is no program: one line,
# exit 1.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
BUILD=${1:?usage: run_pairs_test.sh BUILD_DIR PERF_TESTS_DIR}
PERF=${2:?usage: run_pairs_test.sh BUILD_DIR PERF_TESTS_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$PERF/run-pairs.sh" --rounds 4 --build "$BUILD" --variant "same=$BUILD/cli/account" \
  >"$tmp/out" 2>"$tmp/err" || fail "run-pairs.sh exited $?: $(tail -3 "$tmp/err")"
cell='[0-9]+\.[0-9]{2} \([0-9.]+-[0-9.]+\) [0-9]+\.[0-9]{3}x +'
for table in auto off; do
  grep -q "^## account run --cgroup=$table -q -o /dev/null -- stamp$" "$tmp/out" ||
    fail "no --cgroup=$table table: $(cat "$tmp/out")"
done
[ "$(grep -Ec "^this build +($cell){3}$" "$tmp/out")" -eq 2 ] || fail "this build's rows: $(cat "$tmp/out")"
[ "$(grep -Ec "^this build +([0-9.]+ \([0-9.-]+\) 1\.000x +){3}$" "$tmp/out")" -eq 2 ] ||
  fail "this build is not 1.000x: $(cat "$tmp/out")"
[ "$(grep -Ec "^same +($cell){3}$" "$tmp/out")" -eq 2 ] || fail "the variant's rows: $(cat "$tmp/out")"
[ "$(grep -Ec "^the command alone +($cell){3}$" "$tmp/out")" -eq 2 ] || fail "no bare rows: $(cat "$tmp/out")"
# Alone, the command is no slower than under account run (a whole run's
# median takes account's own start and end, several ms on any machine).
awk '/^this build/{a=$(NF-2)} /^the command alone/{if ($(NF-2)+0 >= a+0) bad=1} END{exit bad}' \
  "$tmp/out" || fail "the command alone is not faster: $(cat "$tmp/out")"
status=0
"$PERF/run-pairs.sh" --bogus >"$tmp/out" 2>"$tmp/err" || status=$?
[ "$status" -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
  grep -q "unknown option --bogus" "$tmp/err" || fail "bad usage: status $status, $(cat "$tmp/err")"
status=0
"$PERF/run-pairs.sh" --build "$BUILD" --variant "gone=$tmp/none" >"$tmp/out" 2>"$tmp/err" || status=$?
[ "$status" -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
  grep -q "no such program" "$tmp/err" || fail "missing variant: status $status, $(cat "$tmp/err")"
echo ok
