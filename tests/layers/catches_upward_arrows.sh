#!/usr/bin/env bash
# usage: catches_upward_arrows.sh CHECKER
# The layer check against a made-up tree of two layers whose lower one
# includes a header of the upper one and links its library: both arrows are
# named, with file and line, and the check fails; the tree without them passes;
# a folder the build adds that no layer holds is named.
set -euo pipefail
checker=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/low" "$tmp/high/sub"
printf 'low\nhigh\nhigh/sub\n' >"$tmp/layers.txt"
printf 'add_subdirectory(low)\nadd_subdirectory(high)\n' >"$tmp/CMakeLists.txt"
printf '#pragma once\n' >"$tmp/high/top.h"
printf '#pragma once\n#include "top.h"\n' >"$tmp/high/sub/inner.h"
printf '#pragma once\n' >"$tmp/low/base.h"
printf '#include "base.h"\n#include "sub/inner.h"\nint f() { return 0; }\n' >"$tmp/low/a.cc"
printf 'add_library(low_lib a.cc)\ntarget_link_libraries(low_lib PRIVATE\n  high_lib)\n' \
  >"$tmp/low/CMakeLists.txt"
printf 'add_library(high_lib b.cc)\ntarget_link_libraries(high_lib PUBLIC low_lib)\n' \
  >"$tmp/high/CMakeLists.txt"

set +e
out=$(python3 "$checker" "$tmp" "$tmp/layers.txt" 2>/dev/null)
status=$?
set -e
expected='low/a.cc:2: low includes sub/inner.h of high/sub, a layer above it
low/CMakeLists.txt:2: low_lib (low) links high_lib of high, a layer above it'
if [ "$status" != 1 ] || [ "$out" != "$expected" ]; then
  echo "the check missed an upward arrow (exit $status):"
  echo "$out"
  exit 1
fi

# Without the two arrows (high/sub including high's header is downward) it passes.
printf '#include "base.h"\nint f() { return 0; }\n' >"$tmp/low/a.cc"
printf 'add_library(low_lib a.cc)\n' >"$tmp/low/CMakeLists.txt"
python3 "$checker" "$tmp" "$tmp/layers.txt" || { echo "a downward tree was refused"; exit 1; }

# A folder the build adds but the table does not place is named.
mkdir "$tmp/extra"
printf 'add_subdirectory(extra)\n' >>"$tmp/CMakeLists.txt"
set +e
out=$(python3 "$checker" "$tmp" "$tmp/layers.txt" 2>/dev/null)
status=$?
set -e
if [ "$status" != 1 ] || [ "$out" != "CMakeLists.txt:3: extra is in no layer of tests/layers/layers.txt" ]; then
  echo "an unplaced folder was not named (exit $status): $out"
  exit 1
fi
echo "both upward arrows and an unplaced folder caught; the downward tree passes"
