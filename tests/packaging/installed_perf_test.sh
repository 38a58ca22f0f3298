#!/usr/bin/env bash
# usage: installed_perf_test.sh BUILD_DIR
# perf-test.sh as cmake --install puts it (PREFIX/share/account/perf-tests) runs
# at quick scale and finds PREFIX/bin/account by itself: no --account, no
# $ACCOUNT, and an `account` first in PATH that fails if it is used.
set -euo pipefail
build=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
mkdir "$tmp/decoy"
printf '#!/bin/sh\necho "the account in PATH was used" >&2\nexit 99\n' >"$tmp/decoy/account"
chmod +x "$tmp/decoy/account"

unset ACCOUNT ACCOUNT_LIB
PATH=$tmp/decoy:$PATH "$tmp/prefix/share/account/perf-tests/perf-test.sh" --scale quick \
  --only zero_small -q -o "$tmp/rec.jsonl" >"$tmp/table" 2>"$tmp/err" ||
  fail "installed perf-test.sh exited $?: $(tail -5 "$tmp/err")"
for op in "add files" commit checkout serve pull; do
  grep -q "^zero_small  *$op " "$tmp/table" || fail "no row 'zero_small $op': $(cat "$tmp/table")"
  # One tree record per operation from the installed account run, and git's
  # processes counted by the installed shim.
  [ "$(grep -c "\"kind\":\"tree\",\"test\":\"zero_small\",\"op\":\"$op\"" "$tmp/rec.jsonl")" -eq 1 ] ||
    fail "not one tree record for zero_small $op in $tmp/rec.jsonl"
  grep -q "\"kind\":\"process\".*\"exe\":\"[^\"]*/git[^\"]*\".*\"test\":\"zero_small\",\"op\":\"$op\".*\"malloc_calls\":[1-9]" \
    "$tmp/rec.jsonl" || fail "no git process with counted mallocs for zero_small $op"
done
echo ok
