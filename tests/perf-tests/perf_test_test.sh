#!/usr/bin/env bash
# perf-test.sh --scale quick: exit 0, every test and operation in the CSV, plausible
# figures, the daemon's processes in the serve rows, the table printed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
ACCOUNT=${1:?usage: perf_test_test.sh ACCOUNT PERF_TESTS_DIR}
PERF=${2:?usage: perf_test_test.sh ACCOUNT PERF_TESTS_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
start=$SECONDS
"$PERF/perf-test.sh" --scale quick --account "$ACCOUNT" -o "$tmp/rec.jsonl" >"$tmp/table" 2>"$tmp/err" ||
  fail "perf-test.sh exited $?: $(tail -5 "$tmp/err")"
elapsed=$((SECONDS - start))
# serve ends by SIGTERM, its stop signal (issue 33.1): stopped, not failed, so
# no run failed (exit 0) and the table has no Exit column.
"$ACCOUNT" report --format csv "$tmp/rec.jsonl" >"$tmp/csv" || fail "report exited $? (a failed run?)"
! grep -q 'failed' "$tmp/table" || fail "a failed row in the table: $(grep failed "$tmp/table")"
"$ACCOUNT" report --columns +exit "$tmp/rec.jsonl" >"$tmp/exit" || fail "report +exit exited $?"
[ "$(grep -c ' serve .*stopped (SIGTERM)$' "$tmp/exit")" = 9 ] ||
  fail "serve rows not stopped (SIGTERM): $(grep serve "$tmp/exit")"
[ "$(head -1 "$tmp/csv" | cut -d, -f1-7)" = test,operation,cpu_s,size_mib,resident_mib,copied_mib,malloc_mib ] ||
  fail "CSV header: $(head -1 "$tmp/csv")"
tests="zero_small zero_large random_medium halfzero_large random_large source src_multiple src_bigfiles everything"
for t in $tests; do
  for op in "add files" commit checkout serve pull; do
    check_row "$tmp/csv" "$t" "$op"
    grep -q "^$t  *$op " "$tmp/table" || fail "no row '$t $op' in the printed table"
  done
  # serve: git daemon, the git wrapper and the processes forked for the clone.
  p=$(csv_field "$tmp/csv" "$t" serve processes)
  [ "$p" -ge 4 ] || fail "$t serve has $p process records (daemon children missing?)"
done
[ "$(tail -n +2 "$tmp/csv" | wc -l)" -eq 45 ] || fail "expected 45 rows, got $(tail -n +2 "$tmp/csv" | wc -l)"
# Random data costs more to add than zeros of the same size (zlib and copies).
gt "$(csv_field "$tmp/csv" random_large 'add files' copied_mib)" \
  "$(csv_field "$tmp/csv" zero_large 'add files' copied_mib)" ||
  fail "random_large add files copied no more than zero_large"
gt "$(csv_field "$tmp/csv" random_large 'add files' cpu_s)" \
  "$(csv_field "$tmp/csv" zero_large 'add files' cpu_s)" ||
  fail "random_large add files took no more CPU than zero_large"
# The checkout of 16 MiB writes it: at least 16 MiB copied.
gt "$(csv_field "$tmp/csv" zero_large checkout copied_mib)" 15.9 || fail "zero_large checkout copied < 16 MiB"
# Progress on stderr names each test and operation.
grep -q '^### everything: pull' "$tmp/err" || fail "no progress line for everything: pull"
grep -q '^Test CPU: ' "$tmp/table" || fail "no Test CPU line above the table"
echo "ok: 45 rows, quick scale in $elapsed s"
