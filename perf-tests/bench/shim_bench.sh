#!/bin/bash
# Per-call cost of the shim: runs shim_bench bare and with LD_PRELOAD=libaccount.so,
# alternating (bare, shim, bare, shim, ...), and prints the median ns per call of
# each next to the difference. See docs/overhead.md.
#
# usage: perf-tests/bench/shim_bench.sh [--build DIR] [--rounds N] [--min-time S]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$(dirname "$here")")
build=$top/build-bench
rounds=3
min_time=0.3
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --min-time) min_time=$2; shift 2 ;;
    -h|--help) sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "shim_bench.sh: unknown option $1 (try --help)" >&2; exit 1 ;;
  esac
done
bench=$build/perf-tests/shim_bench
shim=$build/libaccount/libaccount.so
if [ ! -x "$bench" ] || [ ! -f "$shim" ]; then
  echo "shim_bench.sh: build first: cmake -S $top -B $build -DACCOUNT_BUILD_BENCHMARKS=ON" \
    "&& make -C $build -j2 shim_bench" >&2
  exit 1
fi
out=$(mktemp -d /tmp/shim-bench.XXXXXX)
# Newer Google Benchmark wants a unit on --benchmark_min_time; 1.7 rejects one.
mt=$min_time
if "$bench" --benchmark_list_tests --benchmark_min_time=1s >/dev/null 2>&1; then mt=${min_time}s; fi
for r in $(seq "$rounds"); do
  "$bench" --benchmark_min_time="$mt" --benchmark_out="$out/bare.$r.json" \
    --benchmark_out_format=json >/dev/null 2>>"$out/stderr"
  LD_PRELOAD=$shim ACCOUNT_OUTPUT=$out/account.jsonl "$bench" --benchmark_min_time="$mt" \
    --benchmark_out="$out/shim.$r.json" --benchmark_out_format=json >/dev/null 2>>"$out/stderr"
done
/usr/bin/python3 - "$out" "$rounds" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def load(kind):
    runs = {}
    ctx = None
    for r in range(1, rounds + 1):
        d = json.load(open("%s/%s.%d.json" % (out, kind, r)))
        ctx = d["context"]
        for b in d["benchmarks"]:
            runs.setdefault(b["name"], []).append(b["real_time"])
    return runs, ctx
bare, ctx = load("bare")
shim, _ = load("shim")
print("# shim_bench: %d rounds alternating bare/preloaded, %s, %d CPUs, load %s" %
      (rounds, ctx.get("date", "?"), ctx.get("num_cpus", 0),
       ctx.get("load_avg", "?")))
print()
print("| benchmark | bare ns/call | shim ns/call | shim - bare | ratio |")
print("|---|---:|---:|---:|---:|")
for name, times in bare.items():
    b = statistics.median(times)
    s = statistics.median(shim[name])
    print("| %s | %.1f | %.1f | %+.1f | %.2f× |" % (name, b, s, s - b, s / b))
PY
echo
echo "(raw Google Benchmark JSON in $out)"
