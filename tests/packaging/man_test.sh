#!/usr/bin/env bash
# usage: man_test.sh ACCOUNT MAN_DIR SOURCE_DIR
# The generated manual pages: one for account and for every command its --help
# lists, plus libaccount(7); each renders with `MANWIDTH=80 man --warnings -l`
# without a warning; every option of `account CMD --help` has its entry on
# account-CMD(1); account(1) lists every command and refers to its page; every
# ACCOUNT_* variable the shim reads and every record key is on libaccount(7).
set -euo pipefail
account=$1 man=$2 src=$3
awk_file=$src/packaging/help-options.awk
fail=0
bad() { echo "FAIL: $*"; fail=1; }

render() { MANWIDTH=80 man --warnings -l "$1" 2>"$tmp/warnings"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

commands=$("$account" --help | awk -v list=commands -f "$awk_file")
[ -n "$commands" ] || bad "no commands read from account --help"
pages=("$man/man1/account.1.gz" "$man/man7/libaccount.7.gz")
for cmd in $commands; do pages+=("$man/man1/account-$cmd.1.gz"); done

# Each page rendered once, to $tmp/NAME.txt (account-run.1.txt, ...).
for page in "${pages[@]}"; do
  [ -f "$page" ] || { bad "missing page $page"; continue; }
  text=$tmp/$(basename "$page" .gz).txt
  render "$page" >"$text"
  [ ! -s "$tmp/warnings" ] || bad "$(basename "$page"): $(cat "$tmp/warnings")"
  [ -s "$text" ] || bad "$(basename "$page") renders empty"
done

# Every option of every command is an entry of that command's page: a line that
# is the option exactly as --help prints it ("-o [ --output ] arg"), its
# description below it, or beside it when the option is narrower than the
# 7-column indent (".TP" puts "--tree" and its text on one line). A name found
# only in running text, or an option run into its description, does not count.
entry() {
  awk -v term="$1" '$0 == term || (length(term) < 7 && index($0, term " ") == 1) { found = 1 }
    END { exit !found }' "$2"
}
for cmd in $commands; do
  [ -f "$tmp/account-$cmd.1.txt" ] || continue
  sed 's/^ *//' "$tmp/account-$cmd.1.txt" >"$tmp/text"
  "$account" "$cmd" --help | awk -f "$awk_file" | cut -f1,4 >"$tmp/options"
  n=0
  while IFS=$'\t' read -r names term; do
    n=$((n + 1))
    entry "$term" "$tmp/text" ||
      bad "account-$cmd(1) has no entry for $names (\"$term\" in account $cmd --help)"
  done <"$tmp/options"
  [ "$n" -ge 2 ] || bad "only $n options read from account $cmd --help"
done
# account(1) lists every command and refers to its page.
cp "$tmp/account.1.txt" "$tmp/text"
for cmd in $commands; do
  grep -q "^ *$cmd\b" "$tmp/text" || bad "account(1) does not list $cmd"
  grep -qF "account-$cmd(1)" "$tmp/text" || bad "account(1) does not refer to account-$cmd(1)"
done

# libaccount(7): the variables of the shim's settings and the record keys.
cp "$tmp/libaccount.7.txt" "$tmp/text"
for var in $(grep -oh '"ACCOUNT_[A-Z_]*"' "$src"/libaccount/*.cc | tr -d '"' | sort -u); do
  grep -q "$var\b" "$tmp/text" || bad "libaccount(7) lacks $var (read in libaccount/)"
done
for key in $(sed -n 's/^inline constexpr char k[A-Za-z]*\[\] = "\([a-z_]*\)";.*/\1/p' \
  "$src/libaccount/record_keys.h"); do
  grep -q "\b$key\b" "$tmp/text" || bad "libaccount(7) lacks the record key $key"
done

[ "$fail" -eq 0 ] && echo ok
