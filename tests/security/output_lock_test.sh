#!/bin/sh
# Issue 34.5: an flock another user holds on root's run output delays each
# writer by at most 1 s, each says so in one line naming the file, and no
# record is lost: the probe of account run, the shim's record, the tree record.
# Usage: output_lock_test.sh ACCOUNT HELLO
. "$(dirname "$0")/common.sh"
account=$1
hello=$2
out=$work/records.jsonl
: >"$out"
chmod 0644 "$out"  # readable by all: enough to lock it

# In a process group of its own, with its own output: killed as a whole when
# the run is done, rather than left holding the test's output for 20 s.
setsid setpriv --reuid=$nobody --regid=$nobody --clear-groups flock -x "$out" sleep 20 \
  </dev/null >/dev/null 2>&1 &
holder=$!
for _ in $(seq 100); do  # until nobody holds it
  flock -x -n "$out" true || break
  sleep 0.05
done
flock -x -n "$out" true && fail "nobody does not hold the lock"

start=$(date +%s%N)
"$account" run -q -o "$out" -- "$hello" >/dev/null 2>"$work/err" || fail "run: $(cat "$work/err")"
ms=$((($(date +%s%N) - start) / 1000000))
kill -- -$holder 2>/dev/null || true
# Three waits of 1 s (probe, the process's record, the tree record), with room
# for a loaded machine; unbounded, the run would wait the holder's 20 s.
[ $ms -lt 8000 ] || fail "the run took $ms ms"
[ $ms -ge 3000 ] || fail "the run took $ms ms: it did not wait for the lock"
expect_lines() {  # expect_lines N LINE
  [ "$(grep -cxF "$2" "$work/err")" -eq "$1" ] || fail "not $1 line(s) '$2': $(cat "$work/err")"
}
expect_lines 1 "account: the lock on $out was held for 1 s by another process; not probed"
# The shim's (hello's record) and account run's (the tree record).
expect_lines 2 "account: the lock on $out was held for 1 s by another process; writing the record without it"
[ "$(grep -c '^account:' "$work/err")" -eq 3 ] || fail "other lines: $(cat "$work/err")"
[ "$(grep -c '"kind":"process"' "$out")" -eq 1 ] || fail "the process record: $(cat "$out")"
[ "$(grep -c '"kind":"tree"' "$out")" -eq 1 ] || fail "the tree record: $(cat "$out")"
echo ok
