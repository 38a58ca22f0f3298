# shellcheck shell=bash
# Which build a benchmark measures (sourced by overhead.sh, start-pairs.sh and
# bench/per_call_cost.sh).

# bench_build PROG TOP [DIR]: sets BUILD to DIR, or else to the first of
# TOP/build-bench and TOP/build that holds libaccount.so, made absolute (it
# goes into LD_PRELOAD, read in other directories); SHIM to its libaccount.so
# and ACCOUNT to its account. Without them: one line saying how to build, and
# exit 1.
# shellcheck disable=SC2034  # BUILD, SHIM and ACCOUNT are for the caller
bench_build() {
  local prog=$1 top=$2 b
  BUILD=${3:-}
  if [ -z "$BUILD" ]; then
    for b in "$top/build-bench" "$top/build"; do
      if [ -f "$b/libaccount/libaccount.so" ]; then BUILD=$b; break; fi
    done
  fi
  if [ -z "$BUILD" ] || [ ! -f "$BUILD/libaccount/libaccount.so" ] || [ ! -x "$BUILD/cli/account" ]; then
    echo "$prog: no libaccount.so and account in '${BUILD:-$top/build-bench or $top/build}'; build first:" \
      "cmake -S $top -B $top/build-bench -DACCOUNT_BUILD_BENCHMARKS=ON && make -C $top/build-bench -j2" >&2
    exit 1
  fi
  BUILD=$(cd "$BUILD" && pwd)
  SHIM=$BUILD/libaccount/libaccount.so
  ACCOUNT=$BUILD/cli/account
}
