#!/usr/bin/env bash
# usage: deb_test.sh BUILD_DIR
# `cpack -G DEB` makes the package from the build directory (into a temporary
# directory, so the test leaves the build tree alone); its Depends come from
# dpkg-shlibdeps, libunwind is a Recommends; it lists every file the issue asks
# for; it installs with `dpkg --root` into a throw-away root with its own admin
# directory (dependencies are not checked: the root holds no libc6 package);
# and the installed /usr/bin/account runs and finds the installed
# /usr/lib/<multiarch>/libaccount.so by itself, ACCOUNT_LIB unset.
set -euo pipefail
build=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cpack -G DEB -B "$tmp/out" --config "$build/CPackConfig.cmake" >"$tmp/cpack.log" 2>&1 ||
  fail "cpack: $(tail -5 "$tmp/cpack.log")"
debs=("$tmp"/out/account_*.deb)
[ -f "${debs[0]}" ] || fail "no account_*.deb in $(ls "$tmp/out")"
deb=${debs[0]}
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)

# Control fields.
depends=$(dpkg-deb -f "$deb" Depends)
[[ $depends == *libc6* ]] || fail "Depends without libc6: $depends"
[[ $depends != *libunwind* ]] || fail "libunwind in Depends (it is only dlopen'ed): $depends"
[[ $(dpkg-deb -f "$deb" Recommends) == *libunwind* ]] || fail "no libunwind in Recommends"

# Contents.
dpkg-deb --contents "$deb" | awk '{print $6}' | sed 's|^\./|/|' >"$tmp/contents"
for f in /usr/bin/account "/usr/lib/$arch/libaccount.so" \
  /usr/share/man/man1/account.1.gz /usr/share/man/man1/account-run.1.gz \
  /usr/share/man/man1/account-report.1.gz /usr/share/man/man1/account-compare.1.gz \
  /usr/share/man/man1/account-watch.1.gz /usr/share/man/man7/libaccount.7.gz \
  /usr/share/bash-completion/completions/account \
  /usr/share/account/perf-tests/perf-test.sh /usr/share/account/perf-tests/accounts-test.sh \
  /usr/share/account/perf-tests/lib/common.sh /usr/share/doc/account/README.md \
  /usr/share/doc/account/docs/record-format.md; do
  grep -qx "$f" "$tmp/contents" || fail "$f not in the package"
done
! grep -q '^/usr/local\|^/usr/lib/libaccount.so$' "$tmp/contents" || fail "files outside /usr or the multiarch libdir"

# Install into a throw-away root: dpkg needs its admin directory there.
root=$tmp/root
mkdir -p "$root/var/lib/dpkg/updates" "$root/var/lib/dpkg/info"
touch "$root/var/lib/dpkg/status"
# --force-script-chrootless: the root has no shell to chroot into, so the
# maintainer scripts (CPack's `ldconfig` for a library in /usr/lib) run outside
# it, with a no-op ldconfig first in PATH so the host's cache is left alone;
# --force-depends: the root has no libc6 package.
mkdir "$tmp/stub"
printf '#!/bin/sh
exit 0
' >"$tmp/stub/ldconfig"
chmod +x "$tmp/stub/ldconfig"
PATH=$tmp/stub:$PATH dpkg --root="$root" --force-depends --force-not-root \
  --force-script-chrootless --log=/dev/null -i "$deb" >"$tmp/dpkg.log" 2>&1 ||
  fail "dpkg -i: $(cat "$tmp/dpkg.log")"
[ "$(dpkg --root="$root" -s account 2>/dev/null | sed -n 's/^Status: //p')" = "install ok installed" ] ||
  fail "dpkg --root -s account: not installed"

unset ACCOUNT_LIB
"$root/usr/bin/account" --version >"$tmp/version" || fail "account --version failed"
grep -Eq '^account [0-9.]+ \((commit [0-9a-f]+(-dirty)?|unknown commit)\)$' "$tmp/version" ||
  fail "account --version: $(cat "$tmp/version")"
# account run preloads the shim it found: its record shows the command was counted.
"$root/usr/bin/account" run -q -o "$tmp/r.jsonl" --test deb --op true -- /bin/true 2>"$tmp/err" ||
  fail "installed account run: $(cat "$tmp/err")"
grep -q '"kind":"process".*"exe":"/usr/bin/true"' "$tmp/r.jsonl" ||
  fail "no process record from the installed shim: $(cat "$tmp/r.jsonl")"
echo ok
