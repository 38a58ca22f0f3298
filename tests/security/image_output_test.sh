#!/bin/sh
# Issue 34.2: a process under a root `account run` rewrites the output path in
# its image file, drops to nobody and SIGKILLs itself. Its record must go to
# the run's own output, never to the path the image file names.
# Usage: image_output_test.sh ACCOUNT REWRITE_IMAGE_OUTPUT
. "$(dirname "$0")/common.sh"
account=$1
program=$2
mkdir -m 0700 "$work/run" "$work/pwn"  # same length: the path is rewritten in place
timeout 60 "$account" run -q -o "$work/run/records.jsonl" --test attack --op rewrite -- \
  "$program" "$work/pwn/records.jsonl" >"$work/out" 2>"$work/err" && fail "the program was not killed"
grep -qx 'rewrote [1-9][0-9]*' "$work/out" || fail "the attack found nothing to rewrite: $(cat "$work/out" "$work/err")"
[ ! -e "$work/pwn/records.jsonl" ] || fail "root wrote where the image file said: $(cat "$work/pwn/records.jsonl")"
# The run's figures: the killed process's record and the tree record, in the run's output.
grep -q '"kind":"process".*"test":"attack".*"signal":9,"written_by":"sampler"' \
  "$work/run/records.jsonl" || fail "no record of the killed process: $(cat "$work/run/records.jsonl")"
[ "$(grep -c '"kind":"tree"' "$work/run/records.jsonl")" -eq 1 ] || fail "tree record: $(cat "$work/run/records.jsonl")"
echo ok
