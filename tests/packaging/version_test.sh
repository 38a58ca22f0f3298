#!/usr/bin/env bash
# usage: version_test.sh SOURCE_DIR ACCOUNT VERSION
# `account --version` prints the version and the commit it was built from.
# packaging/commit-header.cmake, which the build runs, is checked on scratch
# sources: a git checkout (its HEAD, -dirty when a tracked file changed, clean
# again when only a timestamp did), a tree without .git (it says so), and a
# commit given with -DACCOUNT_COMMIT. The built account prints the version and
# a commit of this repository (or says it has none).
set -euo pipefail
src=$1 account=$2 version=$3
script=$src/packaging/commit-header.cmake
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# header DIR [ARGS...]: the ACCOUNT_COMMIT text commit-header.cmake writes for DIR.
header() {
  local dir=$1
  shift
  rm -f "$tmp/h"
  cmake -DSOURCE_DIR="$dir" -DOUTPUT="$tmp/h" "$@" -P "$script" >/dev/null
  sed -n 's/^#define ACCOUNT_COMMIT "\(.*\)"$/\1/p' "$tmp/h"
}
expect() {  # expect WANTED GOT WHAT
  [ "$2" = "$1" ] || bad "$3: got \"$2\", want \"$1\""
}

repo=$tmp/repo
mkdir "$repo"
git -C "$repo" init -q
echo one >"$repo/file"
git -C "$repo" add file
git -C "$repo" -c user.name=t -c user.email=t@t commit -q -m one
head=$(git -C "$repo" rev-parse --short=12 HEAD)
[[ $head =~ ^[0-9a-f]{12}$ ]] || bad "git rev-parse --short=12: $head"
expect "commit $head" "$(header "$repo")" "a clean checkout"
echo two >"$repo/file"
expect "commit $head-dirty" "$(header "$repo")" "a changed tracked file"
echo one >"$repo/file"
touch -d '2001-01-01' "$repo/file"
expect "commit $head" "$(header "$repo")" "a tracked file with only its timestamp changed"
echo new >"$repo/untracked"
expect "commit $head" "$(header "$repo")" "an untracked file"
mkdir "$tmp/tarball"
expect "commit unknown: not built from a git checkout" "$(header "$tmp/tarball")" "no .git"
expect "commit 1a2b3c" "$(header "$tmp/tarball" -DACCOUNT_COMMIT=1a2b3c)" "-DACCOUNT_COMMIT"
# The header is rewritten only when its text changes (nothing recompiles).
header "$repo" >/dev/null
touch -d '2001-01-01' "$tmp/h"
cmake -DSOURCE_DIR="$repo" -DOUTPUT="$tmp/h" -P "$script" >/dev/null
[ "$(stat -c %Y "$tmp/h")" = "$(date -d 2001-01-01 +%s)" ] || bad "an unchanged header was rewritten"

# The built account.
out=$("$account" --version)
if [[ $out =~ ^account\ ([0-9.]+)\ \(commit\ ([0-9a-f]{12})(-dirty)?\)$ ]]; then
  expect "$version" "${BASH_REMATCH[1]}" "account --version's version"
  git -C "$src" cat-file -e "${BASH_REMATCH[2]}^{commit}" 2>/dev/null ||
    bad "account --version names ${BASH_REMATCH[2]}, not a commit of $src"
elif [ -e "$src/.git" ] || [ "$out" != "account $version (commit unknown: not built from a git checkout)" ]; then
  bad "account --version: $out"
fi

[ "$fail" -eq 0 ] && echo ok
