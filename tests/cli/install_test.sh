#!/bin/sh
# cmake --install puts account in bin/ and libaccount.so in lib/, and the
# installed account finds its shim relative to itself (no ACCOUNT_LIB).
set -eu
build=$1
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
test -x "$prefix/bin/account"
test -f "$prefix/lib/libaccount.so" || test -f "$prefix/lib64/libaccount.so"
unset ACCOUNT_LIB
"$prefix/bin/account" run -q -o "$prefix/r.jsonl" --test install --op true -- sh -c 'exit 7' && exit 1
status=$?
[ "$status" -eq 7 ] || { echo "expected exit 7, got $status"; exit 1; }
# One record for sh, one tree record, both labelled.
[ "$(grep -c '"test":"install","op":"true"' "$prefix/r.jsonl")" -eq 2 ] || { cat "$prefix/r.jsonl"; exit 1; }
grep -q '"kind":"tree".*"exit_code":7' "$prefix/r.jsonl"
echo ok
