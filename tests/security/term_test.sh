#!/bin/sh
# Issue 34.5: TERM always ends a root `account run` within --kill-after, also
# when the command ignores TERM, and when a grandchild that dropped to nobody
# ignores it; the tree record says how the run ended (interrupted by TERM, and
# how many processes --kill-after had to kill).
# Usage: term_test.sh ACCOUNT
. "$(dirname "$0")/common.sh"
account=$1
kill_after=1

# term_run NAME COMMAND...: starts account run of COMMAND, TERMs it once the
# command's innermost shell said it is ready (its marker in $nobody_dir),
# and sets $ms (TERM to account run's end), $rc and $tree (the tree record).
term_run() {
  name=$1
  shift
  ready=$nobody_dir/$name.ready
  "$account" run -q --kill-after $kill_after -o "$work/$name.jsonl" -- "$@" 2>"$work/$name.err" &
  run=$!
  for _ in $(seq 200); do
    [ -e "$ready" ] && break
    sleep 0.05
  done
  [ -e "$ready" ] || fail "$name: the command did not start"
  sleep 0.2  # its sleep has started
  start=$(date +%s%N)
  kill -TERM $run
  rc=0
  wait $run || rc=$?
  ms=$((($(date +%s%N) - start) / 1000000))
  tree=$(grep '"kind":"tree"' "$work/$name.jsonl") || fail "$name: no tree record"
}

# The bound: --kill-after, then the first tick after it (5 ms), then at most
# the 2 s account run gives what it killed to be recorded (moments, as a
# SIGKILL is), and 0.5 s for a loaded machine. Each sleep would hold the run
# 30 s if nothing killed it.
check_bound() {  # check_bound NAME
  [ $ms -ge $((kill_after * 1000)) ] || fail "$1: ended after $ms ms, before --kill-after: TERM was not ignored"
  [ $ms -lt $((kill_after * 1000 + 2500)) ] || fail "$1: ended $ms ms after TERM (--kill-after $kill_after s)"
  [ $rc -eq 143 ] || fail "$1: exit status $rc, not 128+SIGTERM"
}

# The command itself ignores TERM (and so does its sleep, which inherits that).
term_run ignores sh -c "trap '' TERM; : >$nobody_dir/ignores.ready; sleep 30; sleep 30"
check_bound ignores
echo "$tree" | grep -q '"signal":9,"aborted":false,"interrupted":15,"killed_after":2[,}]' ||
  fail "ignores: the tree record: $tree"

# The command ends on TERM; its child, run as nobody, ignores it, as does its sleep.
term_run grandchild sh -c "setpriv --reuid=$nobody --regid=$nobody --clear-groups \
  sh -c \"trap '' TERM; : >$nobody_dir/grandchild.ready; sleep 30\" & wait"
check_bound grandchild
echo "$tree" | grep -q '"signal":15,"aborted":false,"interrupted":15,"killed_after":2[,}]' ||
  fail "grandchild: the tree record: $tree"
echo ok
