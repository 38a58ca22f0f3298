#!/usr/bin/env bash
# Installs what is missing, builds, and runs the main job: Monotone's perf-test
# ported to git (perf-tests/perf-test.sh) at quick scale — data sets added,
# committed, checked out, served by git daemon and pulled, every operation under
# `account run` — and prints the per-operation table. Records go to
# perf-test-quick.jsonl in the current directory.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ACCOUNT_DEPS=build "$root/scripts/build.sh" >/dev/null
export ACCOUNT="${ACCOUNT_BUILD_DIR:-$root/build}/cli/account"
exec "$root/perf-tests/perf-test.sh" --scale quick --account "$ACCOUNT" "$@"
