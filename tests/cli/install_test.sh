#!/bin/sh
# cmake --install puts account in bin/, libaccount.so in lib/ and
# account-guard in libexec/, and the installed account finds its shim and its
# guard relative to itself (no ACCOUNT_LIB, no "no guard" line).
set -eu
build=$1
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
test -x "$prefix/bin/account"
test -f "$prefix/lib/libaccount.so" || test -f "$prefix/lib64/libaccount.so"
test -x "$prefix/libexec/account-guard"
unset ACCOUNT_LIB
"$prefix/bin/account" run -q -o "$prefix/r.jsonl" --test install --op true -- sh -c 'exit 7' 2>"$prefix/err" && exit 1
status=$?
[ "$status" -eq 7 ] || { echo "expected exit 7, got $status"; exit 1; }
grep "account run" "$prefix/err" | grep -v "cgroup" && { echo "the installed run said the above"; exit 1; }
# One record for sh, one tree record, both labelled.
[ "$(grep -c '"test":"install","op":"true"' "$prefix/r.jsonl")" -eq 2 ] || { cat "$prefix/r.jsonl"; exit 1; }
grep -q '"kind":"tree".*"exit_code":7' "$prefix/r.jsonl"
echo ok
