#!/usr/bin/env bash
# usage: deb_test.sh DEB_DIR SOURCE_DIR
# The package `cpack -G DEB`, the documented command, made from the build
# directory (make_deb.sh, the ctest fixture "deb", into DEB_DIR). Its Depends names the package of every library the binaries need
# (what dpkg-shlibdeps found) and SQLite (dlopened), libunwind and libpq only in
# Recommends (dlopened when used); it holds every file
# the issue asks for, under /usr, and every file its pages link; it installs
# with `dpkg --root` into a throw-away root with its own admin directory; and
# the installed /usr/bin/account runs and finds the installed
# /usr/lib/<multiarch>/libaccount.so by itself, ACCOUNT_LIB unset.
set -euo pipefail
debs_dir=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

debs=("$debs_dir"/account_*.deb)
[ -f "${debs[0]}" ] || fail "no account_*.deb in $debs_dir (made by make_deb.sh)"
deb=${debs[0]}
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)

# Contents: the binary, the shim in the multiarch libdir, a page for account and
# for every command its --help lists, libaccount(7), the completion, the
# perf-tests and every document.
dpkg-deb --contents "$deb" | awk '{print $6}' | sed 's|^\./|/|' >"$tmp/contents"
dpkg-deb -x "$deb" "$tmp/staged"
commands=$("$tmp/staged/usr/bin/account" --help | awk -v list=commands -f "$src/packaging/help-options.awk")
[[ " $(echo $commands) " == *" run report compare watch export "* ]] ||
  fail "commands read from the packaged account --help: $commands"
want=(/usr/bin/account "/usr/lib/$arch/libaccount.so" /usr/libexec/account-guard
  /usr/share/man/man1/account.1.gz
  /usr/share/man/man7/libaccount.7.gz /usr/share/bash-completion/completions/account
  /usr/share/account/perf-tests/perf-test.sh /usr/share/account/perf-tests/accounts-test.sh
  /usr/share/account/perf-tests/README.md /usr/share/doc/account/README.md)
for cmd in $commands; do want+=("/usr/share/man/man1/account-$cmd.1.gz"); done
for f in "$src"/perf-tests/lib/*.sh; do want+=("/usr/share/account/perf-tests/lib/${f##*/}"); done
for f in "$src"/docs/*.md; do want+=("/usr/share/doc/account/docs/${f##*/}"); done
for f in "${want[@]}"; do
  grep -qxF "$f" "$tmp/contents" || fail "$f not in the package"
done
# Every local link of every shipped page (a screenshot, another page) leads to a
# file of the package: ](target) less its #anchor, from the page's directory,
# through the package's own symbolic links.
links=0
while IFS= read -r page; do
  for target in $(grep -oP '\]\(\K[^)\s]+' "$page" | grep -vE '^(https?:|mailto:|#)' |
    sed 's/#.*//' | sort -u); do
    links=$((links + 1))
    resolved=$(readlink -m "$(dirname "$page")/$target")
    [[ $resolved == "$tmp/staged/"* && -f $resolved ]] ||
      fail "${page#"$tmp/staged"} links $target, which the package does not hold"
  done
done < <(find "$tmp/staged" -name '*.md')
[ "$links" -ge 20 ] || fail "only $links local links read from the shipped pages"
outside=$(grep -v '^/usr/' "$tmp/contents" | grep -vx '/' || true)
[ -z "$outside" ] || fail "files outside /usr: $outside"
! grep -q '^/usr/local/\|^/usr/lib/libaccount.so$' "$tmp/contents" ||
  fail "files in /usr/local or the shim outside the multiarch libdir"

# Control fields. Depends: for every library account and the shim are linked
# against (NEEDED), the package that holds it; libunwind, dlopen'ed, only
# recommended.
depends=$(dpkg-deb -f "$deb" Depends)
[ -n "$depends" ] || fail "no Depends"
for bin in "$tmp/staged/usr/bin/account" "$tmp/staged/usr/lib/$arch/libaccount.so"; do
  needed=$(objdump -p "$bin" | awk '$1 == "NEEDED" {print $2}')
  [ -n "$needed" ] || fail "no NEEDED libraries read from $bin"
  for lib in $needed; do
    path=$(ldconfig -p | awk -v l="$lib" -v a="/$arch/" \
      '$1 == l && !p && index($NF, a) { p = $NF } END { print p }')
    # dpkg knows a file by the path its package ships (/lib/... on a merged /usr).
    real=$(readlink -f "$path")
    owner=$({ dpkg-query -S "$path" "$real" "${real#/usr}" 2>/dev/null || true; } |
      sed -n '1s/[:,].*//p')
    [ -n "$owner" ] || fail "no package holds $lib ($path), needed by ${bin##*/}"
    [[ ", $depends" == *", $owner "* || ", $depends," == *", $owner,"* ]] ||
      fail "Depends ($depends) lacks $owner, which holds $lib needed by ${bin##*/}"
  done
