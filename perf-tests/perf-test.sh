#!/usr/bin/env bash
# perf-test.sh: Monotone's tests/perf-test.sh (2005), on git, under `account run`.
#
# usage: perf-test.sh [--git PATH]... [--build 'NAME=GIT [-c KEY=VALUE]...']...
#                     [--names A,B,...] [--rounds N] [--fail-on METRIC=PCT,...]
#                     [--scale quick|full] [--only TESTS] [-o FILE]
#                     [--account PATH] [-c KEY=VALUE]... [--source DIR]
#                     [--format table|csv|json|markdown] [--timeline] [--keep] [-q]
#
# Builds repeatable data sets in a temporary directory, then for each test runs
# the operations "add files" (git add), "commit" (git commit), "checkout" (the
# working tree deleted and written again from the repository), "serve" (git daemon
# on 127.0.0.1, with the upload-pack processes it forks) and "pull" (git clone
# --bare over git://), each under `account run --test TEST --op OP`, and prints
# `account report` of the records: the seed's table.
#
#   --git PATH       the git to test (default: git in PATH); repeat it to
#                    compare builds
#   --build SPEC     one build to compare: 'NAME=GIT [-c KEY=VALUE]...' (the
#                    same git with other settings is another build too)
#   --names A,B,...  names of the --git builds (default: their versions)
#   --rounds N       run every build N times, in alternating order (A B, B A,
#                    A B, ...), so a drifting machine hurts all alike (default 1)
#   --fail-on SPEC   with two builds or more: account compare's gate (exit 3
#                    when a change is a significant regression beyond it, 5
#                    when something gated could not be judged: too few rounds)
#   --scale S        quick (small sizes, under a minute) or full (the seed's sizes)
#   --only TESTS     comma-separated tests to run (default: all, in the seed's order)
#   -o FILE          records file, overwritten (default: ./perf-test-SCALE.jsonl;
#                    with several builds FILE-NAME.jsonl for each)
#   --account PATH   the account tool (default: $ACCOUNT, PREFIX/bin/account when installed
#                    in PREFIX/share/account/perf-tests, ../build*/cli/account, PATH)
#   -c KEY=VALUE     a git setting for every git command (git -c), repeatable
#   --source DIR     the real source tree (default: /usr/include/linux)
#   --format F       the table's format (account report --format)
#   --timeline       record every process's memory over time (account run
#                    --timeline), for the charts of account report --format html
#   --keep           keep the temporary directory (data sets and repositories)
#   --store S        keep the records in account's results store S (an SQLite file
#                    or postgresql://...; one build) at --commit REV (default HEAD)
#                    of the repository --repo DIR (default .), for account history
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

usage() { sed -n '2,45p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

scale=quick only='' RECORDS='' account_path='' format=table keep=0 QUIET=0
rounds=1 fail_on='' names=''
GIT_C=()
RUN_OPTIONS=()  # more account run options for every operation (lib/common.sh)
git_paths=() build_specs=()
while [ $# -gt 0 ]; do
  case $1 in
    --git) need_value "$1" $#; git_paths+=("$2"); shift 2 ;;
    --git=*) git_paths+=("${1#*=}"); shift ;;
    --build) need_value "$1" $#; build_specs+=("$2"); shift 2 ;;
    --names) need_value "$1" $#; names=$2; shift 2 ;;
    --rounds) need_value "$1" $#; [[ $2 =~ ^[1-9][0-9]*$ ]] || usage_error "--rounds $2: a number of at least 1"
              rounds=$2; shift 2 ;;
    --fail-on) need_value "$1" $#; fail_on=$2; shift 2 ;;
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
    --timeline) RUN_OPTIONS+=(--timeline); shift ;;
    --keep) keep=1; shift ;;
    --store) need_value "$1" $#; STORE=$2; shift 2 ;;
    --commit) need_value "$1" $#; COMMIT=$2; shift 2 ;;
    --repo) need_value "$1" $#; STORE_REPO=$2; shift 2 ;;
    -q | --quiet) QUIET=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage_error "unknown argument '$1'" ;;
  esac
done

