#!/usr/bin/env bash
# noise-check.sh: does account compare tell noise from change on this machine?
# A benchmark, not a test (docs/compare.md, "Noise on this machine").
#  1. A/A: the same git as two builds, perf-test quick in N interleaved rounds
#     (default 6: the gate judges 20 figures, which need 6 runs a side).
#     Expect no significant CPU change ("~" everywhere but exact
#     figures that really differ) and a passing gate.
#  2. A/B: core.compression=0 against core.compression=9 in as many rounds.
#     Expect significant CPU and size changes where compression matters.
# usage: noise-check.sh [--rounds N] [--only TESTS] [--account PATH] [--git PATH]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rounds=6 only=zero_small,random_medium account_opt=() git=git
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --account) account_opt=(--account "$2"); shift 2 ;;
    --git) git=$2; shift 2 ;;
    *) echo "noise-check.sh: unknown option $1" >&2; exit 1 ;;
  esac
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== A/A: the same git twice, $rounds interleaved rounds, gate cpu=5%,wall=5%"
status=0
"$here/perf-test.sh" -q --scale quick --only "$only" --rounds "$rounds" "${account_opt[@]}" \
  --build "a=$git" --build "b=$git" --fail-on cpu=5%,wall=5% -o "$work/aa" || status=$?
echo "exit status $status"

echo
echo "== A/B: core.compression=0 against 9, $rounds interleaved rounds, gate cpu=5%,size=2%"
status=0
"$here/perf-test.sh" -q --scale quick --only "$only" --rounds "$rounds" "${account_opt[@]}" \
  --build "level0=$git -c core.compression=0" --build "level9=$git -c core.compression=9" \
  --fail-on cpu=5%,size=2% -o "$work/ab" || status=$?
echo "exit status $status"