done
[[ $depends != *libunwind* ]] || fail "libunwind in Depends (it is only dlopen'ed): $depends"
[[ $depends != *libpq* ]] || fail "libpq in Depends (it is only dlopen'ed): $depends"
[[ $depends == *libsqlite3-0* ]] || fail "no libsqlite3-0 (dlopen'ed for every store) in Depends: $depends"
recommends=$(dpkg-deb -f "$deb" Recommends)
[[ $recommends == *libunwind8* ]] || fail "no libunwind8 in Recommends: $recommends"
[[ $recommends == *libpq5* ]] || fail "no libpq5 in Recommends: $recommends"
[ "$(dpkg-deb -f "$deb" Package)" = account ] || fail "Package: $(dpkg-deb -f "$deb" Package)"
[ "$(dpkg-deb -f "$deb" Architecture)" = "$(dpkg --print-architecture)" ] ||
  fail "Architecture: $(dpkg-deb -f "$deb" Architecture)"

# Install into a throw-away root: dpkg needs its admin directory there.
root=$tmp/root
mkdir -p "$root/var/lib/dpkg/updates" "$root/var/lib/dpkg/info"
touch "$root/var/lib/dpkg/status"
# --force-script-chrootless: the root has no shell to chroot into, so the
# maintainer scripts (CPack's `ldconfig` for a library in /usr/lib) run outside
# it, with a no-op ldconfig first in PATH so the host's cache is left alone;
# --force-depends: the root has no libc6 package.
mkdir "$tmp/stub"
printf '#!/bin/sh\nexit 0\n' >"$tmp/stub/ldconfig"
chmod +x "$tmp/stub/ldconfig"
PATH=$tmp/stub:$PATH dpkg --root="$root" --force-depends --force-not-root \
  --force-script-chrootless --log=/dev/null -i "$deb" >"$tmp/dpkg.log" 2>&1 ||
  fail "dpkg -i: $(cat "$tmp/dpkg.log")"
[ "$(dpkg --root="$root" -s account 2>/dev/null | sed -n 's/^Status: //p')" = "install ok installed" ] ||
  fail "dpkg --root -s account: not installed"
[ -x "$root/usr/bin/account" ] && [ -f "$root/usr/lib/$arch/libaccount.so" ] ||
  fail "dpkg -i left no usr/bin/account or usr/lib/$arch/libaccount.so in the root"

unset ACCOUNT_LIB
"$root/usr/bin/account" --version >"$tmp/version" || fail "account --version failed"
grep -Eq '^account [0-9]+\.[0-9]+\.[0-9]+ \(commit ([0-9a-f]{12}(-dirty)?|unknown: .*)\)$' \
  "$tmp/version" || fail "account --version: $(cat "$tmp/version")"
# account run preloads the shim it found: its record shows the command was counted.
"$root/usr/bin/account" run -q -o "$tmp/r.jsonl" --test deb --op ls -- ls / >/dev/null 2>"$tmp/err" ||
  fail "installed account run: $(cat "$tmp/err")"
# ... with its guard, /usr/libexec/account-guard (static: it needs no package).
! grep -q "no guard" "$tmp/err" || fail "the installed run found no guard: $(cat "$tmp/err")"
grep -q '"kind":"process".*"exe":"/usr/bin/ls".*"malloc_calls":[1-9].*"written_by":"process"' \
  "$tmp/r.jsonl" ||
  fail "no counted process record from the installed shim: $(cat "$tmp/r.jsonl")"
# ... and it was that shim: without it, account run names what it looked for.
mv "$root/usr/lib/$arch/libaccount.so" "$tmp/libaccount.so.moved"
if "$root/usr/bin/account" run -q -o "$tmp/r2.jsonl" -- /bin/true 2>"$tmp/err"; then
  fail "account run succeeded without the installed shim"
fi
grep -q "libaccount.so not found" "$tmp/err" || fail "without the shim: $(cat "$tmp/err")"
echo ok
