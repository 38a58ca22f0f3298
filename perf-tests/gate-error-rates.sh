#!/usr/bin/env bash
# gate-error-rates.sh: how often account compare's gate cries wolf, and how
# often it catches a real regression (issue 33, point 8). A benchmark that
# prints rates, not a test: CI does not run it.
#
# usage: gate-error-rates.sh [--trials N] [--runs N] [--ops N] [--noise PCT]
#                            [--change PCT] [--fail-on SPEC] [--seed S] [--account PATH]
#
# Each trial writes three record files of --ops operations (default 45, the
# size of perf-test.sh's table), --runs runs each (default 10), every run's CPU
# and wall drawn independently around the operation's own mean with --noise
# percent of normal noise (default 10): A, a second draw of A (A/A), and a draw
# in which one operation's CPU is --change percent higher (default 15: A/B).
# It runs the real `account compare A X --fail-on SPEC` (default
# cpu=5%,wall=5%) on both pairs and counts exit status 3 (for A/B: with a
# regression line for the slower operation's CPU). Prints the A/A
# false-alarm rate and the A/B catch rate, each with its 95 % Wilson interval,
# over --trials trials (default 300). Targets: A/A at most 5 %, A/B at least 80 %.
set -euo pipefail

PROG=gate-error-rates.sh
LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/lib" && pwd)
# shellcheck source=lib/common.sh
. "$LIB_DIR/common.sh"

trials=300 runs=10 ops=45 noise=10 change=15 fail_on=cpu=5%,wall=5% seed=1 account_path=''
while [ $# -gt 0 ]; do
  case $1 in
    --trials | --runs | --ops | --noise | --change | --fail-on | --seed | --account)
      need_value "$1" $#
      case $1 in
        --trials) trials=$2 ;; --runs) runs=$2 ;; --ops) ops=$2 ;; --noise) noise=$2 ;;
        --change) change=$2 ;; --fail-on) fail_on=$2 ;; --seed) seed=$2 ;;
        --account) account_path=$2 ;;
      esac
      shift 2 ;;
    -h | --help) sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) usage_error "unknown option '$1'" ;;
  esac
done
find_account "$account_path"
command -v python3 >/dev/null || die "python3 not found (scripts/install-deps.sh installs it)"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/gate-rates.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# write_trial SEED: A, AA (a second draw of A) and AB (one operation's CPU
# +change %) into $WORK. Operation k's mean CPU is 0.05 * (1 + k % 9) s and its
# wall 1.5 times that, so operations differ as a real table's do.
write_trial() {
  python3 - "$WORK" "$1" "$ops" "$runs" "$noise" "$change" <<'PY'
import random, sys
work, seed, ops, runs, noise, change = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), \
    int(sys.argv[4]), float(sys.argv[5]) / 100, float(sys.argv[6]) / 100
rng = random.Random(seed)
def draw(mean):
    return mean * max(0.05, 1 + noise * rng.gauss(0, 1))
def write(name, slower_op):
    with open(f"{work}/{name}.jsonl", "w") as f:
        t = 10**12
        for k in range(ops):
            cpu0 = 0.05 * (1 + k % 9)
            for run in range(1, runs + 1):
                cpu = draw(cpu0 * (1 + change if k == slower_op else 1))
                wall = draw(1.5 * cpu0)
                t += 10**10
                end = t + int(wall * 1e9)
                f.write('{"schema":1,"kind":"process","pid":%d,"ppid":1,"exe":"/usr/bin/git",'
                        '"argv":["git"],"test":"gate","op":"op%02d","start_ns":%d,"end_ns":%d,'
                        '"cpu_user_s":%.6f,"cpu_sys_s":0,"malloc_bytes":1048576,"malloc_calls":1,'
                        '"free_calls":1,"copied_bytes":0,"copied_calls":0,"heap_peak_bytes":4096,'
                        '"vm_peak_bytes":10485760,"rss_peak_bytes":5242880,'
                        '"sampled_size_peak_bytes":0,"sampled_rss_peak_bytes":0,"samples":1,'
                        '"end":"exit","exit_code":0}\n' % (1000 + run, k, t + 1, end - 1, cpu))
                f.write('{"schema":1,"kind":"tree","test":"gate","op":"op%02d","run":%d,'
                        '"start_ns":%d,"end_ns":%d,"processes":1,"sampled_size_peak_bytes":0,'
                        '"sampled_rss_peak_bytes":0,"samples":1,"exit_code":0}\n'
                        % (k, run, t, end))
write("a", -1)
write("aa", -1)
write("ab", 0)
PY
}

# gate FILE: account compare against A; its exit status in $status (3: the
# gate failed), its stderr in $WORK/err.
gate() {
  status=0
  "$ACCOUNT" compare "$WORK/a.jsonl" "$WORK/$1.jsonl" --names a,b --fail-on "$fail_on" \
    >/dev/null 2>"$WORK/err" || status=$?
  case $status in
    0 | 3) ;;
    *) die "account compare exited $status: $(head -3 "$WORK/err")" ;;
  esac
}

# wilson K N: "K of N = P % (95 % interval LO-HI %)".
wilson() {
  awk -v k="$1" -v n="$2" 'BEGIN {
    z = 1.959964; p = k / n; d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d; h = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    printf "%d of %d = %.1f %% (95 %% interval %.1f-%.1f %%)", k, n, 100 * p, 100 * (c - h), 100 * (c + h)
  }'
}

start=$SECONDS
false_alarms=0 caught=0
for ((t = 0; t < trials; t++)); do
  write_trial $((seed * 1000003 + t))
  gate aa
  [ "$status" != 3 ] || false_alarms=$((false_alarms + 1))
  # Caught: the gate fails on the slower operation's CPU (not on noise elsewhere).
  gate ab
  if [ "$status" = 3 ] && grep -q "regression: gate/op00: b vs a: cpu " "$WORK/err"; then
    caught=$((caught + 1))
  fi
done
echo "gate --fail-on $fail_on: $ops operations, $runs runs a side, ${noise}% noise, $trials trials ($((SECONDS - start)) s)"
echo "A/A false alarms:          $(wilson "$false_alarms" "$trials")   target: at most 5 %"
echo "A/B +${change}% CPU caught:     $(wilson "$caught" "$trials")   target: at least 80 %"
