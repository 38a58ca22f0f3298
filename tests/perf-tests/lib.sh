# shellcheck shell=bash
# Helpers of the perf-tests checks (sourced).
fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }

# csv_field CSV TEST OP COLUMN: the value of COLUMN in the row TEST,OP ("" if none).
csv_field() {
  awk -F, -v t="$2" -v o="$3" -v c="$4" '
    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    $1 == t && $2 == o { print $(col[c]); exit }' "$1"
}

# check_row CSV TEST OP: the row exists, malloc > 0, resident > 0, size >= resident.
check_row() {
  local m r s
  m=$(csv_field "$1" "$2" "$3" malloc_mib)
  r=$(csv_field "$1" "$2" "$3" resident_mib)
  s=$(csv_field "$1" "$2" "$3" size_mib)
  [ -n "$m" ] || fail "no row '$2,$3' in the CSV"
  awk -v m="$m" -v r="$r" -v s="$s" 'BEGIN { exit !(m > 0 && r > 0 && s >= r && r < 4096) }' ||
    fail "row $2,$3 implausible: malloc $m MiB, resident $r MiB, size $s MiB"
}

# gt A B: true when number A > number B.
gt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'; }
