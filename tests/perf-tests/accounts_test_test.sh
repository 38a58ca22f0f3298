#!/usr/bin/env bash
# accounts-test.sh --vs with small sizes: exit 0, every step row in both record
# files, the repository in Gerrit's layout, nine-column percentiles over one run per
# query, parallel requests counted, `account compare` of loose vs packed, and
# --bare-timing's table (every query also timed bare).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
ACCOUNT=${1:?usage: accounts_test_test.sh ACCOUNT PERF_TESTS_DIR}
PERF=${2:?usage: accounts_test_test.sh ACCOUNT PERF_TESTS_DIR}
tmp=$(mktemp -d)
kept=''
trap 'rm -rf "$tmp" ${kept:+"$kept"}' EXIT
users=15 changes=8 queries=12
start=$SECONDS
"$PERF/accounts-test.sh" --account "$ACCOUNT" --users $users --changes $changes --queries $queries \
  --clients 2 --seconds 1 --vs --bare-timing --keep -o "$tmp/acc.jsonl" >"$tmp/out" 2>"$tmp/err" ||
  fail "accounts-test.sh exited $?: $(tail -5 "$tmp/err")"
elapsed=$((SECONDS - start))
kept=$(sed -n 's/^accounts-test.sh: kept //p' "$tmp/err")
[ -d "$kept" ] || fail "--keep did not say where the work directory is"

for mode in loose packed; do
  rec="$tmp/acc-$mode.jsonl"
  [ -s "$rec" ] || fail "no records in $rec"
  # The serve runs end stopped (--stop-signal TERM), no run fails: exit 0.
  "$ACCOUNT" report --format csv "$rec" >"$tmp/$mode.csv" || fail "$mode: report exited $?"
  for op in "create changes" "create users" "add reviewers" query "serve queries" parallel "serve parallel"; do
    check_row "$tmp/$mode.csv" accounts "$op"
  done
  [ "$(csv_field "$tmp/$mode.csv" accounts query runs)" -eq $queries ] ||
    fail "$mode: query has $(csv_field "$tmp/$mode.csv" accounts query runs) runs, not $queries"
  # Each step is many git processes in one operation.
  [ "$(csv_field "$tmp/$mode.csv" accounts "create users" processes)" -ge $((users * 4)) ] ||
    fail "$mode: create users has too few processes"
  # Percentiles: min, median, avg, p60, p70, p80, p90, p99, max, in order.
  "$ACCOUNT" report --percentiles --format csv "$rec" >"$tmp/$mode.pct" || fail "$mode: percentiles exited $?"
  head -1 "$tmp/$mode.pct" | grep -q ',min,median,avg,p60,p70,p80,p90,p99,max\(,failed_runs,exit\)\?$' ||
    fail "percentile header: $(head -1 "$tmp/$mode.pct")"
  awk -F, '$2 == "query" { found = 1
                           if ($5 <= 0 || $5 > $6 || $6 > $13 || $5 > $7 || $7 > $13 || $5 > $8) bad = 1
                           for (i = 8; i < 13; i++) if ($i > $(i + 1)) bad = 1 }
           END { exit !(found && !bad) }' "$tmp/$mode.pct" ||
    fail "$mode: query percentiles not ordered: $(grep ',query,' "$tmp/$mode.pct")"
  # The repository: N accounts, C changes with a patch set and a meta ref each.
  repo="$kept/$mode/git/test_repo.git"
  git -C "$repo" for-each-ref 'refs/users/' >"$tmp/users"
  [ "$(wc -l <"$tmp/users")" -eq $users ] || fail "$mode: $(wc -l <"$tmp/users") user refs"
  grep -q 'refs/users/02/1000002$' "$tmp/users" || fail "$mode: no refs/users/02/1000002"
  git -C "$repo" show refs/users/02/1000002:account.config | grep -q 'fullName = test_0002' ||
    fail "$mode: account.config of user 2"
  [ "$(git -C "$repo" for-each-ref 'refs/changes/' | grep -c '/meta$')" -eq $changes ] || fail "$mode: meta refs"
  [ "$(git -C "$repo" for-each-ref 'refs/changes/' | grep -c '/1$')" -eq $changes ] || fail "$mode: patch-set refs"
  for c in 1 $changes; do
    printf -v nn '%02d' $((c % 100))
    n=$(git -C "$repo" log -1 --format=%B "refs/changes/$nn/$c/meta" | grep -c '^Reviewer: test_')
    { [ "$n" -ge 5 ] && [ "$n" -le 10 ]; } || fail "$mode: change $c has $n reviewers"
    [ "$(git -C "$repo" rev-list --count "refs/changes/$nn/$c/meta")" -eq 2 ] || fail "$mode: change $c meta history"
  done
done
# Packed: the refs are in packed-refs; loose: none is.
[ "$(grep -c ' refs/users/' "$kept/packed/git/test_repo.git/packed-refs")" -eq $users ] || fail "packed: users not packed"
[ ! -e "$kept/loose/git/test_repo.git/packed-refs" ] ||
  ! grep -q ' refs/users/' "$kept/loose/git/test_repo.git/packed-refs" || fail "loose: refs were packed"
csv_field "$tmp/packed.csv" accounts "pack refs" runs | grep -qx 3 || fail "packed: pack refs did not run 3 times"
# The printed tables.
grep -q '^release  *min  *median  *avg  *p60  *p70  *p80  *p90  *p99  *max$' "$tmp/out" || fail "no latency table"
[ "$(grep -c '^packed vs loose ' "$tmp/out")" -eq 3 ] || fail "no 'packed vs loose' line under each summary table"
awk '/^Parallel:/ { p = 1; next } p && $1 == "loose" { ok = ($5 > 0 && $6 > 0) } END { exit !ok }' "$tmp/out" ||
  fail "parallel phase counted no requests"
grep -q '^accounts  *query  *packed vs loose ' "$tmp/out" || fail "no account compare output"
# --bare-timing: one bare timing per query; a whole account run invocation
# holds its command's span, so its median is at least the records' median.
for mode in loose packed; do
  [ "$(wc -l <"$kept/$mode/bare.txt")" -eq $queries ] || fail "$mode: $(wc -l <"$kept/$mode/bare.txt") bare timings"
  awk -v m=$mode '/^Query latency, median ms/ { t = 1; next }
                  /^$/ { t = 0 }
                  t && $1 == m { ok = ($2 > 0 && $3 > 0 && $5 >= $3 && $4 ~ /x$/ && ($4 + 0) - $3 / $2 < 0.01 && $3 / $2 - ($4 + 0) < 0.01) }
                  END { exit !ok }' "$tmp/out" ||
    fail "$mode: bare timing row: $(grep "^$mode " "$tmp/out" | tail -1)"
done
grep -q '^    query: 12/12$' "$tmp/err" || fail "no progress count for the queries"
echo "ok: loose and packed, $users users, $changes changes, $queries queries in $elapsed s"
