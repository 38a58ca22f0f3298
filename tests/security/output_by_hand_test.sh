#!/bin/sh
# Issue 34 (outputs set by hand): ACCOUNT_OUTPUT=... LD_PRELOAD=libaccount.so
# PROGRAM, with no account run. Nobody owns a sticky shared directory (so the
# kernel's protected_symlinks lets root follow nobody's links in it) and plants
# there a link to a root-only file, a link to the root-only directory, a 0666
# file and FIFOs. Root's program writes nothing through the links or into
# nobody's files, never blocks on a FIFO, says why in one line, and prints the
# same bytes and returns the same status as without the shim.
# Usage: output_by_hand_test.sh SHIM PROGRAM
. "$(dirname "$0")/common.sh"
shim=$1
program=$2
shared=$work/shared
mkdir -m 1777 "$shared"
chown $nobody:$nobody "$shared"
secret=$root_dir/secret
printf "root's own\n" >"$secret"

as_nobody ln -s "$secret" "$shared/link.jsonl"
as_nobody ln -s "$root_dir" "$shared/dir"
as_nobody sh -c ': >"$1"; chmod 0666 "$1"' sh "$shared/planted.jsonl"
as_nobody mkfifo -m 0666 "$shared/fifo" "$shared/read-fifo"

# The program without the shim: what it must still print and return.
"$program" by-hand 3 >"$work/want.out" 2>"$work/want.err" && fail "hello did not return 3"

# by_hand OUTPUT REASON: the program with the shim writing to OUTPUT says
# REASON in one line and is otherwise unchanged; within 2 s (a blocked open
# of a FIFO would hold it until a writer or reader came).
by_hand() {
  start=$(date +%s%N)
  rc=0
  timeout 10 env LD_PRELOAD="$shim" ACCOUNT_OUTPUT="$1" "$program" by-hand 3 \
    >"$work/got.out" 2>"$work/got.err" || rc=$?
  ms=$((($(date +%s%N) - start) / 1000000))
  [ $rc -eq 3 ] || fail "$1: status $rc, not 3"
  [ $ms -lt 2000 ] || fail "$1: took $ms ms"
  cmp -s "$work/want.out" "$work/got.out" || fail "$1: stdout changed: $(cat "$work/got.out")"
  printf 'account: cannot write records to ACCOUNT_OUTPUT=%s: %s; this process is not recorded\nnote\n' \
    "$1" "$2" >"$work/want-with-line.err"
  cmp -s "$work/want-with-line.err" "$work/got.err" || fail "$1: stderr: $(cat "$work/got.err")"
}

by_hand "$shared/link.jsonl" "it is a symbolic link, or a path through one (refused)"
by_hand "$shared/dir/new.jsonl" "it is a symbolic link, or a path through one (refused)"
[ "$(cat "$secret")" = "root's own" ] || fail "the link's target was written: $(cat "$secret")"
[ ! -e "$root_dir/new.jsonl" ] || fail "created through the directory link: $(cat "$root_dir/new.jsonl")"

by_hand "$shared/planted.jsonl" "it is owned by another user (refused)"
[ ! -s "$shared/planted.jsonl" ] || fail "nobody's file was written: $(cat "$shared/planted.jsonl")"

by_hand "$shared/fifo" "it is owned by another user (refused)"
# Root's own FIFO, which no process reads, does not hold root's program either.
mkfifo "$work/own-fifo"
start=$(date +%s%N)
timeout 10 env LD_PRELOAD="$shim" ACCOUNT_OUTPUT="$work/own-fifo" "$program" by-hand 3 \
  >/dev/null 2>&1 && fail "own FIFO: hello did not return 3"
[ $? -eq 3 ] || fail "own FIFO: status not 3 (124: timed out)"
[ $((($(date +%s%N) - start) / 1000000)) -lt 2000 ] || fail "own FIFO: blocked"
# Nobody reads its FIFO (holding it open read-write, so root's open finds a
# reader): root's records do not reach it.
as_nobody sh -c 'exec 3<>"$1"; : >"$2"; sleep 3; timeout 1 cat <&3 >"$3"' sh \
  "$shared/read-fifo" "$nobody_dir/reading" "$nobody_dir/got" &
reader=$!
for _ in $(seq 100); do
  [ -e "$nobody_dir/reading" ] && break
  sleep 0.05
done
by_hand "$shared/read-fifo" "it is owned by another user (refused)"
wait $reader || true
[ -e "$nobody_dir/got" ] && [ ! -s "$nobody_dir/got" ] || fail "nobody's reader got: $(cat "$nobody_dir/got" 2>&1)"

# Root's own file, by a path with no link, gets the record and no line.
env LD_PRELOAD="$shim" ACCOUNT_OUTPUT="$work/own.jsonl" "$program" by-hand 3 \
  >"$work/got.out" 2>"$work/got.err" && fail "hello did not return 3"
cmp -s "$work/want.err" "$work/got.err" || fail "own output: stderr: $(cat "$work/got.err")"
[ "$(grep -c '"kind":"process"' "$work/own.jsonl")" -eq 1 ] || fail "root's own record: $(cat "$work/own.jsonl")"
echo ok
