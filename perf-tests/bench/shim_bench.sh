#!/bin/bash
# Per-call cost of the shim: runs shim_bench bare and with LD_PRELOAD=libaccount.so,
# alternating (bare, shim, bare, shim, ...), and prints the median ns per call of
# each next to the difference. See docs/overhead.md.
#
# usage: perf-tests/bench/shim_bench.sh [--build DIR] [--rounds N] [--min-time S]
#                                      [--variant NAME=LIB]...
#   --variant  also run preloaded with another library (a prototype of the shim),
#              interleaved with the others; the build's libforward_only.so (the
#              floor: forwards, counts nothing) always runs as "forward-only"
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$(dirname "$here")")
build=$top/build-bench
rounds=3
min_time=0.3
variants=()
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --min-time) min_time=$2; shift 2 ;;
    --variant) variants+=("$2"); shift 2 ;;
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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
floor=$build/perf-tests/libforward_only.so
if [ -f "$floor" ]; then variants=("forward-only=$floor" "${variants[@]}"); fi
variants=("account=$shim" "${variants[@]}")
names=bare
for v in "${variants[@]}"; do names="$names ${v%%=*}"; done
for r in $(seq "$rounds"); do
  "$bench" --benchmark_min_time="$mt" --benchmark_out="$out/bare.$r.json" \
    --benchmark_out_format=json >/dev/null 2>>"$out/stderr"
  for v in "${variants[@]}"; do
    LD_PRELOAD=${v#*=} ACCOUNT_OUTPUT=$out/account.jsonl "$bench" --benchmark_min_time="$mt" \
      --benchmark_out="$out/${v%%=*}.$r.json" --benchmark_out_format=json >/dev/null \
      2>>"$out/stderr"
  done
done
/usr/bin/python3 - "$out" "$rounds" $names <<'PY'
import json, statistics, sys
out, rounds, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def load(kind):
    runs = {}
    ctx = None
    for r in range(1, rounds + 1):
        d = json.load(open("%s/%s.%d.json" % (out, kind, r)))
        ctx = d["context"]
        for b in d["benchmarks"]:
            runs.setdefault(b["name"], []).append(b["real_time"])
    return runs, ctx
res = {}
for n in names:
    res[n], ctx = load(n)
print("# shim_bench: median of %d rounds alternating %s; %s, %d CPUs, load %s" %
      (rounds, ", ".join(names), ctx.get("date", "?"), ctx.get("num_cpus", 0),
       " ".join("%.2f" % x for x in ctx.get("load_avg", []))))
print()
print("| benchmark | bare ns/call | " +
      " | ".join("%s ns/call | %s - bare" % (n, n) for n in names[1:]) + " |")
print("|---|---:|" + "---:|---:|" * (len(names) - 1))
for name, times in res["bare"].items():
    b = statistics.median(times)
    cells = []
    for n in names[1:]:
        s = statistics.median(res[n][name])
        cells.append("%.1f | %+.1f (%.2f×)" % (s, s - b, s / b))
    print("| %s | %.1f | %s |" % (name.replace("/real_time", ""), b, " | ".join(cells)))
PY
echo
echo "(raw Google Benchmark JSON in $out)"
