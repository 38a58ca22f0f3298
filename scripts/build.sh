#!/usr/bin/env bash
# Installs what is missing, then configures and builds account in build/ (or $ACCOUNT_BUILD_DIR).
# ACCOUNT_DEPS=build builds the tool alone (no tests) with only the packages that
# needs (scripts/demo.sh); the default builds the tests too.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
deps=${ACCOUNT_DEPS:-test}
"$root/scripts/install-deps.sh" "$deps"
tests=ON
[ "$deps" = build ] && tests=OFF
build=${ACCOUNT_BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DACCOUNT_BUILD_TESTS=$tests "$@" >/dev/null
cmake --build "$build" -j"$(nproc)"
