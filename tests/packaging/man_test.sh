#!/usr/bin/env bash
# usage: man_test.sh ACCOUNT MAN_DIR SOURCE_DIR
# The generated manual pages: one for account and for every command its --help
# lists, plus libaccount(7); each renders with `MANWIDTH=80 man --warnings -l`
# without a warning; every option of `account CMD --help` is on account-CMD(1);
# every ACCOUNT_* variable the shim reads and every record key is on libaccount(7).
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

for page in "${pages[@]}"; do
  [ -f "$page" ] || { bad "missing page $page"; continue; }
  render "$page" >"$tmp/text"
  [ ! -s "$tmp/warnings" ] || bad "$(basename "$page"): $(cat "$tmp/warnings")"
  [ -s "$tmp/text" ] || bad "$(basename "$page") renders empty"
done

# Every option of every command, by each of its names, on that command's page.
for cmd in $commands; do
  page=$man/man1/account-$cmd.1.gz
  [ -f "$page" ] || continue
  render "$page" >"$tmp/text"
  n=0
  for name in $("$account" "$cmd" --help | awk -f "$awk_file" | cut -f1); do
    n=$((n + 1))
    grep -q -e "$name\b" "$tmp/text" || bad "account-$cmd(1) lacks $name (in account $cmd --help)"
  done
  [ "$n" -ge 2 ] || bad "only $n options read from account $cmd --help"
done
# account(1) names every command.
render "$man/man1/account.1.gz" >"$tmp/text"
for cmd in $commands; do grep -q "^ *$cmd\b" "$tmp/text" || bad "account(1) does not list $cmd"; done

# libaccount(7): the variables of the shim's settings and the record keys.
render "$man/man7/libaccount.7.gz" >"$tmp/text"
for var in $(grep -oh '"ACCOUNT_[A-Z_]*"' "$src"/libaccount/*.cc | tr -d '"' | sort -u); do
  grep -q "$var\b" "$tmp/text" || bad "libaccount(7) lacks $var (read in libaccount/)"
done
for key in $(sed -n 's/^inline constexpr char k[A-Za-z]*\[\] = "\([a-z_]*\)";.*/\1/p' \
  "$src/libaccount/record_keys.h"); do
  grep -q "\b$key\b" "$tmp/text" || bad "libaccount(7) lacks the record key $key"
done

[ "$fail" -eq 0 ] && echo ok
