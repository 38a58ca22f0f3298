#!/bin/bash
# The per-call cost table (issue 40.1): for each interposed entry point, the
# instructions a call executes (callgrind: deterministic, whatever the
# machine's load) and the nanoseconds it takes, bare, under the forward-only
# interposer (the floor any interposer pays) and under the shim. A call's
# figure is the difference between N calls and none, divided by N, counted
# inside the loop's function only (the start and the exit, whose record
# varies in length, stay out); free's is its loop's minus malloc's. The nanoseconds are
# medians of interleaved rounds (bare, forward-only, shim, bare, ...), of 20
# times as many calls (the growing-heap loops: as many).
# See docs/per-call-cost.md.
#
# usage: perf-tests/bench/per_call_cost.sh [--build DIR] [--calls N] [--rounds R]
#   --build DIR  a build with libaccount/libaccount.so (default: build-bench,
#                else build, in the source tree)
#   --calls N    calls per measured loop (default 200000 under callgrind,
#                20 times that for the wall clock)
#   --rounds R   interleaved rounds of the wall-clock loops (default 5; 0: none,
#                the nanosecond columns then read "–")
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$(dirname "$here")")
build=
calls=200000
rounds=5
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --calls) calls=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "per_call_cost.sh: unknown option $1 (try --help)" >&2; exit 1 ;;
  esac
done
# shellcheck source=../lib/bench_build.sh
. "$top/perf-tests/lib/bench_build.sh"
bench_build per_call_cost.sh "$top" "$build"
shim=$SHIM
command -v valgrind >/dev/null || { echo "per_call_cost.sh: valgrind not found (scripts/install-deps.sh installs it)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/per-call-cost.XXXXXX")
trap 'rm -rf "$work"' EXIT
# Built here as the benchmarks' CMake targets build them: every call through the PLT.
cc -O2 -fno-builtin -o "$work/call_loop" "$here/call_loop.c"
cc -O2 -fno-plt -fno-tree-loop-distribute-patterns -shared -fPIC -o "$work/forward_only.so" \
  "$here/forward_only.c" -ldl
export ACCOUNT_OUTPUT=$work/records.jsonl ACCOUNT_SAMPLE_MS=0
entries="pair malloc free calloc realloc memcpy memmove mempcpy libc"
variants="bare forward-only account"
preload() {
  case $1 in
    bare) echo "" ;;
    forward-only) echo "$work/forward_only.so" ;;
    account) echo "$shim" ;;
  esac
}

# Instructions of one run: callgrind's count of user-space instructions inside
# call_loop_measured (the calls and what they call), not the start or the exit.
instructions() {  # VARIANT ENTRY N
  local log=$work/cg.$1.$2.$3.log
  LD_PRELOAD=$(preload "$1") valgrind --tool=callgrind --callgrind-out-file=/dev/null \
    --toggle-collect=call_loop_measured \
    "$work/call_loop" "$2" "$3" 2>"$log" || { echo "per_call_cost.sh: callgrind failed: $(tail -3 "$log")" >&2; exit 1; }
  sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$log"
}
# Seconds of one run, from a monotonic clock around it.
seconds() {  # VARIANT ENTRY N
  LD_PRELOAD=$(preload "$1") python3 -c '
import subprocess, sys, time
t = time.perf_counter()
subprocess.run(sys.argv[1:], check=True)
print(time.perf_counter() - t)' "$work/call_loop" "$2" "$3"
}

# The callgrind runs are independent and deterministic: one per core at once.
for v in $variants; do
  for e in $entries; do
    echo "$v $e 0"
    echo "$v $e $calls"
  done
done >"$work/runs"
export -f instructions preload
export work shim
xargs -P "$(nproc)" -L 1 bash -c 'set -euo pipefail; instructions "$0" "$1" "$2" >"$work/ir.$0.$1.$2"' \
  <"$work/runs" || { echo "per_call_cost.sh: a callgrind run failed" >&2; exit 1; }
for v in $variants; do
  for e in $entries; do
    echo "$v $e $(cat "$work/ir.$v.$e.0") $(cat "$work/ir.$v.$e.$calls")" >>"$work/ir"
  done
done
wall_calls=$((calls * 20))
: >"$work/wall"
for r in $(seq "$rounds"); do
  for e in $entries; do
    n=$wall_calls
    case $e in malloc|free) n=$calls ;; esac  # kept blocks: memory grows with n
    for v in $variants; do
      echo "$v $e $n $(seconds "$v" "$e" 0) $(seconds "$v" "$e" "$n")" >>"$work/wall"
    done
  done
done

python3 - "$work" "$calls" "$wall_calls" <<'PY'
import collections, statistics, sys
work, calls, wall_calls = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ir = {}
for line in open(work + "/ir"):
    v, e, zero, n = line.split()
    ir[v, e] = (int(n) - int(zero)) / calls
ns = collections.defaultdict(list)
for line in open(work + "/wall"):
    v, e, count, zero, n = line.split()
    ns[v, e].append((float(n) - float(zero)) / int(count) * 1e9)
ns = collections.defaultdict(lambda: float("nan"),
                             {k: statistics.median(x) for k, x in ns.items()})
# free's loop also mallocs: its own cost is the difference.
for v in ("bare", "forward-only", "account"):
    ir[v, "free"] -= ir[v, "malloc"]
    ns[v, "free"] -= ns[v, "malloc"]
entries = ["pair", "malloc", "free", "calloc", "realloc", "memcpy", "memmove", "mempcpy", "libc"]
names = {"pair": "malloc 64 B + free, steady heap (a pair)",
         "malloc": "malloc 64 B, growing heap (a new peak each)", "free": "free of those",
         "calloc": "calloc 64 B + free (a pair)", "realloc": "realloc 64<->200 B",
         "memcpy": "memcpy 64 B", "memmove": "memmove 64 B", "mempcpy": "mempcpy 64 B",
         "libc": "libc's own copy (fwrite 64 B)"}
print("| entry point | instructions bare | forward-only | shim | shim - forward-only |"
      " ns bare | ns forward-only | ns shim |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for e in entries:
    b, f, a = ir["bare", e], ir["forward-only", e], ir["account", e]
    nanos = " | ".join("–" if ns[v, e] != ns[v, e] else "%.1f" % ns[v, e]
                       for v in ("bare", "forward-only", "account"))
    print("| %s | %.1f | %+.1f | %+.1f | %+.1f | %s |" % (names[e], b, f - b, a - b, a - f, nanos))
pair = (ir["account", "pair"] - ir["forward-only", "pair"]) / 2
copy = ir["account", "memcpy"] - ir["forward-only", "memcpy"]
print()
print("shim beyond forwarding, mean of malloc and free (steady pair): %+.1f instructions a call "
      "(target 12)" % pair)
print("shim beyond forwarding, memcpy: %+.1f instructions a call (target 8)" % copy)
rounds = sum(1 for line in open(work + "/wall") if line.startswith("bare malloc "))
print("(%d calls under callgrind, %d on the clock, %d interleaved rounds)" % (
    calls, wall_calls, rounds))
PY
