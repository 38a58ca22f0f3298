#!/usr/bin/env bash
# usage: make_deb.sh BUILD_DIR OUT_DIR
# `cpack -G DEB`, the documented command, makes the package once for the tests
# that check it (packaging.Deb, api.ConsumerAgainstTheUnpackedDeb: the ctest
# fixture "deb"), into OUT_DIR, emptied first.
set -euo pipefail
build=$1 out=$2
rm -rf "$out"
mkdir -p "$out"
cpack -G DEB -B "$out" --config "$build/CPackConfig.cmake" >"$out/cpack.log" 2>&1 || {
  echo "FAIL: cpack: $(tail -5 "$out/cpack.log")"
  exit 1
}
debs=("$out"/account_*.deb)
[ -f "${debs[0]}" ] || { echo "FAIL: no account_*.deb in $(ls "$out")"; exit 1; }
echo "ok: ${debs[0]##*/}"
