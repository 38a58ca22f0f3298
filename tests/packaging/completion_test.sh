#!/usr/bin/env bash
# usage: completion_test.sh COMPLETION_FILE
# The generated completion, sourced in bash, completes commands, options, the
# values an option's --help lists, and files, as `account <TAB>` would: driven
# with COMP_WORDS/COMP_CWORD and the function `complete -p account` names.
set -euo pipefail
# shellcheck source=/dev/null
. "$1"
spec=$(complete -p account)
[[ $spec == *"-F _account account" ]] || { echo "complete -p account: $spec"; exit 1; }
func=${spec#*-F }
func=${func%% *}

fail=0
# expect WANTED WORDS...: completing the last of WORDS gives exactly WANTED.
expect() {
  local want=$1
  shift
  COMP_WORDS=("$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMP_LINE="$*"
  COMP_POINT=${#COMP_LINE}
  COMPREPLY=()
  "$func" account "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}" 2>/dev/null || true
  local got="${COMPREPLY[*]}"
  if [ "$got" != "$want" ]; then
    printf 'FAIL: account %s<TAB>: got "%s", want "%s"\n' "${*:2}" "$got" "$want"
    fail=1
  fi
}
# contains ITEM WORDS...: completing the last of WORDS offers ITEM among others.
contains() {
  local item=$1
  shift
  COMP_WORDS=("$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  "$func" account "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}" 2>/dev/null || true
  if [[ " ${COMPREPLY[*]} " != *" $item "* ]]; then
    printf 'FAIL: account %s<TAB>: "%s" not among "%s"\n' "${*:2}" "$item" "${COMPREPLY[*]}"
    fail=1
  fi
}

expect report account re
contains compare account ''
contains watch account ''
contains --version account --v
# Formats: every one report --help lists, and only those.
formats=$(printf '%s\n' "${_account_values[report --format]#choices }")
[[ " $formats " == *" table "* && " $formats " == *" csv "* && " $formats " == *" json "* ]] ||
  { echo "FAIL: report formats read from --help: $formats"; fail=1; }
expect "$formats" account report --format ''
expect "$formats" account report -f ''
expect csv account report --format c
expect --format=csv account report --format=c
expect process account report --by ''
# Metric names (the --percentiles values) and comma lists.
contains resident account report --percentiles ''
contains +anon account report --columns ''
contains +anon,+heap account report --columns +anon,+h
# Options of each command.
contains --output account run --ou
contains --timeline account watch --time
contains --strict account compare --s
# Files: for -o and for the record files of report.
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
touch "$dir/records.jsonl"
expect "$dir/records.jsonl" account report "$dir/rec"
expect "$dir/records.jsonl" account run -o "$dir/rec"
# After run's --, the command to run.
contains bash account run --test t -- bas

[ "$fail" -eq 0 ] && echo ok
