#!/bin/bash
# account run's guard is the account-guard helper (cli/guard_main.cc), started
# orphaned and not waited for to be ready: it is no child of the run, leads no session of the
# caller's, holds only its own descriptors (no pipe of the caller's: a reader
# of the run's output sees its end with the run's), ends with the run, and
# an account without the helper, or with one that fails, says so in one line
# and still records.
# Usage: run_guard_test.sh ACCOUNT_BINARY; prints "ok" last.
set -u
account=$1
guard=$(dirname "$account")/account-guard
dir=$(mktemp -d "$PWD/run_guard_test.XXXXXX")  # in the build tree: programs run from it
run=
trap '[ -n "$run" ] && kill $run 2>/dev/null; rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# Run by hand, the helper refuses in one line.
"$guard" 123 >"$dir/out" 2>&1
status=$?
[ "$status" -eq 2 ] || fail "account-guard by hand exited $status"
[ "$(cat "$dir/out")" = "account-guard: started by account run only (it guards that run's tree)" ] ||
  fail "account-guard by hand said: $(cat "$dir/out")"

# The guard of a run whose command waits on a fifo, looked at from outside;
# the pipe on fd 9 is the caller's, which the guard must not hold.
mkfifo "$dir/go"
exec 9> >(cat >/dev/null)
"$account" run -q --cgroup=off -o "$dir/r.jsonl" -- sh -c "read x <'$dir/go'" 2>"$dir/err" &
run=$!
gpid=
for _ in $(seq 100); do
  gpid=$(pgrep -f "^account-guard $run\$") && break
  sleep 0.05
done
[ -n "$gpid" ] || fail "no account-guard $run while the run lasts: $(ps -eo pid,ppid,args | grep guard)"
read -r _ ppid _ sid _ < <(sed 's/.*) //' "/proc/$gpid/stat")  # state ppid pgrp session
[ "$ppid" != "$run" ] || fail "the guard is a child of the run"
[ "$sid" != "$(ps -o sid= $$ | tr -d ' ')" ] || fail "the guard is in the caller's session $sid"
[ "$(cat /proc/$gpid/comm)" = "account-guard" ] || fail "the guard's name: $(cat /proc/$gpid/comm)"
fds=$(ls /proc/$gpid/fd | sort -n | tr '\n' ' ')
# 3 is the run's socket; the others above 2 are its own (process events, the list).
for fd in $fds; do
  [ "$fd" -le 2 ] || case $(readlink /proc/$gpid/fd/$fd) in
    socket:* | /memfd:account-guard-list*) ;;
    *) fail "the guard holds descriptor $fd: $(ls -l /proc/$gpid/fd)" ;;
  esac
done
for fd in 0 1 2; do
  [ "$(readlink /proc/$gpid/fd/$fd)" = /dev/null ] || fail "the guard's fd $fd: $(readlink /proc/$gpid/fd/$fd)"
done
echo >"$dir/go"
wait $run || fail "the run failed: $(cat "$dir/err")"
exec 9>&-
[ ! -s "$dir/err" ] || fail "the run said: $(cat "$dir/err")"
for _ in $(seq 100); do kill -0 "$gpid" 2>/dev/null || break; sleep 0.02; done
kill -0 "$gpid" 2>/dev/null && fail "the guard $gpid outlived the run by 2 s"

# An account with no helper next to it: one line, the run records anyway.
mkdir "$dir/alone"
cp "$account" "$dir/alone/account"
shim=$(cd "$(dirname "$account")/../libaccount" && pwd)/libaccount.so
ACCOUNT_LIB=$shim "$dir/alone/account" run -q --cgroup=off -o "$dir/alone.jsonl" -- true \
  2>"$dir/alone.err" || fail "the run without a guard failed: $(cat "$dir/alone.err")"
want="account run: no guard (account-guard not found next to $dir/alone/account): if account run is killed, what the command started runs on"
[ "$(cat "$dir/alone.err")" = "$want" ] || fail "without a guard it said: $(cat "$dir/alone.err")"
grep -q '"kind":"tree"' "$dir/alone.jsonl" || fail "no tree record without a guard"

# A helper that ends at its start: the run does not wait for its guard, and
# says so in one line once it sees the guard ended without saying it guards
# the run (at a turn of its loop: the command lasts a few of them).
printf '#!/bin/sh\nexit 3\n' >"$dir/alone/account-guard"
chmod +x "$dir/alone/account-guard"
ACCOUNT_LIB=$shim "$dir/alone/account" run -q --cgroup=off -o "$dir/failed.jsonl" -- sleep 0.3 \
  2>"$dir/failed.err" || fail "the run with a failing guard failed: $(cat "$dir/failed.err")"
want="account run: no guard ($dir/alone/account-guard ended before it said it guards the run): if account run is killed, what the command started runs on"
[ "$(cat "$dir/failed.err")" = "$want" ] || fail "with a failing guard it said: $(cat "$dir/failed.err")"
grep -q '"kind":"tree"' "$dir/failed.jsonl" || fail "no tree record with a failing guard"
echo ok
