#!/bin/sh
# Issue 34.7 without root: SIGKILL of an `account run` started by nobody, which
# has no process events, takes its command's whole tree down with it (the
# guard by list, cli/run_guard.h): sh, a sleep in the background, a daemon
# that left sh's session (setsid) and whose parent is gone, and the sleep sh
# waits for, each asserted by pid. The next run of nobody removes what the
# killed one left, with one line.
# Usage: run_killed_unprivileged_test.sh ACCOUNT
. "$(dirname "$0")/common.sh"
account=$1

# Not through as_nobody (a function: a subshell of its own): setpriv and env
# exec account run, so $! is its pid.
setpriv --reuid=$nobody --regid=$nobody --clear-groups env TMPDIR="$nobody_dir" \
  "$account" run -q -- sh -c 'sleep 100 & (setsid sleep 100 &); sleep 100' &
run=$!
kids() { cat /proc/$1/task/*/children 2>/dev/null; }
sh_pid= sleeps=
for _ in $(seq 100); do
  sleeps=
  for pid in $(kids $run); do
    case $(cat /proc/$pid/comm 2>/dev/null) in
      sh) sh_pid=$pid sleeps="$sleeps $(kids $pid)" ;;
      sleep) sleeps="$sleeps $pid" ;;  # the daemon, come back to account run
    esac
  done
  [ -n "$sh_pid" ] && [ "$(echo $sleeps | wc -w)" -eq 3 ] && all_sleeping $sleeps && break
  sleep 0.05
done
[ "$(echo $sleeps | wc -w)" -eq 3 ] || fail "the command did not start three sleeps: '$sh_pid' '$sleeps'"
daemon=
for pid in $sleeps; do
  [ "$(cat /proc/$pid/comm)" = sleep ] || fail "$pid is no sleep"
  [ "$(stat -c %u /proc/$pid)" -eq $nobody ] || fail "$pid is not nobody's"
  [ "$(ps -o sid= -p $pid)" -eq $pid ] && daemon=$pid
done
[ -n "$daemon" ] || fail "no sleep left sh's session"
kill_run_expect_gone $run $sh_pid $sleeps
ls -d /dev/shm/account-run-$run-* "$nobody_dir"/account-run-$run-*.jsonl >"$work/left" ||
  fail "nothing was left to clean"

as_nobody env TMPDIR="$nobody_dir" "$account" run -q -o "$nobody_dir/records.jsonl" -- true \
  2>"$work/err" || fail "next run: $(cat "$work/err")"
expect_leftovers_removed $run "$work/err" "$work/left"
grep -q '"kind":"tree"' "$nobody_dir/records.jsonl" || fail "the next run's records: $(cat "$nobody_dir/records.jsonl")"
echo ok
