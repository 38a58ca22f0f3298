#!/usr/bin/env bash
# perf-test.sh with two builds in alternating rounds: one records file per build,
# every operation with one run per round in each, the rounds in A B / B A order,
# and `account compare` of the builds as the output; accounts-test.sh --rounds.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
ACCOUNT=${1:?usage: perf_test_builds_test.sh ACCOUNT PERF_TESTS_DIR}
PERF=${2:?usage: perf_test_builds_test.sh ACCOUNT PERF_TESTS_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$PERF/perf-test.sh" --account "$ACCOUNT" --git git --build 'level0=git -c core.compression=0' \
  --names plain --rounds 2 --only zero_small -o "$tmp/pt.jsonl" --format csv >"$tmp/out" 2>"$tmp/err" ||
  fail "perf-test.sh exited $?: $(tail -5 "$tmp/err")"
[ ! -e "$tmp/pt.jsonl" ] || fail "one records file for two builds"
for b in plain level0; do
  [ -s "$tmp/pt-$b.jsonl" ] || fail "no records for build $b"
  # serve ends by the TERM that is its stop (--stop-signal TERM): no run fails.
  "$ACCOUNT" report --format csv "$tmp/pt-$b.jsonl" >"$tmp/$b.csv" || fail "$b: report exited $?"
  for op in "add files" commit checkout serve pull; do
    check_row "$tmp/$b.csv" zero_small "$op"
    [ "$(csv_field "$tmp/$b.csv" zero_small "$op" runs)" -eq 2 ] ||
      fail "$b $op: $(csv_field "$tmp/$b.csv" zero_small "$op" runs) runs, not 2"
  done
done
order=$(grep -o 'round [12]/2: [a-z0-9]*' "$tmp/err" | tr '\n' ' ')
[ "$order" = "round 1/2: plain round 1/2: level0 round 2/2: level0 round 2/2: plain " ] ||
  fail "rounds not in A B / B A order: $order"
head -1 "$tmp/out" | grep -q '^test,operation,' || fail "no compare CSV: $(head -2 "$tmp/out")"
[ "$(grep -c '^zero_small,' "$tmp/out")" -ge 10 ] || fail "compare rows missing: $(cat "$tmp/out")"
# accounts-test.sh --rounds 2: every step twice in one records file.
"$PERF/accounts-test.sh" --account "$ACCOUNT" --users 12 --changes 3 --queries 4 --clients 1 \
  --seconds 1 --rounds 2 -q -o "$tmp/acc.jsonl" >"$tmp/acc.out" 2>"$tmp/acc.err" ||
  fail "accounts-test.sh --rounds 2 exited $?: $(tail -5 "$tmp/acc.err")"
"$ACCOUNT" report --format csv "$tmp/acc.jsonl" >"$tmp/acc.csv" || fail "accounts-test: report exited $?"
for op in "create changes" "create users" "add reviewers" "serve queries" parallel; do
  [ "$(csv_field "$tmp/acc.csv" accounts "$op" runs)" -eq 2 ] ||
    fail "accounts-test $op: $(csv_field "$tmp/acc.csv" accounts "$op" runs) runs, not 2"
done
[ "$(csv_field "$tmp/acc.csv" accounts query runs)" -eq 8 ] || fail "accounts-test: not 8 query runs"
echo "ok: two builds, two rounds"
