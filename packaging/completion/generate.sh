#!/usr/bin/env bash
# usage: generate.sh ACCOUNT SOURCE_DIR OUT_FILE
#
# Writes the bash completion of account: packaging/completion/account.bash.in
# with, in place of @DATA@, the commands and, for every command, its options,
# which take a value, and the values they list, all read from the binary's
# --help (packaging/help-options.awk), so completion follows the options.
set -euo pipefail
account=$1 src=$2 out=$3
awk_file=$src/packaging/help-options.awk

q() { local s=${1//\'/\'\\\'\'}; printf "'%s'" "$s"; }  # single-quoted for bash
data() {
  local cmds cmd names value choices term desc n
  cmds=$("$account" --help | awk -v list=commands -f "$awk_file" | tr '\n' ' ')
  echo "_account_commands=$(q "${cmds% }")"
  echo "declare -gA _account_options=() _account_values=()"
  for cmd in $cmds; do
    local all=""
    while IFS=$'\t' read -r names value choices term desc; do
      all+="$names "
      [ "$value" = none ] && continue
      # What a value completes to: the listed choices, else files when the
      # description names a FILE or DIR, else a pid for --pid, else nothing.
      local kind=none
      if [ "$choices" != - ]; then kind="choices $choices"
      elif [[ $desc == *FILE* || $desc == *DIR* ]]; then kind=file
      elif [[ " $names " == *" --pid "* ]]; then kind=pid
      fi
      for n in $names; do echo "_account_values[$(q "$cmd $n")]=$(q "$kind")"; done
    done < <("$account" "$cmd" --help | awk -f "$awk_file")
    echo "_account_options[$cmd]=$(q "${all% }")"
  done
}

generated=$(data)
awk -v data="$generated" '$0 == "@DATA@" { print data; next } { print }' \
  "$src/packaging/completion/account.bash.in" >"$out.tmp"
mv "$out.tmp" "$out"
