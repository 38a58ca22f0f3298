#!/usr/bin/env bash
# Bad usage: exit 1 and one clear line on stderr, nothing run.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
ACCOUNT=${1:?usage: usage_test.sh ACCOUNT PERF_TESTS_DIR}
PERF=${2:?usage: usage_test.sh ACCOUNT PERF_TESTS_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
expect_error() {  # PATTERN SCRIPT ARGS...
  local pattern=$1 status=0
  shift
  "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
  [ "$status" -eq 1 ] || fail "$* exited $status, not 1"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "$*: not one line on stderr: $(cat "$tmp/err")"
  grep -q -- "$pattern" "$tmp/err" || fail "$*: '$(cat "$tmp/err")' does not say '$pattern'"
}
for s in perf-test.sh accounts-test.sh; do
  expect_error 'unknown argument' "$PERF/$s" --account "$ACCOUNT" --bogus
  expect_error 'needs a value' "$PERF/$s" --account "$ACCOUNT" --git
  expect_error 'not an executable' "$PERF/$s" --account "$ACCOUNT" --git /nonexistent/git
  expect_error 'not an executable' "$PERF/$s" --account /nonexistent/account
  "$PERF/$s" --help | grep -q "usage: $s" || fail "$s --help"
done
expect_error 'use quick or full' "$PERF/perf-test.sh" --account "$ACCOUNT" --scale huge
expect_error "unknown test 'nope'" "$PERF/perf-test.sh" --account "$ACCOUNT" --only zero_small,nope
expect_error 'a number of at least 1' "$PERF/perf-test.sh" --account "$ACCOUNT" --rounds 0
expect_error "two builds are named" "$PERF/perf-test.sh" --account "$ACCOUNT" --git git --git git
expect_error '2 names for 1 --git builds' "$PERF/perf-test.sh" --account "$ACCOUNT" --git git --names a,b
expect_error "only -c KEY=VALUE" "$PERF/perf-test.sh" --account "$ACCOUNT" --build 'x=git --bare'
expect_error 'needs two builds' "$PERF/perf-test.sh" --account "$ACCOUNT" --fail-on cpu=5%
expect_error 'needs --vs' "$PERF/accounts-test.sh" --account "$ACCOUNT" --fail-on cpu=5%
expect_error 'use loose or packed' "$PERF/accounts-test.sh" --account "$ACCOUNT" --refs both
expect_error 'a number' "$PERF/accounts-test.sh" --account "$ACCOUNT" --users x
expect_error 'at least' "$PERF/accounts-test.sh" --account "$ACCOUNT" --users 5
# git that fails: the failing command and its stderr, exit 1.
cat >"$tmp/git" <<'FAKE'
#!/bin/sh
case "$1" in --version) echo "git version 0" ;; *) echo "fake git: broken" >&2; exit 3 ;; esac
FAKE
chmod +x "$tmp/git"
status=0
(cd "$tmp" && "$PERF/perf-test.sh" --account "$ACCOUNT" --git "$tmp/git" --only zero_small -o "$tmp/r.jsonl") \
  >/dev/null 2>"$tmp/err" || status=$?
[ "$status" -eq 1 ] || fail "perf-test.sh with a broken git exited $status: $(cat "$tmp/err")"
grep -q 'fake git: broken' "$tmp/err" || fail "the failing git's stderr is not shown: $(cat "$tmp/err")"
echo "ok: bad usage gives exit 1 and one line"
