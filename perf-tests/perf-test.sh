#!/usr/bin/env bash
# perf-test.sh: Monotone's tests/perf-test.sh (2005), on git, under `account run`.
#
# usage: perf-test.sh [--git PATH] [--scale quick|full] [--only TESTS] [-o FILE]
#                     [--account PATH] [-c KEY=VALUE]... [--source DIR]
#                     [--format table|csv|json|markdown] [--keep] [-q]
#
# Builds repeatable data sets in a temporary directory, then for each test runs
# the operations "add files" (git add), "commit" (git commit), "checkout" (the
# working tree deleted and written again from the repository), "serve" (git daemon
# on 127.0.0.1, with the upload-pack processes it forks) and "pull" (git clone
# --bare over git://), each under `account run --test TEST --op OP`, and prints
# `account report` of the records: the seed's table.
#
#   --git PATH       the git to test (default: git in PATH)
#   --scale S        quick (small sizes, under a minute) or full (the seed's sizes)
#   --only TESTS     comma-separated tests to run (default: all, in the seed's order)
#   -o FILE          records file, overwritten (default: ./perf-test-SCALE.jsonl)
#   --account PATH   the account tool (default: $ACCOUNT, ../build*/cli/account, PATH)
#   -c KEY=VALUE     a git setting for every git command (git -c), repeatable
#   --source DIR     the real source tree (default: /usr/include/linux)
#   --format F       the table's format (account report --format)
#   --keep           keep the temporary directory (data sets and repositories)
#   -q               no progress on stderr
#
# Tests: zero_small zero_large random_medium halfzero_large random_large source
#        src_multiple src_bigfiles everything (see perf-tests/README.md).
set -euo pipefail

PROG=perf-test.sh
LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/lib" && pwd)
# shellcheck source=lib/common.sh
. "$LIB_DIR/common.sh"
# shellcheck source=lib/datasets.sh
. "$LIB_DIR/datasets.sh"

usage() { sed -n '2,28p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

git_path='' scale=quick only='' RECORDS='' account_path='' format=table keep=0 QUIET=0
GIT_C=()
while [ $# -gt 0 ]; do
  case $1 in
    --git) need_value "$1" $#; git_path=$2; shift 2 ;;
    --git=*) git_path=${1#*=}; shift ;;
    --scale) need_value "$1" $#; scale=$2; shift 2 ;;
    --scale=*) scale=${1#*=}; shift ;;
    --only) need_value "$1" $#; only=$2; shift 2 ;;
    --only=*) only=${1#*=}; shift ;;
    -o | --output) need_value "$1" $#; RECORDS=$2; shift 2 ;;
    --output=*) RECORDS=${1#*=}; shift ;;
    --account) need_value "$1" $#; account_path=$2; shift 2 ;;
    --account=*) account_path=${1#*=}; shift ;;
    -c) need_value "$1" $#; [[ $2 == ?*=* ]] || usage_error "-c $2: use -c KEY=VALUE"
        GIT_C+=(-c "$2"); shift 2 ;;
    --source) need_value "$1" $#; SOURCE_DIR=$2; shift 2 ;;
    --source=*) SOURCE_DIR=${1#*=}; shift ;;
    --format) need_value "$1" $#; format=$2; shift 2 ;;
    --format=*) format=${1#*=}; shift ;;
    --keep) keep=1; shift ;;
    -q | --quiet) QUIET=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage_error "unknown argument '$1'" ;;
  esac
done

set_scale "$scale" || usage_error "--scale $scale: use quick or full"
case $format in table | csv | json | markdown) ;; *) usage_error "--format $format: use table, csv, json or markdown" ;; esac
tests=()
if [ -n "$only" ]; then
  IFS=, read -r -a tests <<<"$only"
  for t in "${tests[@]}"; do
    [[ " $DATASETS " == *" $t "* ]] || usage_error "--only: unknown test '$t' (known: $DATASETS)"
  done
else
  read -r -a tests <<<"$DATASETS"
fi
find_git "$git_path"
find_account "$account_path"
command -v openssl >/dev/null || die "openssl not found (the random data sets are made with openssl enc)"
[ -n "${SOURCE_DIR:-}" ] && { [ -d "$SOURCE_DIR" ] || usage_error "--source $SOURCE_DIR: not a directory"; }
[ -n "$RECORDS" ] || RECORDS="perf-test-$scale.jsonl"
RECORDS=$(cd "$(dirname "$RECORDS")" 2>/dev/null && pwd)/$(basename "$RECORDS") ||
  die "-o $RECORDS: the directory does not exist"
: >"$RECORDS" || die "cannot write $RECORDS"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/perf-test.XXXXXX")
DAEMON_RUN=
cleanup() {
  RECORDS=${records:-$RECORDS}
  daemon_stop
  [ -s "$WORK/pull.jsonl" ] && cat "$WORK/pull.jsonl" >>"$RECORDS"
  if [ "$keep" = 1 ]; then echo "$PROG: kept $WORK" >&2; else rm -rf "$WORK"; fi
}
install_traps  # lib/common.sh: cleanup on exit, a clean Ctrl-C, the failing command named
git_environment
cat >"$HOME/.gitconfig" <<'EOF'
[init]
	defaultBranch = main
[gc]
	auto = 0
[maintenance]
	auto = false
[advice]
	detachedHead = false
EOF

started=$SECONDS
for t in "${tests[@]}"; do
  say "$t: building the data set ($scale)"
  build_dataset "$t" "$WORK/data"
  d="$WORK/t/$t"
  rm -rf "$d"
  mkdir -p "$d"
  "$GIT" init -q "$d/wt" || die "git init $d/wt failed"
  cp -al "$WORK/data/$t/." "$d/wt/" 2>/dev/null || cp -a "$WORK/data/$t/." "$d/wt/"
  rm -f "$d/wt/.complete"
  cd "$d/wt"
  run_op "$t" "add files" -- "$GIT" "${GIT_C[@]}" add -A .
  run_op "$t" commit -- "$GIT" "${GIT_C[@]}" commit -q -m "perf-test $t"
  # checkout: the files and the index are gone, git writes them all again.
  find . -mindepth 1 -maxdepth 1 ! -name .git -exec rm -rf {} +
  rm -f .git/index
  run_op "$t" checkout -- "$GIT" "${GIT_C[@]}" checkout -q -f
  cd "$d"
  daemon_start "$t" serve "$d"
  # The pull's records follow the serve's in the file, so the rows keep the seed's order.
  records=$RECORDS
  RECORDS="$WORK/pull.jsonl"
  run_op "$t" pull -- "$GIT" "${GIT_C[@]}" clone -q --bare "git://127.0.0.1:$DAEMON_PORT/wt" "$d/pulled.git"
  RECORDS=$records
  daemon_stop
  cat "$WORK/pull.jsonl" >>"$RECORDS"
  rm -f "$WORK/pull.jsonl"
  say "$t: done ($(du -sk "$d/wt/.git" | cut -f1) KiB repository)"
  cd "$WORK"
  rm -rf "$d"
done
elapsed=$((SECONDS - started))

if [ "$format" = table ]; then
  printf 'Test CPU: %s (%s cores)\n' "$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)" "$(nproc)"
  printf '%s, scale %s, source tree %s, %d s\n' "$("$GIT" --version)" "$scale" "${SOURCE_DIR:-(not used)}" "$elapsed"
fi
"$ACCOUNT" report --format "$format" "$RECORDS"
[ "$QUIET" = 1 ] || echo "$PROG: records in $RECORDS" >&2
