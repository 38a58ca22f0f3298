#!/usr/bin/env bash
# export-memory-bench.sh: peak memory and time of `account export` in every
# format, and of the pages (`report --format html`, `compare --format html`),
# on many --timeline records (issue 33 point 6: 100,000 timeline records to
# chrome-trace in under 256 MiB and under a minute; every page bounded too). A
# benchmark that prints figures and their ratio to the target, not a test: CI
# does not time it.
#
# usage: export-memory-bench.sh [--account PATH] [--records N] [--points P] [RECORDS.jsonl...]
#
# Without RECORDS, writes N (default 100000) synthetic process records of
# `account run --timeline`: operations of 100 processes with a tree record
# each, every process with a P-point (default 150) timeline of size and
# resident, about 5 KB a line as real timeline records are (100,000 records:
# 1,000 operations). Then runs the real `account export -f FORMAT -o FILE` for
# each format, `account report --format html -o FILE` and `account compare
# --format html -o FILE` of the records against themselves, under
# /usr/bin/time, and prints peak RSS, seconds and the output's size.
set -euo pipefail

PROG=export-memory-bench.sh
LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/lib" && pwd)
# shellcheck source=lib/common.sh
. "$LIB_DIR/common.sh"

account_path=''
records=100000
points=150
files=()
while [ $# -gt 0 ]; do
  case $1 in
    --account) need_value "$1" $#; account_path=$2; shift 2 ;;
    --records) need_value "$1" $#; records=$2; shift 2 ;;
    --points) need_value "$1" $#; points=$2; shift 2 ;;
    -h | --help) sed -n '2,19p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) usage_error "unknown option '$1'" ;;
    *) files+=("$1"); shift ;;
  esac
done
[[ $records =~ ^[1-9][0-9]*$ ]] || usage_error "--records $records is not a positive count"
[[ $points =~ ^[1-9][0-9]*$ ]] || usage_error "--points $points is not a positive count"
find_account "$account_path"
[ -x /usr/bin/time ] || die "/usr/bin/time not found (Debian package time)"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/export-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

if [ ${#files[@]} -eq 0 ]; then
  # 64 timelines made once and reused: building strings per record is slow in awk.
  awk -v n="$records" -v k="$points" 'BEGIN {
    for (v = 0; v < 64; v++) {
      t = ""; s = ""; r = ""
      for (i = 0; i < k; i++) {
        t = t (i ? "," : "") i * 5
        s = s (i ? "," : "") 1048576 * (100 + (i * 3 + v) % 80)
        r = r (i ? "," : "") 1048576 * (10 + (i * 7 + v) % 50)
      }
      tl[v] = ",\"timeline\":{\"interval_ms\":5,\"samples_per_point\":1,\"t_ms\":[" t "],\"size\":[" s "],\"rss\":[" r "]}"
    }
    t0 = 1700000000000000000; pid = 1000; per_op = 100
    for (p = 0; p < n; p++) {
      op = int(p / per_op); start = t0 + op * 10000000000 + (p % per_op) * 20000000
      if (p % per_op == 0)
        printf "{\"schema\":1,\"kind\":\"tree\",\"host\":\"bench\",\"test\":\"bench\",\"op\":\"op%05d\",\"start_ns\":%.0f,\"end_ns\":%.0f,\"processes\":%d,\"sampled_size_peak_bytes\":943718400,\"sampled_rss_peak_bytes\":314572800,\"exit_code\":0}\n", op, start, start + 9000000000, per_op
      pid++
      printf "{\"schema\":1,\"kind\":\"process\",\"host\":\"bench\",\"pid\":%d,\"ppid\":1,\"exe\":\"/usr/bin/git\",\"argv\":[\"git\",\"gc\"],\"test\":\"bench\",\"op\":\"op%05d\",\"start_ns\":%.0f,\"end_ns\":%.0f,\"cpu_user_s\":0.01,\"cpu_sys_s\":0.01,\"malloc_bytes\":1048576,\"malloc_calls\":10,\"free_calls\":9,\"copied_bytes\":65536,\"copied_calls\":5,\"heap_peak_bytes\":1048576,\"vm_peak_bytes\":188743680,\"rss_peak_bytes\":62914560,\"sampled_size_peak_bytes\":188743680,\"sampled_rss_peak_bytes\":62914560,\"samples\":%d,\"end\":\"exit\",\"exit_code\":0%s}\n", pid, op, start, start + k * 5000000, k, tl[p % 64]
    }
  }' >"$WORK/records.jsonl"
  files=("$WORK/records.jsonl")
fi

mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
printf 'records: %d lines, %s MiB\n' "$(cat "${files[@]}" | wc -l)" "$(mib "$(cat "${files[@]}" | wc -c)")"
printf '%-13s %10s %8s %11s %12s %12s\n' command 'peak MiB' seconds 'output MiB' 'MiB/256 MiB' 's/60 s'
# One row: the command's peak RSS, seconds and output size against the targets.
measure() {
  local name=$1 out=$2 status=0
  shift 2
  /usr/bin/time -f '%M %e' -o "$WORK/time" "$@" 2>"$WORK/err" || status=$?
  [ "$status" = 0 ] || [ "$status" = 2 ] || [ "$status" = 4 ] ||
    die "$name failed (status $status): $(head -3 "$WORK/err")"
  read -r kib seconds <"$WORK/time"
  awk -v f="$name" -v k="$kib" -v s="$seconds" -v o="$(wc -c <"$out")" 'BEGIN {
    printf "%-13s %10.1f %8.2f %11.1f %12.2f %12.2f\n", f, k / 1024, s, o / 1048576, k / 1024 / 256, s / 60 }'
  rm -f "$out"
}
for format in chrome-trace openmetrics folded pprof; do
  measure "$format" "$WORK/out.$format" "$ACCOUNT" export -f "$format" -o "$WORK/out.$format" "${files[@]}"
done
measure report-html "$WORK/report.html" "$ACCOUNT" report --format html -o "$WORK/report.html" "${files[@]}"
# compare takes one file a build: the records (concatenated) against themselves.
[ ${#files[@]} -eq 1 ] && side=${files[0]} || { cat "${files[@]}" >"$WORK/side.jsonl"; side=$WORK/side.jsonl; }
measure compare-html "$WORK/compare.html" "$ACCOUNT" compare --format html -o "$WORK/compare.html" "$side" "$side"
printf 'load average: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
