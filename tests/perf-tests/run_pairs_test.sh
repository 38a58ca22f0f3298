#!/usr/bin/env bash
# run-pairs.sh, small: both tables (--cgroup=auto and off), each with this
# build's row (1.000x), a --variant's and the command alone's, every figure a
# median with its quartiles and ratio; then the stage table, every stage in
# the order a run reaches it. Bad usage and a variant that is no program: one line,
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
# The stage table: every stage of the run, each a time since the spawn and a
# step.
grep -q "^## where this build's time goes: " "$tmp/out" || fail "no stage table: $(cat "$tmp/out")"
stages=$(sed -n '/^## where this build/,/^# load after/p' "$tmp/out" | grep -E '^[a-z].* +[0-9]+\.[0-9]{3} +-?[0-9]+\.[0-9]{3}$' |
  sed -E 's/ +-?[0-9.]+ +-?[0-9.]+$//')
want="spawn of account
loaded
main
options parsed
shim found
guard started
dead runs removed
output probed
cgroup made
image directory made
tree sampler and process events ready
command exec'd
command's main
command's return
command's end seen
tree settled
tree record written
summary and budgets
main returns
account reaped"
# In the order a run reaches them, but for the command's main, which a busy
# machine may schedule before account learns of the exec: the same set, from
# the spawn to the reap.
[ "$(echo "$stages" | sort)" = "$(echo "$want" | sort)" ] || fail "stages: $stages"
[ "$(echo "$stages" | head -1)" = "spawn of account" ] && [ "$(echo "$stages" | tail -1)" = "account reaped" ] ||
  fail "stages: $stages"
sed -n '/^## where this build/,/^# load after/p' "$tmp/out" | awk '$NF ~ /^-/ {bad=1} END{exit bad}' ||
  fail "a negative step: $(cat "$tmp/out")"
# A bad ACCOUNT_RUN_STAGES_FD: one line, and the run goes on.
status=0
ACCOUNT_RUN_STAGES_FD=2x "$BUILD/cli/account" run -q -o /dev/null -- /bin/true 2>"$tmp/err" || status=$?
[ "$status" -eq 0 ] && [ "$(cat "$tmp/err")" = "account: ACCOUNT_RUN_STAGES_FD=2x is not a descriptor above 2 open in account: no stage times" ] ||
  fail "bad ACCOUNT_RUN_STAGES_FD: status $status, $(cat "$tmp/err")"
status=0
"$PERF/run-pairs.sh" --bogus >"$tmp/out" 2>"$tmp/err" || status=$?
[ "$status" -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
  grep -q "unknown option --bogus" "$tmp/err" || fail "bad usage: status $status, $(cat "$tmp/err")"
status=0
"$PERF/run-pairs.sh" --build "$BUILD" --variant "gone=$tmp/none" >"$tmp/out" 2>"$tmp/err" || status=$?
[ "$status" -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
  grep -q "no such program" "$tmp/err" || fail "missing variant: status $status, $(cat "$tmp/err")"
echo ok
