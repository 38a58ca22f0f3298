#!/bin/bash
# What the shim costs one process start, interleaved start by start
# (bench/start_pairs.c): /bin/true bare, with an empty preload library, with
# the shim (sampling on and off), and, inside one account run, bare and with
# the run's shim. Each line is a median over the starts and its ratio to the
# first line of its table. Then the kernel's steps of a start and an end
# (bench/start_steps.c), timed in fresh processes. See docs/overhead.md
# ("Process starts", "Where a start's time goes").
#
# usage: perf-tests/start-pairs.sh [--starts N] [--build DIR] [--variant NAME=LIB]...
#   --starts N         starts per variant (default 3000; about 3 min in all)
#   --build DIR        a build with libaccount.so and the account tool
#                      (default: build-bench, else build, in the source tree)
#   --variant NAME=LIB also a prototype of the shim, in both tables
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
starts=3000
build=
extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --starts) starts=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --variant) extra+=("$2"); shift 2 ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "start-pairs.sh: unknown option $1 (try --help)" >&2; exit 1 ;;
  esac
done
# shellcheck source=lib/bench_build.sh
. "$here/lib/bench_build.sh"
bench_build start-pairs.sh "$top" "$build"
shim=$SHIM account=$ACCOUNT

work=$(mktemp -d /tmp/account-start-pairs.XXXXXX)
shm=$(mktemp -d /dev/shm/account-start-steps.XXXXXX)
trap 'rm -rf "$work" "$shm"' EXIT
cc=${CC:-cc}
"$cc" -O2 -Wall -Wextra -o "$work/start_pairs" "$here/bench/start_pairs.c"
"$cc" -O2 -Wall -Wextra -o "$work/start_steps" "$here/bench/start_steps.c"
"$cc" -O2 -Wall -Wextra -shared -fPIC -o "$work/libempty_preload.so" "$here/bench/empty_preload.c"

echo "# start pairs, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)," \
  "source $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo '?'), $starts starts a variant"
echo "## standalone: LD_PRELOAD, records to a file"
standalone=()
for v in "${extra[@]}"; do standalone+=("${v%%=*}@${v#*=}"); done
START_PAIRS_OUTPUT=$work/records.jsonl "$work/start_pairs" "$starts" bare \
  "empty preload@$work/libempty_preload.so" "account@$shim" \
  "account sampling off@$shim:ACCOUNT_SAMPLE_MS=0" "${standalone[@]}"
echo "## inside one account run: its environment (ACCOUNT_RUN_DIR, ...), bare without its shim"
# A prototype inside the run keeps the run's variables: only LD_PRELOAD differs.
inside=()
for v in "${extra[@]}"; do inside+=("${v%%=*}@inherit=${v#*=}"); done
"$account" run -q -o "$work/run.jsonl" -- "$work/start_pairs" "$starts" bare \
  "empty preload@inherit=$work/libempty_preload.so" "account run@inherit" "${inside[@]}"
echo "## the kernel's steps in a fresh process (the image file on /dev/shm, as account run's)"
"$work/start_steps" 400 "$shm/steps"
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
