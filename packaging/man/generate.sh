#!/usr/bin/env bash
# usage: generate.sh ACCOUNT VERSION SOURCE_DIR OUT_DIR
#
# Writes the manual pages, gzipped, to OUT_DIR/man1 and OUT_DIR/man7 (run by the
# build after `account` is linked):
#  - account(1) and account-CMD(1) for every command `account --help` lists, by
#    help2man from `account [CMD] --help`, so the option lists are the ones the
#    binary prints; the prose comes from packaging/man/PAGE.h2m when it exists;
#  - libaccount(7) from libaccount.7.in, with the record keys of
#    libaccount/record_keys.h.
set -euo pipefail
account=$1 version=$2 src=$3 out=$4
here=$src/packaging
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

rm -rf "$out"
mkdir -p "$out/man1" "$out/man7"

# page NAME EXECUTABLE [INCLUDE...]: NAME.1 from `EXECUTABLE --help`.
page() {
  local include=$here/man/$1.h2m args=() extra
  [ -f "$include" ] && args=(--include="$include")
  for extra in "${@:3}"; do args+=(--include="$extra"); done
  help2man --no-info --section=1 --version-string="$version" "${args[@]}" \
    --output="$tmp/$1.1" "$2"
  gzip -9n -c "$tmp/$1.1" >"$out/man1/$1.1.gz"
}

# wrapper NAME [CMD]: an executable NAME that prints `account [CMD] --help` with
# two spaces after every option (help-options.awk, list=help2man); help2man
# names the page after the executable it runs.
wrapper() {
  printf '#!/usr/bin/env bash\nset -euo pipefail\n"%s" %s "$@" | awk -v list=help2man -f "%s"\n' \
    "$account" "${2:-}" "$here/help-options.awk" >"$tmp/$1"
  chmod +x "$tmp/$1"
}

commands=$("$account" --help | awk -v list=commands -f "$here/help-options.awk")
[ -n "$commands" ] || { echo "generate.sh: no commands read from $account --help" >&2; exit 1; }
for cmd in $commands; do
  wrapper "account-$cmd" "$cmd"
  page "account-$cmd" "$tmp/account-$cmd"
done
# account(1) refers to every command's page.
{
  echo '[SEE ALSO]'
  for cmd in $commands; do echo ".BR \\%account\\-$cmd (1),"; done
  echo '.BR libaccount (7)'
} >"$tmp/see-also.h2m"
wrapper account
page account "$tmp/account" "$tmp/see-also.h2m"

# libaccount(7): the record keys, one per line, in the order record_keys.h has them.
keys=$(sed -n 's/^inline constexpr char k[A-Za-z]*\[\] = "\([a-z_]*\)";.*/.B \1/p' \
  "$src/libaccount/record_keys.h")
[ -n "$keys" ] || { echo "generate.sh: no record keys found in record_keys.h" >&2; exit 1; }
awk -v version="$version" -v keys="$keys" '
  $0 == "@RECORD_KEYS@" { print keys; next }
  { gsub(/@VERSION@/, version); print }' "$here/man/libaccount.7.in" >"$tmp/libaccount.7"
gzip -9n -c "$tmp/libaccount.7" >"$out/man7/libaccount.7.gz"
