#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz) with clang in their own build
# directory and runs each on its corpus for SECONDS (default 60). New inputs
# found go to a scratch directory, not into the kept corpus; a crash leaves its
# input in the build directory and fails the script.
# Usage: scripts/fuzz.sh [SECONDS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
build=${ACCOUNT_FUZZ_BUILD_DIR:-$root/build-fuzz}
cc=${ACCOUNT_FUZZ_CC:-clang}
cxx=${ACCOUNT_FUZZ_CXX:-clang++}

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DACCOUNT_FUZZ=ON \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" >/dev/null
cmake --build "$build" -j"$(nproc)" --target fuzz_record fuzz_values

# The targets run side by side, one core each: the stage takes SECONDS, not
# SECONDS per target.
fuzz_one() {  # fuzz_one TARGET: runs it; its exit status says whether it crashed
  local target=$1 scratch
  scratch=$(mktemp -d)
  echo "fuzz: $target for ${seconds}s" >&2
  # One job; -max_total_time bounds it; the kept corpus is read-only input.
  local status=0
  (cd "$build" && "$build/tests/fuzz/fuzz_$target" -max_total_time="$seconds" \
    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    "$scratch" "$root/tests/fuzz/corpus/$target" 2>"$build/fuzz_$target.log") || status=1
  rm -rf "$scratch"
  return $status
}

targets=(record values)
pids=()
for target in "${targets[@]}"; do
  fuzz_one "$target" &
  pids+=($!)
done
status=0
for i in "${!targets[@]}"; do
  target=${targets[$i]}
  if ! wait "${pids[$i]}"; then
    tail -40 "$build/fuzz_$target.log" >&2
    echo "fuzz: $target FAILED (log: $build/fuzz_$target.log)" >&2
    status=1
  else
    grep -E "^stat::number_of_executed_units|^stat::new_units_added" "$build/fuzz_$target.log" \
      | sed "s/^/fuzz: $target /" >&2
  fi
done
exit $status
