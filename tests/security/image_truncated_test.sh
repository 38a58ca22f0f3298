#!/bin/sh
# A process under a root `account run` truncates its own image file (opened
# before it dropped to nobody) while the run's sampler has it mapped, then
# SIGKILLs itself. The sampler's next read of the mapping faulted (SIGBUS) and
# ended root's run, with no record written. Now the run ends as usual: one
# line says it, the process is counted without the shim (no record, figures
# unknown), and the other processes' records and the tree record are written.
# Usage: image_truncated_test.sh ACCOUNT TRUNCATE_IMAGE_FILE HELLO
. "$(dirname "$0")/common.sh"
account=$1
program=$2
hello=$3
rc=0
timeout 60 "$account" run -q -o "$work/records.jsonl" --test attack --op truncate -- \
  sh -c "'$hello' before; '$program'" >"$work/out" 2>"$work/err" || rc=$?
# sh returns its last command's status: 128 + SIGKILL. 135 (SIGBUS) was account run's own death.
[ $rc -eq 137 ] || fail "account run ended with $rc: $(cat "$work/err")"
grep -q '^truncated /' "$work/out" || fail "the attack did not run: $(cat "$work/out")"
# Besides hello's "note" and sh's word on its killed child: the one line.
[ "$(grep -c '^account' "$work/err")" -eq 1 ] &&
  grep -qx "account run: 1 process truncated its image file while the run read it: not recorded, counted as without the shim" "$work/err" ||
  fail "not the one line: $(cat "$work/err")"
records=$work/records.jsonl
[ "$(grep -c '"kind":"process"' "$records")" -eq 2 ] || fail "not sh's and hello's records alone: $(cat "$records")"
grep -q '"exe":"[^"]*hello".*"end":"exit","exit_code":0' "$records" || fail "hello's record: $(cat "$records")"
grep -q '"exe":"[^"]*sh".*"end":"exit","exit_code":137' "$records" || fail "sh's record: $(cat "$records")"
# sh, hello and the truncating process, which counts as one without the shim.
[ "$(grep -c '"kind":"tree".*"processes":3,"processes_without_shim":1,.*"exit_code":137,' "$records")" -eq 1 ] ||
  fail "the tree record: $(grep '"kind":"tree"' "$records")"
echo ok
