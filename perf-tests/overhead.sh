#!/bin/bash
# Overhead of account's shim next to glibc memusage, heaptrack, valgrind dhat and
# /usr/bin/time -v: wall-time and peak-RSS ratios to a bare run, interleaved.
# See docs/overhead.md for what the table means.
#
# usage: perf-tests/overhead.sh [--runs N] [--quick] [--build DIR] [--work DIR]
#                               [--only NAME[,NAME]] [--json FILE]
#   --runs N     timed rounds per workload (default 5; one more warm-up round is dropped)
#   --quick      a smoke test: sizes x0.4, 3 rounds, no valgrind (not for the docs)
#   --build DIR  a build with libaccount.so and the account tool
#                (default: build-bench, else build, in the source tree)
#   --work DIR   scratch space, about 300 MiB (default: a new directory under /tmp)
#   --only NAME  workloads whose name contains NAME (malloc, memcpy, git, python,
#                "git log -p": issue 17's stdio-heavy row, also measured with
#                ACCOUNT_LIBC_COPIES=0 as "account libc copies off",
#                process-starts: sh starting 1000 /bin/true, with issue 12's
#                targets; about a minute alone), "account run /bin/true" and
#                "git ls-remote" (issue 19: what one account run adds; select
#                both with --only true,ls-remote)
#   --tools T,T  only these tools (account, account run, memusage, heaptrack, time -v,
#                dhat, dhat copy, and variants; process starts also has
#                account sampling off and empty preload)
#   --variant NAME=LIB  also run the non-git workloads and git log -p with LD_PRELOAD=LIB (a
#                prototype of the shim), interleaved like the others; the build's
#                libforward_only.so (the floor: forwards, counts nothing) is
#                always one, as "forward-only", unless --no-floor (not on process
#                starts, whose floor is an empty preload library)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
runs=5
quick=
build=
work=
only=
json=
tools=
variants=()
no_floor=
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --quick) quick=--quick; shift ;;
    --build) build=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --json) json=$2; shift 2 ;;
    --tools) tools=$2; shift 2 ;;
    --variant) variants+=(--variant "$2"); shift 2 ;;
    --no-floor) no_floor=1; shift ;;
    -h|--help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "overhead.sh: unknown option $1 (try --help)" >&2; exit 1 ;;
  esac
done
if [ -n "$quick" ] && [ "$runs" = 5 ]; then runs=3; fi

# shellcheck source=lib/bench_build.sh
. "$here/lib/bench_build.sh"
bench_build overhead.sh "$top" "$build"
build=$BUILD shim=$SHIM account=$ACCOUNT

floor=$build/perf-tests/libforward_only.so
if [ -z "$no_floor" ] && [ -f "$floor" ]; then variants=(--variant "forward-only=$floor" "${variants[@]}"); fi

work=${work:-$(mktemp -d /tmp/account-overhead.XXXXXX)}
mkdir -p "$work/bin"

# The workloads: -O2 -fno-builtin so every copy and allocation is a PLT call.
cc=${CC:-cc}
for w in malloc_loop copy_loop run_timed; do
  "$cc" -O2 -fno-builtin -Wall -Wextra -pthread -o "$work/bin/$w" "$here/bench/$w.c"
done
# The floor of a sampler: account run's Ticker, from the build, with nothing to read.
"${CXX:-c++}" -std=c++20 -O2 -Wall -Wextra -I "$top/proc" -I "$top/libaccount" -o "$work/bin/idle_ticker" \
  "$here/bench/idle_ticker.cc" "$build/proc/libaccount_proc.a"
# The floor of the process-starts rows: a preload library with nothing in it.
"$cc" -O2 -Wall -Wextra -shared -fPIC -o "$work/bin/libempty_preload.so" "$here/bench/empty_preload.c"
if [ ! -d "$work/tree" ]; then
  echo "overhead.sh: generating the git tree (2000 files, ~50 MiB)" >&2
  "$here/bench/gen_tree.sh" "$work/tree" 2000 25
fi

echo "# account overhead, $(date -u +%Y-%m-%dT%H:%MZ) on $(uname -m), $(nproc) cores," \
  "$(ldd --version | head -1 | sed 's/.* //') glibc; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# shim: $shim (source $(git -C "$build" rev-parse --short HEAD 2>/dev/null || echo 'not a git checkout'))," \
  "heaptrack $(heaptrack --version 2>/dev/null | sed 's/.* //'), $(valgrind --version 2>/dev/null)"
/usr/bin/python3 "$here/bench/overhead.py" --runs "$runs" $quick --bin "$work/bin" \
  --work "$work" --shim "$shim" --account "$account" --tree "$work/tree" \
  --only "$only" --tools "$tools" ${json:+--json "$json"} "${variants[@]}"
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg); scratch: $work"
