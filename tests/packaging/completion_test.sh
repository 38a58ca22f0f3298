#!/usr/bin/env bash
# usage: completion_test.sh COMPLETION_FILE ACCOUNT
# The generated completion, put where the package puts it
# (share/bash-completion/completions/account) and loaded the way bash-completion
# loads it on the first <TAB> (__load_completion, from XDG_DATA_DIRS), completes
# commands, options, formats, --by, metric names, pids and files: driven with
# COMP_WORDS/COMP_CWORD and the function `complete -p account` names.
set -euo pipefail
file=$1 account=$2
loader=/usr/share/bash-completion/bash_completion
[ -f "$loader" ] || { echo "FAIL: $loader missing (scripts/install-deps.sh installs bash-completion)"; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/share/bash-completion/completions"
cp "$file" "$dir/share/bash-completion/completions/account"

set +u  # bash-completion reads unset variables
# shellcheck source=/dev/null
. "$loader"
set -u
XDG_DATA_DIRS=$dir/share __load_completion account ||
  { echo "FAIL: bash-completion did not load $dir/share/bash-completion/completions/account"; exit 1; }
spec=$(complete -p account)
[[ $spec == *"-F _account account" ]] || { echo "FAIL: complete -p account: $spec"; exit 1; }
func=${spec#*-F }
func=${func%% *}

fail=0
# complete WORDS...: COMPREPLY for the last of WORDS, sorted, one line.
complete_words() {
  COMP_WORDS=("$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMP_LINE="$*"
  COMP_POINT=${#COMP_LINE}
  COMPREPLY=()
  "$func" account "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
  printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//'
}
# expect WANTED WORDS...: completing the last of WORDS gives exactly WANTED
# (space-separated, in sorted order).
expect() {
  local want=$1 got
  shift
  got=$(complete_words "$@")
  if [ "$got" != "$want" ]; then
    printf 'FAIL: %s<TAB>: got "%s", want "%s"\n' "$*" "$got" "$want"
    fail=1
  fi
}
# contains ITEM WORDS...: completing the last of WORDS offers ITEM among others.
contains() {
  local item=$1 got
  shift
  got=$(complete_words "$@")
  if [[ " $got " != *" $item "* ]]; then
    printf 'FAIL: %s<TAB>: "%s" not among "%s"\n' "$*" "$item" "$got"
    fail=1
  fi
}

# Commands.
expect report account re
expect "--help --version bisect compare export history report run store watch" account ''
expect "--help --version" account --
# Options of each command: exactly what its --help lists.
for cmd in run report compare watch export store history bisect; do
  want=$("$account" "$cmd" --help | grep -oE '^  (-[a-zA-Z] \[ )?--[a-z-]+' | grep -oE -- '--[a-z-]+' |
    sort | tr '\n' ' ' | sed 's/ $//')
  expect "$want" account "$cmd" --
done
expect "--output" account run --ou
expect "--timeline --timeline-points" account watch --time
# Formats of each command.
expect "csv html json markdown svg table" account report --format ''
expect "csv html json markdown svg table" account report -f ''
expect "csv" account report --format c
expect "--format=csv" account report --format=c
expect "csv html json markdown table" account compare --format ''
expect "chrome-trace folded folded-leaks folded-temporary openmetrics pprof" account export -f ''
# --by.
expect "host process" account report --by ''
# Metric names: --percentiles and --sort take the table's metrics.
expect "copied cpu malloc resident size wall" account report --percentiles ''
expect "anon blocks_at_exit cgroup copied cpu heap heap_at_exit involuntary_ctxsw major_faults malloc minor_faults pids rchar read resident size temporary temporary_allocs voluntary_ctxsw wall wchar write" account report --sort ''
expect "rchar read resident" account report --sort r
expect "resident" account report --sort res
# compare --fail-on METRIC=PCT,...: the metric names as keys, in a comma list,
# with no space after the "=".
expect "anon= blocks_at_exit= cgroup= copied= cpu= heap= heap_at_exit= involuntary_ctxsw= major_faults= malloc= minor_faults= pids= rchar= read= resident= size= temporary= temporary_allocs= voluntary_ctxsw= wall= wchar= write=" account compare --fail-on ''
expect "cpu=5%,resident=" account compare --fail-on cpu=5%,res
# Comma lists complete their last item.
expect "+anon +cgroup +ctxsw +exit +faults +heap +io +leaked +temporary" account report --columns ''
expect "+anon,+heap" account report --columns +anon,+h
expect "+anon +cgroup +ctxsw +exit +faults +heap +io +leaked +temporary" account compare --columns ''
# Files: for -o, and the record files report reads.
files=$dir/files
mkdir "$files"
touch "$files/records.jsonl" "$files/other.txt"
expect "$files/records.jsonl" account report "$files/rec"
expect "$files/records.jsonl" account run -o "$files/rec"
expect "$files/other.txt $files/records.jsonl" account export -o "$files/"
# Pids for watch --pid.
contains "$$" account watch --pid ''
# After run's --, the command to run; an option's value is not the command.
contains bash account run --test t -- bas
expect "" account run --interval ''
expect "auto off require" account run --cgroup ''

[ "$fail" -eq 0 ] && echo ok
