#!/usr/bin/env bash
# html-report-bench.sh: how large the HTML report of many records gets and how
# long headless Chromium takes to load and render it (issue 13: under 10 MiB
# and 3 s for perf-test.sh --scale full). A benchmark that prints figures, not
# a test: CI does not time it.
#
# usage: html-report-bench.sh [--account PATH] [RECORDS.jsonl...]
#
# Without RECORDS, writes synthetic ones of the size of a large run: 45
# operations of 100 processes each (exec chains of two images) with a
# 2,000-sample timeline each, and one operation of 10,000 short processes
# (grouped by program beyond 60 rows). Prints the records' size, account
# report's time, the page's size, Chromium's time to load it and run its
# script (--dump-dom) and to paint it (--screenshot), each the best of three
# next to an empty page's (Chromium's start-up), the same measured inside a
# running Chromium over DevTools (lib/page_timing.py), and the load average.
set -euo pipefail

PROG=html-report-bench.sh
LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/lib" && pwd)
# shellcheck source=lib/common.sh
. "$LIB_DIR/common.sh"

account_path=''
files=()
while [ $# -gt 0 ]; do
  case $1 in
    --account) need_value "$1" $#; account_path=$2; shift 2 ;;
    -h | --help) sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) usage_error "unknown option '$1'" ;;
    *) files+=("$1"); shift ;;
  esac
done
find_account "$account_path"
command -v chromium >/dev/null || die "chromium not found (scripts/install-deps.sh installs it)"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/html-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

if [ ${#files[@]} -eq 0 ]; then
  awk -v ops=45 -v procs=100 -v samples=2000 -v many=10000 'BEGIN {
    t0 = 1700000000000000000; pid = 1000
    for (o = 1; o <= ops + 1; o++) {
      n = o <= ops ? procs : many
      k = o <= ops ? samples : 0
      start = t0 + o * 100000000000
      for (p = 0; p < n; p++) {
        s = start + p * 20000000; e = s + (k ? k * 5000000 : 3000000); pid++
        common = sprintf("\"ppid\":1,\"test\":\"bench\",\"op\":\"op%02d\",\"cpu_user_s\":0.01,\"cpu_sys_s\":0.01,\"malloc_bytes\":1048576,\"malloc_calls\":10,\"free_calls\":9,\"copied_bytes\":65536,\"copied_calls\":5,\"heap_peak_bytes\":1048576,\"vm_peak_bytes\":188743680,\"rss_peak_bytes\":62914560,\"sampled_size_peak_bytes\":188743680,\"sampled_rss_peak_bytes\":62914560,\"samples\":%d", o, k)
        printf "{\"schema\":1,\"kind\":\"process\",\"pid\":%d,%s,\"exe\":\"/bin/sh\",\"argv\":[\"sh\",\"-c\",\"git gc\"],\"start_ns\":%.0f,\"end_ns\":%.0f,\"end\":\"exec\"}\n", pid, common, s, s + 1000000
        printf "{\"schema\":1,\"kind\":\"process\",\"pid\":%d,%s,\"exe\":\"/usr/bin/git\",\"argv\":[\"git\",\"gc\",\"--auto\"],\"start_ns\":%.0f,\"end_ns\":%.0f,\"end\":\"exit\",\"exit_code\":0", pid, common, s + 1000000, e
        if (k) {
          # Written piece by piece: building the strings first is quadratic in awk.
          printf ",\"timeline\":{\"interval_ms\":5,\"samples_per_point\":1,\"t_ms\":["
          for (i = 0; i < k; i++) printf "%s%d", (i ? "," : ""), i * 5
          printf "],\"rss\":["
          for (i = 0; i < k; i++) printf "%s%d", (i ? "," : ""), 1048576 * (10 + (i * 7 + p) % 50)
          printf "],\"size\":["
          for (i = 0; i < k; i++) printf "%s%d", (i ? "," : ""), 1048576 * (100 + (i * 3 + p) % 80)
          printf "]}"
        }
        printf "}\n"
      }
    }
  }' >"$WORK/records.jsonl"
  files=("$WORK/records.jsonl")
fi

records_bytes=$(cat "${files[@]}" | wc -c)
records_lines=$(cat "${files[@]}" | wc -l)
t0=$(date +%s%N)
"$ACCOUNT" report --include-failed --format html -o "$WORK/report.html" "${files[@]}" || [ $? = 4 ]
t1=$(date +%s%N)
# Chromium's time for a page: --dump-dom returns after the load event, when the
# page's script has run (it reads the layout); --screenshot after a paint of
# the window. Best of three, start-up included; an empty page gives the
# start-up alone.
printf '<!doctype html><title>blank</title>\n' >"$WORK/blank.html"
chromium_ms() { # MODE FILE: best of three, in ms
  local best='' s e ms
  for _ in 1 2 3; do
    s=$(date +%s%N)
    timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
      --user-data-dir="$WORK/profile" --window-size=1366,900 "$1" \
      "file://$2" >"$WORK/dom.html" 2>/dev/null || die "chromium $1 failed on $2"
    e=$(date +%s%N)
    ms=$(((e - s) / 1000000))
    if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
  done
  echo "$best"
}
cd "$WORK"
blank=$(chromium_ms --dump-dom "$WORK/blank.html")
shot_blank=$(chromium_ms --screenshot "$WORK/blank.html")
shot=$(chromium_ms --screenshot "$WORK/report.html")
page=$(chromium_ms --dump-dom "$WORK/report.html")
grep -q 'data-tips="[0-9]' "$WORK/dom.html" || die "the page's script did not run in chromium"
read -r load paint < <(python3 "$LIB_DIR/page_timing.py" "$WORK/report.html") ||
  die "page_timing.py failed on the page"
mib() { awk -v b="$1" 'BEGIN { printf "%.2f", b / 1048576 }'; }
printf 'records:           %d lines, %s MiB\n' "$records_lines" "$(mib "$records_bytes")"
printf 'account report:    %d ms\n' $(((t1 - t0) / 1000000))
printf 'html page:         %s MiB, %d operations, %d charts\n' "$(mib "$(wc -c <"$WORK/report.html")")" \
  "$(grep -o '<section id="op-' "$WORK/report.html" | wc -l)" \
  "$(grep -o '<svg class="chart"' "$WORK/report.html" | wc -l)"
printf 'chromium, best of 3, start-up included (an empty page: %d ms to its DOM, %d ms to its screenshot):\n' \
  "$blank" "$shot_blank"
printf '  loaded, script run (--dump-dom): %d ms\n' "$page"
printf '  painted (--screenshot):          %d ms\n' "$shot"
printf 'chromium already running (DevTools), best of 3:\n'
printf '  navigation to load event end:    %d ms\n' "$load"
printf '  then a screenshot (paint):       %d ms\n' "$paint"
printf 'load average:      %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
