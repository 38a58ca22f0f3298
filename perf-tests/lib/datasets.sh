#!/usr/bin/env bash
# The repeatable data sets of perf-test.sh (Monotone's tests/perf-test.sh, on git).
#
# Sourced by perf-test.sh, or run alone to build or check the data:
#   datasets.sh [--scale quick|full] [--source DIR] [--checksum] OUT_DIR [NAME...]
# builds the named data sets (default: all) into OUT_DIR/NAME and, with
# --checksum, prints "NAME FILES BYTES SHA256" per set: the SHA-256 of the
# sorted list of "sha256  path" lines, equal for two builds of the same set.
#
# Random bytes are AES-128-CTR of zeros (`openssl enc`) under a key derived from
# the data set's name: the same bytes on every run and machine, and as
# incompressible as /dev/urandom. The source tree is real files found on the
# machine (/usr/include/linux by default), so it is the same run to run on one
# machine; the "releases" are derived from it deterministically.

# ---- sizes -------------------------------------------------------------------
# set_scale quick|full: the sizes of every data set.
set_scale() {
  case $1 in
    full)
      SZ_ZERO_SMALL=$((10 * 1024)) SZ_ZERO_LARGE=$((100 * 1048576))
      SZ_RANDOM_MEDIUM=$((10 * 1048576)) SZ_HALF=$((50 * 1048576))
      SZ_RANDOM_LARGE=$((100 * 1048576))
      SRC_MAX_FILES=100000 SRC_MAX_BYTES=$((64 * 1048576)) RELEASES=13
      ;;
    quick)
      SZ_ZERO_SMALL=$((10 * 1024)) SZ_ZERO_LARGE=$((16 * 1048576))
      SZ_RANDOM_MEDIUM=$((2 * 1048576)) SZ_HALF=$((8 * 1048576))
      SZ_RANDOM_LARGE=$((16 * 1048576))
      SRC_MAX_FILES=300 SRC_MAX_BYTES=$((2 * 1048576)) RELEASES=5
      ;;
    *) return 1 ;;
  esac
}

DATASETS="zero_small zero_large random_medium halfzero_large random_large source src_multiple src_bigfiles everything"

# ---- generators --------------------------------------------------------------
ds_die() { printf '%s: %s\n' "${PROG:-datasets.sh}" "$*" >&2; exit 1; }

# zeros SIZE FILE
zeros() { head -c "$1" /dev/zero >"$2"; }

# random_bytes NAME SIZE: SIZE pseudo-random bytes on stdout, fixed by NAME.
random_bytes() {
  local key
  key=$(printf 'account perf-test seed: %s' "$1" | sha256sum | cut -c1-64)
  head -c "$2" /dev/zero |
    openssl enc -aes-128-ctr -nosalt -K "${key:0:32}" -iv "${key:32:32}" ||
    ds_die "openssl enc failed (random data needs openssl)"
}

# find_source: sets SOURCE_DIR to a real source tree on this machine.
find_source() {
  local c
  if [ -n "${SOURCE_DIR:-}" ]; then
    [ -d "$SOURCE_DIR" ] || ds_die "--source $SOURCE_DIR: not a directory"
    return
  fi
  for c in /usr/include/linux /usr/include \
    "$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])' 2>/dev/null)"; do
    if [ -n "$c" ] && [ -d "$c" ]; then SOURCE_DIR=$c; return; fi
  done
  ds_die "no source tree found (tried /usr/include/linux, /usr/include, Python's stdlib): use --source DIR"
}

# source_list FILE: the source tree's regular files, in byte order, the first
# ones up to SRC_MAX_FILES files and SRC_MAX_BYTES bytes, one relative path a line.
source_list() {
  find_source
  (cd "$SOURCE_DIR" && find . -type f -readable -printf '%s\t%P\n') |
    LC_ALL=C sort -t "$(printf '\t')" -k2,2 |
    awk -F '\t' -v maxf="$SRC_MAX_FILES" -v maxb="$SRC_MAX_BYTES" '
      !full { if (n >= maxf || b + $1 > maxb) { full = 1; next }; n++; b += $1; print $2 }' >"$1"
  [ -s "$1" ] || ds_die "source tree $SOURCE_DIR has no readable files"
}

# copy_list LIST DEST: the files of LIST from SOURCE_DIR into DEST.
copy_list() {
  mkdir -p "$2"
  tar -C "$SOURCE_DIR" --no-recursion --verbatim-files-from -cf - -T "$1" | tar -C "$2" -xf - ||
    ds_die "copying the source tree from $SOURCE_DIR failed"
}

