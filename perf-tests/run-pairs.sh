#!/bin/bash
# What account run itself costs one run, variant by variant in turn
# (bench/run_pairs.c): `account run -q -o /dev/null -- stamp`, where stamp
# notes the clock at its main's start and at its return. Three figures, in
# ms, each a median over the rounds with its quartiles and its ratio to the
# first variant's: from the spawn of account to the command's main, from the
# command's end to account's exit, and the whole run; last, the command
# alone (spawn to main, end to exit, whole). Once with the
# command's cgroup as on this machine (--cgroup=auto), once with
# --cgroup=off; last, where this build's time goes, stage by stage
# (bench/run_stages.c, ACCOUNT_RUN_STAGES_FD: cli/run_stages.h). See
# docs/overhead.md ("account run's own cost").
#
# usage: perf-tests/run-pairs.sh [--rounds N] [--build DIR] [--variant NAME=ACCOUNT]...
#   --rounds N          runs of each variant in each table (default 150; about 3 min in all)
#   --build DIR         a build with libaccount.so and the account tool
#                       (default: build-bench, else build, in the source tree)
#   --variant NAME=ACCOUNT  also another account binary (with its account-guard
#                       beside it), e.g. a build of an earlier commit
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
rounds=150
build=
extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --variant) extra+=("$2"); shift 2 ;;
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run-pairs.sh: unknown option $1 (try --help)" >&2; exit 1 ;;
  esac
done
case $rounds in
  '' | *[!0-9]* | 0) echo "run-pairs.sh: --rounds $rounds is not a positive number of runs" >&2; exit 1 ;;
esac
# shellcheck source=lib/bench_build.sh
. "$here/lib/bench_build.sh"
bench_build run-pairs.sh "$top" "$build"
for v in "${extra[@]}"; do
  case $v in
    *=*) [ -x "${v#*=}" ] || { echo "run-pairs.sh: --variant $v: no such program" >&2; exit 1; } ;;
    *) echo "run-pairs.sh: --variant $v is not NAME=ACCOUNT" >&2; exit 1 ;;
  esac
done

work=$(mktemp -d /tmp/account-run-pairs.XXXXXX)
trap 'rm -rf "$work"' EXIT
cc=${CC:-cc}
"$cc" -O2 -Wall -Wextra -o "$work/run_pairs" "$here/bench/run_pairs.c"
"$cc" -O2 -Wall -Wextra -o "$work/stamp" "$here/bench/stamp.c"
"$cc" -O2 -Wall -Wextra -o "$work/run_stages" "$here/bench/run_stages.c"

echo "# run pairs, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)," \
  "source $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo '?'), $rounds runs a variant"
# A variant's libaccount.so is the one beside its account, as installed.
for cgroup in auto off; do
  echo "## account run --cgroup=$cgroup -q -o /dev/null -- stamp"
  "$work/run_pairs" "$rounds" "$work/stamp" "$work/stamps" --cgroup=$cgroup -q -o /dev/null -- \
    "this build=$ACCOUNT" "${extra[@]}" "the command alone=-"
done
echo "## where this build's time goes: account run --cgroup=auto -q -o /dev/null -- stamp"
"$work/run_stages" "$rounds" "$work/stamp" "$work/stamps" "$ACCOUNT" --cgroup=auto -q -o /dev/null
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
