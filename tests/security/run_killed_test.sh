#!/bin/sh
# Issue 34.7: SIGKILL of a root `account run` takes its command's whole tree
# down with it (its guard, cli/run_guard.h; the grandchild is asserted by
# pid), and the next run of the same user removes what it left
# (its image directory and temporary output) with one line saying the tree
# record was lost. What nobody planted under a run's name is not touched.
# Usage: run_killed_test.sh ACCOUNT
. "$(dirname "$0")/common.sh"
account=$1
shared=$work/shared
mkdir -m 1777 "$shared"

# sh starts a sleep in the background and waits on another: the background
# one is the command's child, which PR_SET_PDEATHSIG alone leaves running.
TMPDIR=$shared "$account" run -q -- sh -c 'sleep 100 & sleep 100; wait' &
run=$!
sh_pid= sleeps=
for _ in $(seq 100); do
  sh_pid=$(tr -d " " </proc/$run/task/$run/children 2>/dev/null) && [ -n "$sh_pid" ] &&
    sleeps=$(cat /proc/$sh_pid/task/*/children 2>/dev/null) &&
    [ "$(echo $sleeps | wc -w)" -eq 2 ] && break
  sleep 0.05
done
[ "$(echo $sleeps | wc -w)" -eq 2 ] || fail "the command did not start both sleeps: '$sh_pid' '$sleeps'"
for pid in $sleeps; do grep -q sleep /proc/$pid/cmdline || fail "$pid is no sleep"; done
kill -9 $run
wait $run 2>/dev/null || true
gone() {  # gone, or a zombie of whoever reaps orphans
  state=$(sed -n 's/^State:\t\(.\).*/\1/p' /proc/$1/status 2>/dev/null)
  [ -z "$state" ] || [ "$state" = Z ]
}
for pid in $sh_pid $sleeps; do
  dead=
  for _ in $(seq 20); do  # 1 s
    gone $pid && { dead=1; break; }
    sleep 0.05
  done
  [ -n "$dead" ] || { kill -9 $sh_pid $sleeps; fail "process $pid of the command's tree outlived account run"; }
done
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
