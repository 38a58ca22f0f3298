#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test. CI runs exactly this.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh"
build=${ACCOUNT_BUILD_DIR:-$root/build}
ctest --test-dir "$build" --output-on-failure -j2 --timeout 300
