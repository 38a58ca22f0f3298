#!/usr/bin/env bash
# history-bench.sh: how well account history finds a step in a figure that
# varies, and how often it finds one that is not there (issue 35, point 3).
# A benchmark that prints rates, not a test: CI does not run it.
#
# usage: history-bench.sh [--series N] [--commits N] [--runs N] [--noise PCT]
#                         [--step PCT] [--seed S] [--build DIR]
#
# Generates --series series (default 100) of --commits commits (60), --runs
# runs a commit (5), each run's CPU drawn with --noise percent of normal noise
# (2), stepping up by --step percent (3) at a commit drawn from the middle two
# thirds; and as many flat series. Each goes through history's own change-point
# rule (history/changes.h: E-Divisive with a permutation test). Prints the
# series whose step is found within one commit (target: at least 95 %) and the
# change points found in the flat series (target: at most 1).
# Builds history_bench in --build (default build-bench, configured with
# -DACCOUNT_BUILD_BENCHMARKS=ON) from the source tree this script is in.
set -euo pipefail
series=100 commits=60 runs=5 noise=2 step=3 seed=1
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$src/build-bench
while [ $# -gt 0 ]; do
  case $1 in
    --series) series=$2 ;; --commits) commits=$2 ;; --runs) runs=$2 ;; --noise) noise=$2 ;;
    --step) step=$2 ;; --seed) seed=$2 ;; --build) build=$2 ;;
    -h | --help) sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "history-bench.sh: unknown option '$1' (try --help)" >&2; exit 1 ;;
  esac
  [ $# -ge 2 ] || { echo "history-bench.sh: $1 needs a value" >&2; exit 1; }
  shift 2
done
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DACCOUNT_BUILD_BENCHMARKS=ON \
  -DACCOUNT_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" --target history_bench -j2 >/dev/null
"$build/history/history_bench" "$series" "$commits" "$runs" "$noise" "$step" "$seed"