[ -z "$STORE$COMMIT" ] || [ $((${#git_paths[@]} + ${#build_specs[@]})) -le 1 ] ||
  usage_error "--store/--commit keep one build: not with several --git/--build"
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
find_account "$account_path"

# The builds: parallel arrays of names, gits and their -c settings (one string
# of "-c k=v" words each).
build_names=() build_gits=() build_cs=()
[ ${#git_paths[@]} -gt 0 ] || [ ${#build_specs[@]} -gt 0 ] || git_paths=(git)
IFS=, read -r -a given_names <<<"$names"
[ -z "$names" ] || [ ${#given_names[@]} -eq ${#git_paths[@]} ] ||
  usage_error "--names $names: ${#given_names[@]} names for ${#git_paths[@]} --git builds"
for i in "${!git_paths[@]}"; do
  find_git "${git_paths[$i]}"
  n=${given_names[$i]:-$("$GIT" --version | awk '{ print $3 }')}
  build_names+=("$n") build_gits+=("$GIT") build_cs+=("")
done
for spec in "${build_specs[@]}"; do
  [[ $spec == ?*=?* ]] || usage_error "--build '$spec': use 'NAME=GIT [-c KEY=VALUE]...'"
  read -r -a words <<<"${spec#*=}"
  find_git "${words[0]}"
  cs=''
  for ((w = 1; w < ${#words[@]}; w += 2)); do
    [ "${words[$w]}" = -c ] && [[ ${words[$((w + 1))]:-} == ?*=* ]] ||
      usage_error "--build '$spec': after the git, only -c KEY=VALUE"
    cs+=" -c ${words[$((w + 1))]}"
  done
  build_names+=("${spec%%=*}") build_gits+=("$GIT") build_cs+=("$cs")
done
for ((i = 0; i < ${#build_names[@]}; i++)); do
  for ((j = 0; j < i; j++)); do
    [ "${build_names[$i]}" != "${build_names[$j]}" ] ||
      usage_error "two builds are named '${build_names[$i]}': name them with --names or --build NAME=..."
  done
done
[ -z "$fail_on" ] || [ ${#build_names[@]} -ge 2 ] || usage_error "--fail-on needs two builds or more"
command -v openssl >/dev/null || die "openssl not found (the random data sets are made with openssl enc)"
[ -n "${SOURCE_DIR:-}" ] && { [ -d "$SOURCE_DIR" ] || usage_error "--source $SOURCE_DIR: not a directory"; }
[ -n "$RECORDS" ] || RECORDS="perf-test-$scale.jsonl"
RECORDS=$(cd "$(dirname "$RECORDS")" 2>/dev/null && pwd)/$(basename "$RECORDS") ||
  die "-o $RECORDS: the directory does not exist"
# records_of BUILD_INDEX: that build's records file.
BASE_RECORDS=$RECORDS
records_of() {
  if [ ${#build_names[@]} -eq 1 ]; then
    printf '%s' "$BASE_RECORDS"
  else
    printf '%s-%s.jsonl' "${BASE_RECORDS%.jsonl}" "${build_names[$1]}"
  fi
}
for i in "${!build_names[@]}"; do : >"$(records_of "$i")" || die "cannot write $(records_of "$i")"; done

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

# run_tests: every test once with GIT and GIT_C, records appended to RECORDS.
run_tests() {
  local t d records
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
}

started=$SECONDS
common_c=("${GIT_C[@]}")
for ((round = 1; round <= rounds; round++)); do
  # A B, then B A: each build runs as often first as last.
  order=("${!build_names[@]}")
  if [ $((round % 2)) = 0 ]; then
    for ((i = 0; i < ${#order[@]}; i++)); do order[$i]=$((${#build_names[@]} - 1 - i)); done
  fi
  for b in "${order[@]}"; do
    [ ${#build_names[@]} -eq 1 ] && [ "$rounds" = 1 ] ||
      say "round $round/$rounds: ${build_names[$b]}"
    GIT=${build_gits[$b]}
    read -r -a extra_c <<<"${build_cs[$b]}"
    GIT_C=("${common_c[@]}" "${extra_c[@]}")
    RECORDS=$(records_of "$b")
    run_tests
  done
done
RECORDS=$BASE_RECORDS
elapsed=$((SECONDS - started))

if [ "$format" = table ]; then
  printf 'Test CPU: %s (%s cores)\n' "$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)" "$(nproc)"
  printf 'scale %s, source tree %s, %d round%s, %d s\n' "$scale" "${SOURCE_DIR:-(not used)}" \
    "$rounds" "$([ "$rounds" = 1 ] || echo s)" "$elapsed"
  for b in "${!build_names[@]}"; do
    printf '%s: %s%s\n' "${build_names[$b]}" "$("${build_gits[$b]}" --version)" "${build_cs[$b]}"
  done
fi
if [ ${#build_names[@]} -eq 1 ]; then
  # The serve rows end by the SIGTERM that stops the daemon: stopped, not failed
  # (daemon_start's --stop-signal TERM); exit 4 is a run that really failed.
  status=0
  store_records "$RECORDS"
  "$ACCOUNT" report --format "$format" "$RECORDS" || status=$?
  [ "$QUIET" = 1 ] || echo "$PROG: records in $RECORDS" >&2
  exit "$status"
fi
files=()
for b in "${!build_names[@]}"; do files+=("$(records_of "$b")"); done
status=0
"$ACCOUNT" compare --format "$format" --names "$(IFS=,; echo "${build_names[*]}")" \
  ${fail_on:+--fail-on "$fail_on"} "${files[@]}" || status=$?
[ "$QUIET" = 1 ] || echo "$PROG: records in ${files[*]}" >&2
exit "$status"