# make_release LIST R DEST: release R (1..RELEASES) of the source tree. The tree
# grows from half of the files (release 1) to all of them (release RELEASES), and
# file i carries one extra line for each release k <= R with (i + k) % 5 == 0,
# so successive releases differ the way successive versions of a project do.
make_release() {
  local list=$1 r=$2 dest=$3 n keep i=0 k f
  n=$(wc -l <"$list")
  keep=$(((n * (RELEASES + r) + 2 * RELEASES - 1) / (2 * RELEASES)))
  head -n "$keep" "$list" >"$dest.list"
  copy_list "$dest.list" "$dest"
  while IFS= read -r f; do
    i=$((i + 1))
    for ((k = (5 - i % 5) % 5; k <= r; k += 5)); do
      [ "$k" -ge 1 ] && printf '/* release %d: change %d to this file */\n' "$k" "$i" >>"$dest/$f"
    done
  done <"$dest.list"
  rm -f "$dest.list"
}

# build_dataset NAME OUT_DIR: builds OUT_DIR/NAME (once).
build_dataset() {
  local name=$1 out=$2 d r f
  d="$out/$name"
  [ -e "$d/.complete" ] && return
  rm -rf "$d"
  mkdir -p "$d"
  case $name in
    zero_small) zeros "$SZ_ZERO_SMALL" "$d/zero_small" ;;
    zero_large) zeros "$SZ_ZERO_LARGE" "$d/zero_large" ;;
    random_medium) random_bytes random_medium "$SZ_RANDOM_MEDIUM" >"$d/random_medium" ;;
    halfzero_large)
      { head -c "$SZ_HALF" /dev/zero; random_bytes halfzero_large "$SZ_HALF"; } >"$d/halfzero_large"
      ;;
    random_large) random_bytes random_large "$SZ_RANDOM_LARGE" >"$d/random_large" ;;
    source)
      source_list "$out/.source.list"
      copy_list "$out/.source.list" "$d"
      ;;
    src_multiple)
      source_list "$out/.source.list"
      for ((r = 1; r <= RELEASES; r++)); do
        make_release "$out/.source.list" "$r" "$d/$(printf 'release-%02d' "$r")"
      done
      ;;
    src_bigfiles)
      build_dataset src_multiple "$out"
      for ((r = 1; r <= RELEASES; r++)); do
        f=$(printf 'release-%02d' "$r")
        (cd "$out/src_multiple/$f" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 cat) \
          >"$d/$f.txt"
      done
      ;;
    everything)
      for f in $DATASETS; do
        [ "$f" = everything ] && continue
        build_dataset "$f" "$out"
        cp -al "$out/$f" "$d/$f" 2>/dev/null || cp -a "$out/$f" "$d/$f"
        rm -f "$d/$f/.complete"
      done
      ;;
    *) ds_die "unknown data set '$name' (known: $DATASETS)" ;;
  esac
  : >"$d/.complete"
}

# checksum_dataset DIR NAME: "NAME FILES BYTES SHA256" for DIR (the data set).
checksum_dataset() {
  local files bytes sum
  files=$(cd "$1" && find . -type f ! -name .complete | wc -l)
  bytes=$(cd "$1" && find . -type f ! -name .complete -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
  sum=$(cd "$1" && find . -type f ! -name .complete -print0 | LC_ALL=C sort -z |
    xargs -0 -r sha256sum | sha256sum | cut -c1-64)
  printf '%s %s %s %s\n' "$2" "$files" "$bytes" "$sum"
}

# ---- run alone -----------------------------------------------------------------
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  PROG=datasets.sh
  scale=quick checksum=0 out='' names=()
  while [ $# -gt 0 ]; do
    case $1 in
      --scale) [ $# -ge 2 ] || ds_die "--scale needs quick or full"; scale=$2; shift 2 ;;
      --scale=*) scale=${1#*=}; shift ;;
      --source) [ $# -ge 2 ] || ds_die "--source needs a directory"; SOURCE_DIR=$2; shift 2 ;;
      --source=*) SOURCE_DIR=${1#*=}; shift ;;
      --checksum) checksum=1; shift ;;
      -h | --help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
      -*) ds_die "unknown option $1" ;;
      *) if [ -z "$out" ]; then out=$1; else names+=("$1"); fi; shift ;;
    esac
  done
  [ -n "$out" ] || ds_die "usage: datasets.sh [--scale quick|full] [--source DIR] [--checksum] OUT_DIR [NAME...]"
  set_scale "$scale" || ds_die "--scale $scale: use quick or full"
  command -v openssl >/dev/null || ds_die "openssl not found (random data sets need it)"
  [ ${#names[@]} -gt 0 ] || read -r -a names <<<"$DATASETS"
  mkdir -p "$out"
  for n in "${names[@]}"; do
    build_dataset "$n" "$out"
    [ "$checksum" = 1 ] && checksum_dataset "$out/$n" "$n"
  done
  exit 0
fi
