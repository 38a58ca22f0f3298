#!/usr/bin/env bash
# Two builds of every quick data set are byte-identical, and their sizes are the
# documented ones.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
PERF=${1:?usage: datasets_test.sh PERF_TESTS_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$PERF/lib/datasets.sh" --scale quick --checksum "$tmp/a" >"$tmp/a.sum"
"$PERF/lib/datasets.sh" --scale quick --checksum "$tmp/b" >"$tmp/b.sum"
diff "$tmp/a.sum" "$tmp/b.sum" || fail "two builds of the data sets differ"
[ "$(wc -l <"$tmp/a.sum")" -eq 9 ] || fail "expected 9 data sets: $(cat "$tmp/a.sum")"
bytes() { awk -v n="$1" '$1 == n { print $3 }' "$tmp/a.sum"; }
files() { awk -v n="$1" '$1 == n { print $2 }' "$tmp/a.sum"; }
[ "$(bytes zero_small)" -eq 10240 ] || fail "zero_small is $(bytes zero_small) bytes"
[ "$(bytes zero_large)" -eq $((16 << 20)) ] || fail "zero_large is $(bytes zero_large) bytes"
[ "$(bytes random_medium)" -eq $((2 << 20)) ] || fail "random_medium is $(bytes random_medium) bytes"
[ "$(bytes halfzero_large)" -eq $((16 << 20)) ] || fail "halfzero_large is $(bytes halfzero_large) bytes"
[ "$(bytes random_large)" -eq $((16 << 20)) ] || fail "random_large is $(bytes random_large) bytes"
{ [ "$(bytes source)" -gt 100000 ] && [ "$(bytes source)" -le $((2 << 20)) ]; } ||
  fail "source is $(bytes source) bytes (expected 100 KB - 2 MiB)"
[ "$(files src_bigfiles)" -eq 5 ] || fail "src_bigfiles has $(files src_bigfiles) files, not 5 releases"
[ "$(bytes src_bigfiles)" -eq "$(bytes src_multiple)" ] || fail "src_bigfiles is not src_multiple concatenated"
[ "$(bytes src_multiple)" -gt "$(bytes source)" ] || fail "src_multiple is not larger than source"
sum=0
for n in zero_small zero_large random_medium halfzero_large random_large source src_multiple src_bigfiles; do
  sum=$((sum + $(bytes "$n")))
done
[ "$(bytes everything)" -eq "$sum" ] || fail "everything is $(bytes everything) bytes, the sets add up to $sum"
# Random data does not compress; zeros do; the half-zero file is half random.
[ "$(gzip -1 -c "$tmp/a/random_large/random_large" | wc -c)" -gt $((16 << 20)) ] ||
  fail "random_large compresses: not random"
cmp -s -n $((8 << 20)) "$tmp/a/halfzero_large/halfzero_large" "$tmp/a/zero_large/zero_large" ||
  fail "halfzero_large does not start with 8 MiB of zeros"
# Different sets get different random bytes.
! cmp -s -n 4096 "$tmp/a/random_medium/random_medium" "$tmp/a/random_large/random_large" ||
  fail "random_medium and random_large start with the same bytes"
echo "ok: 9 data sets built twice, identical"
