#!/bin/sh
# Issue 34.4/34.5: the run's output is the file the run made, and nothing at
# its path blocks root's processes.
# 1. nobody puts a FIFO where root's `account run -o` writes: refused at once
#    with one line, not held until a reader comes (TERM blocked meanwhile).
# 2. After a root run removed its temporary output, nobody re-creates that
#    path (0666). A root process that escaped the run (same environment) must
#    not write into it, nor re-create the path when it is gone.
# Usage: output_pinning_test.sh ACCOUNT SHIM PROGRAM (tests/programs/hello)
. "$(dirname "$0")/common.sh"
account=$1
shim=$2
program=$3

as_nobody mkfifo "$nobody_dir/fifo"
started=$(date +%s%N)
timeout 10 "$account" run -q -o "$nobody_dir/fifo" -- true 2>"$work/fifo.err" && fail "a FIFO was taken"
ms=$(( ($(date +%s%N) - started) / 1000000 ))
[ "$ms" -lt 2000 ] || fail "run -o FIFO took $ms ms"
[ "$(cat "$work/fifo.err")" = "account: run: cannot write -o $nobody_dir/fifo: a FIFO or socket with no reader (refused: it would block)" ] ||
  fail "fifo: $(cat "$work/fifo.err")"

# The run's temporary output, as the command saw it.
TMPDIR=$nobody_dir "$account" run -q -- sh -c 'echo "$ACCOUNT_OUTPUT $ACCOUNT_OUTPUT_ID" >"$0"' "$work/env" ||
  fail "the run failed"
read -r output id <"$work/env"
case $output in "$nobody_dir"/account-run-*.jsonl) ;; *) fail "temporary output: $output" ;; esac
[ ! -e "$output" ] || fail "the run left its temporary output"
expr "$id" : '[0-9]*:[0-9]*$' >/dev/null || fail "ACCOUNT_OUTPUT_ID: $id"

escaped() {  # a root process of the run that outlived it
  env LD_PRELOAD="$shim" ACCOUNT_OUTPUT="$output" ACCOUNT_OUTPUT_ID="$id" "$program" late 0 \
    >/dev/null 2>"$work/escaped.err"
}
escaped
[ ! -e "$output" ] || fail "an escaped process re-created the run's output"
as_nobody sh -c 'umask 0; : >"$0"' "$output"
escaped
[ ! -s "$output" ] || fail "root wrote into nobody's file: $(cat "$output")"
[ "$(stat -c %U "$output")" = nobody ] || fail "owner changed"
# Refused as another file than the run's, or, where the file system gave the
# new file the inode number of the run's removed one (ext4 and tmpfs hand
# freed numbers out again), as another user's.
refused="account: cannot write records to ACCOUNT_OUTPUT=$output:"
{ grep -qx "$refused it is not the file account run made (the run is over; refused); this process is not recorded" "$work/escaped.err" ||
  grep -qx "$refused it is owned by another user (refused); this process is not recorded" "$work/escaped.err"; } ||
  fail "escaped: $(cat "$work/escaped.err")"

# The run's own figures are still written (the output pinned to its file).
"$account" run -q -o "$work/records.jsonl" --test pinned -- "$program" run 0 >/dev/null 2>&1 || fail "run"
[ "$(grep -c '"kind":"process".*"test":"pinned"' "$work/records.jsonl")" -eq 1 ] ||
  fail "records: $(cat "$work/records.jsonl")"
echo ok
