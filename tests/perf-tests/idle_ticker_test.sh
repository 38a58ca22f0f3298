#!/usr/bin/env bash
# bench/idle_ticker.cc, overhead.sh's floor of a sampler: it passes its
# command's exit status on, wakes on account run's Ticker for as long as the
# command runs, and appends its CPU as a tree record that overhead.py reads.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
TICKER=${1:?usage: idle_ticker_test.sh IDLE_TICKER}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

status=0
"$TICKER" "$tmp/out.jsonl" 5 sh -c 'exit 3' || status=$?
[ "$status" = 3 ] || fail "the command's exit status 3 came back as $status"

"$TICKER" "$tmp/out.jsonl" 5 sleep 0.2 || fail "sleep 0.2 under idle_ticker failed"
[ "$(wc -l <"$tmp/out.jsonl")" = 2 ] || fail "expected one record a run: $(cat "$tmp/out.jsonl")"
line=$(tail -1 "$tmp/out.jsonl")
[[ $line =~ ^\{\"kind\":\"tree\",\"samples\":([0-9]+),\"sampler_cpu_s\":([0-9.]+)\}$ ]] ||
  fail "not a tree record: $line"
ticks=${BASH_REMATCH[1]} cpu=${BASH_REMATCH[2]}
# A tick at once, then one every 5-10 ms (Ticker: up to one interval late)
# while sleep runs, at least 200 ms: 21 or more, less the ticks a stalled
# moment skips (no burst after a stall), so at least half of 21 on a machine
# busy with other tests.
[ "$ticks" -ge 10 ] || fail "$ticks ticks in 200 ms at 5-10 ms"
# The same schedule bounds it from above: sleep 0.2 is over within 2 s even
# on a loaded machine, and ticks are at least 5 ms apart.
[ "$ticks" -le 401 ] || fail "$ticks ticks: more than the 5-ms schedule allows in 2 s"
gt "$cpu" 0 || fail "no CPU counted: $line"

"$TICKER" "$tmp/out.jsonl" 0 true 2>"$tmp/err" && fail "interval 0 accepted"
grep -q usage "$tmp/err" || fail "no usage line for interval 0: $(cat "$tmp/err")"
echo ok
