#!/usr/bin/env bash
# overhead.sh given --build as a relative path, as a user types it: the git
# workload, which runs in its own work tree, still finds the shim and account.
# (With a relative path, account run's git rows failed with status 127.)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
BUILD=${1:?usage: overhead_relative_build_test.sh BUILD_DIR PERF_TESTS_DIR}
PERF=${2:?usage: overhead_relative_build_test.sh BUILD_DIR PERF_TESTS_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$(dirname "$BUILD")"
"$PERF/overhead.sh" --quick --only "git add" --tools "account run" --runs 1 \
  --build "$(basename "$BUILD")" --work "$tmp/work" >"$tmp/out" 2>"$tmp/err" ||
  fail "overhead.sh exited $?: $(tail -3 "$tmp/err")"
if grep -h "failed (status" "$tmp/out" "$tmp/err"; then fail "a workload failed under account run"; fi
# git add and git commit: one record each, one tree record per step's run.
grep -Eq '^\| git add\+commit \| account run \| 2 \|' "$tmp/out" ||
  fail "account run's git add+commit did not give 2 records a run: $(grep -F 'git add' "$tmp/out")"
echo ok
