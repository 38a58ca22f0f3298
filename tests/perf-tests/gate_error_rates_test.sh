#!/usr/bin/env bash
# perf-tests/gate-error-rates.sh runs as documented (a smoke test, not its
# measurement): a few small trials through the real account compare, both
# rates printed; a +200 % change in 10 % noise is caught in every trial.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
ACCOUNT=${1:?usage: gate_error_rates_test.sh ACCOUNT PERF_TESTS_DIR}
PERF=${2:?usage: gate_error_rates_test.sh ACCOUNT PERF_TESTS_DIR}
out=$("$PERF/gate-error-rates.sh" --account "$ACCOUNT" --trials 4 --ops 3 --runs 6 --change 200)
grep -q '^gate --fail-on cpu=5%,wall=5%: 3 operations, 6 runs a side, 10% noise, 4 trials' <<<"$out" ||
  fail "no header line: $out"
grep -q '^A/A false alarms: *[0-4] of 4 = ' <<<"$out" || fail "no A/A line: $out"
grep -q '^A/B +200% CPU caught: *4 of 4 = 100.0 %' <<<"$out" || fail "a +200 % change not caught: $out"
status=0
"$PERF/gate-error-rates.sh" --account "$ACCOUNT" --bogus 2>/dev/null || status=$?
[ "$status" = 1 ] || fail "an unknown option exited $status, not 1"
echo "ok: gate-error-rates.sh runs and catches a large change"
