#!/bin/sh
# Issue 34.7: SIGKILL of a root `account run` takes its command's whole tree
# down with it (its guard, cli/run_guard.h; the grandchild is asserted by
# pid), and the next run of the same user removes what it left
# (its image directory and temporary output) with one line saying the tree
# record was lost. What nobody planted under a run's name is not touched.
# One sleep runs as nobody: its image file is in nobody's directory of the
# run's (libaccount/image_file.h), where nobody also left a directory of
# files; all of it goes with the run's directory.
# Usage: run_killed_test.sh ACCOUNT
. "$(dirname "$0")/common.sh"
account=$1
shared=$work/shared
mkdir -m 1777 "$shared"

# sh starts a sleep in the background and waits on another: the background
# one is the command's child, which PR_SET_PDEATHSIG alone leaves running.
TMPDIR=$shared "$account" run -q -- sh -c \
  'sleep 100 & setpriv --reuid=65534 --regid=65534 --clear-groups sleep 100; wait' &
run=$!
sh_pid= sleeps=
for _ in $(seq 100); do
  sh_pid=$(tr -d " " </proc/$run/task/$run/children 2>/dev/null) && [ -n "$sh_pid" ] &&
    sleeps=$(cat /proc/$sh_pid/task/*/children 2>/dev/null) &&
    [ "$(echo $sleeps | wc -w)" -eq 2 ] && all_sleeping $sleeps && break
  sleep 0.05
done
[ "$(echo $sleeps | wc -w)" -eq 2 ] || fail "the command did not start both sleeps: '$sh_pid' '$sleeps'"
all_sleeping $sleeps || fail "not all of $sleeps are sleeps"
# An exec'd sleep has its name before the shim in it made its image file.
for _ in $(seq 100); do
  [ -n "$(ls /dev/shm/account-run-$run-*/u$nobody 2>/dev/null)" ] && break
  sleep 0.02
done
kill_run_expect_gone $run $sh_pid $sleeps
ls -d /dev/shm/account-run-$run-* "$shared"/account-run-$run-*.jsonl >"$work/left" ||
  fail "nothing was left to clean"
user_dir=$(echo /dev/shm/account-run-$run-*/u$nobody)
[ "$(ls "$user_dir" | wc -l)" -eq 1 ] || fail "no image file of nobody's sleep in $user_dir"
as_nobody sh -c 'mkdir -p "$1/deeper/still" && touch "$1/deeper/junk" "$1/deeper/still/junk"' sh "$user_dir"
as_nobody mkdir "$shared/account-run-999999999-planted"

TMPDIR=$shared "$account" run -q -o "$work/records.jsonl" -- true 2>"$work/err" || fail "next run"
expect_leftovers_removed $run "$work/err" "$work/left"
[ -d "$shared/account-run-999999999-planted" ] || fail "nobody's directory was removed"
grep -q '"kind":"tree"' "$work/records.jsonl" || fail "the next run's records: $(cat "$work/records.jsonl")"
echo ok
