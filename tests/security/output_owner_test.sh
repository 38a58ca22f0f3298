#!/bin/sh
# A file another user made at root's output gets none of root's records: a
# root `account run -o` refuses it at start, and the shim, given it as the
# run's pinned output, writes nothing into it (owner is not its effective uid),
# nor does it inside a user namespace where both owners show as 65534. The
# file a process made as the user it became after its exec is its own.
# Usage: output_owner_test.sh ACCOUNT SHIM PROGRAM
. "$(dirname "$0")/common.sh"
account=$1
shim=$2
program=$3
shared=$work/shared
mkdir -m 1777 "$shared"
planted=$shared/records.jsonl
as_nobody sh -c ': >"$1"; chmod 0666 "$1"' sh "$planted"

"$account" run -q -o "$planted" -- "$program" >/dev/null 2>"$work/err" && fail "run accepted nobody's file"
[ "$(cat "$work/err")" = "account: run: -o $planted is owned by another user (uid 65534): refused" ] ||
  fail "not the one line: $(cat "$work/err")"
[ ! -s "$planted" ] || fail "written: $(cat "$planted")"

# The shim, as a process of a run whose pinned output is nobody's file.
id=$(stat -c '%d:%i' "$planted")
env LD_PRELOAD="$shim" ACCOUNT_OUTPUT="$planted" ACCOUNT_OUTPUT_ID="$id" "$program" \
  >/dev/null 2>"$work/err" || fail "the program failed"
grep -qxF "account: cannot write records to ACCOUNT_OUTPUT=$planted: it is owned by another user (refused); this process is not recorded" "$work/err" ||
  fail "not the line: $(cat "$work/err")"
[ ! -s "$planted" ] || fail "the shim wrote: $(cat "$planted")"

# Root's own pinned file gets the record.
own=$work/own.jsonl
: >"$own"
env LD_PRELOAD="$shim" ACCOUNT_OUTPUT="$own" ACCOUNT_OUTPUT_ID="$(stat -c '%d:%i' "$own")" "$program" \
  >/dev/null 2>"$work/err" || fail "the program failed"
[ "$(grep -c '"kind":"process"' "$own")" -eq 1 ] || fail "root's own record: $(cat "$own") $(cat "$work/err")"

# A root image that forks, drops root in the child and execs (runuser, su)
# leaves the child's exec record to the child, now nobody. With a per-process
# output in a shared directory the child makes its file as nobody: that file
# is its own, so its exec record goes into it, then the program's, and
# nothing is said. runuser's own record is in root's file of its pid.
perpid=$shared/per-pid
mkdir -m 1777 "$perpid"
# Copies where nobody can read and run them, wherever the build is.
cp "$program" "$work/program"
cp "$shim" "$work/libaccount.so"
"$work/program" >/dev/null 2>"$work/bare_err"
env LD_PRELOAD="$work/libaccount.so" ACCOUNT_OUTPUT="$perpid/r-%p.jsonl" \
  runuser -u nobody -- "$work/program" >/dev/null 2>"$work/err" ||
  fail "runuser failed: $(cat "$work/err")"
cmp -s "$work/bare_err" "$work/err" || fail "said: $(cat "$work/err")"
[ "$(ls "$perpid" | wc -l)" -eq 2 ] || fail "not two files: $(ls -l "$perpid")"
childs=$(find "$perpid" -user $nobody -name 'r-*.jsonl')
[ -n "$childs" ] || fail "no file of nobody's: $(ls -l "$perpid")"
[ "$(grep -c '"exe":"/usr/sbin/runuser".*"end":"exec"' "$childs")" -eq 1 ] ||
  fail "no exec record of runuser's child: $(cat "$childs")"
[ "$(grep -c '"kind":"process"' "$childs")" -eq 2 ] || fail "not 2 records: $(cat "$childs")"
[ "$(find "$perpid" -user 0 -name 'r-*.jsonl' -exec grep -c '"end":"exit"' {} +)" -eq 1 ] ||
  fail "not runuser's record in root's file: $(ls -l "$perpid")"

# In a user namespace that maps no uid (`unshare -U`), root's file and
# nobody's both show the owner 65534: the kernel's owner test tells them apart.
# Root's own file gets every image's record, that of unshare after its
# unshare(2) too, and nothing is said.
userns=$work/userns.jsonl
"$program" >/dev/null 2>"$work/bare_err"
env LD_PRELOAD="$shim" ACCOUNT_OUTPUT="$userns" unshare -U "$program" >/dev/null 2>"$work/err" ||
  fail "unshare -U failed: $(cat "$work/err")"
cmp -s "$work/bare_err" "$work/err" || fail "said: $(cat "$work/err")"
[ "$(grep -c '"exe":"/usr/bin/unshare".*"end":"exec"' "$userns")" -eq 1 ] ||
  fail "no exec record of unshare: $(cat "$userns")"
[ "$(grep -c '"kind":"process"' "$userns")" -eq 2 ] || fail "not 2 records: $(cat "$userns")"
# Nobody's file gets none: not from unshare, refused at its start, nor from
# the image exec'd inside the namespace, whose effective uid shows as 65534.
env LD_PRELOAD="$shim" ACCOUNT_OUTPUT="$planted" unshare -U "$program" >/dev/null 2>"$work/err" ||
  fail "unshare -U failed: $(cat "$work/err")"
[ ! -s "$planted" ] || fail "written inside the namespace: $(cat "$planted")"
[ "$(grep -cxF "account: cannot write records to ACCOUNT_OUTPUT=$planted: it is owned by another user (refused); this process is not recorded" "$work/err")" -eq 2 ] ||
  fail "not the line, once an image: $(cat "$work/err")"
[ "$(grep -cvxF "account: cannot write records to ACCOUNT_OUTPUT=$planted: it is owned by another user (refused); this process is not recorded" "$work/err")" -eq "$(wc -l <"$work/bare_err")" ] ||
  fail "more said: $(cat "$work/err")"
echo ok
