#!/bin/sh
# Issue 34.7: SIGKILL of a root `account run` takes its command down with it
# (PR_SET_PDEATHSIG), and the next run of the same user removes what it left
# (its image directory and temporary output) with one line saying the tree
# record was lost. What nobody planted under a run's name is not touched.
# Usage: run_killed_test.sh ACCOUNT
. "$(dirname "$0")/common.sh"
account=$1
shared=$work/shared
mkdir -m 1777 "$shared"

TMPDIR=$shared "$account" run -q -- sh -c 'exec sleep 30' &
run=$!
child=
for _ in $(seq 100); do
  child=$(cat /proc/$run/task/$run/children 2>/dev/null | tr -d " ") && [ -n "$child" ] &&
    grep -q sleep /proc/$child/cmdline 2>/dev/null && break
  sleep 0.05
done
[ -n "$child" ] || fail "the command did not start"
kill -9 $run
wait $run 2>/dev/null || true
dead=
for _ in $(seq 20); do  # 1 s: gone, or a zombie of whoever reaps orphans
  state=$(sed -n 's/^State:\t\(.\).*/\1/p' /proc/$child/status 2>/dev/null)
  [ -z "$state" ] || [ "$state" = Z ] && { dead=1; break; }
  sleep 0.05
done
[ -n "$dead" ] || { kill -9 "$child"; fail "the command outlived account run"; }
ls -d /dev/shm/account-run-$run-* "$shared"/account-run-$run-*.jsonl >"$work/left" ||
  fail "nothing was left to clean"
as_nobody mkdir "$shared/account-run-999999999-planted"

TMPDIR=$shared "$account" run -q -o "$work/records.jsonl" -- true 2>"$work/err" || fail "next run"
[ "$(grep -c "^account: run: removed what account run $run left (.*): it was killed, and its tree record was never written$" "$work/err")" -eq 1 ] ||
  fail "not one line: $(cat "$work/err")"
while read -r left; do
  [ ! -e "$left" ] || fail "left behind: $left"
done <"$work/left"
[ -d "$shared/account-run-999999999-planted" ] || fail "nobody's directory was removed"
grep -q '"kind":"tree"' "$work/records.jsonl" || fail "the next run's records: $(cat "$work/records.jsonl")"
echo ok
