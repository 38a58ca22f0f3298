#!/usr/bin/env bash
# accounts-test.sh: Gerrit's accounts_tests.sh (steps 3-7), on plain git, under
# `account run`.
#
# usage: accounts-test.sh [--git PATH] [--users N] [--changes N] [--queries N]
#                         [--refs loose|packed] [--vs] [--clients N] [--seconds S]
#                         [--seed N] [-o FILE] [--account PATH] [-c KEY=VALUE]...
#                         [--bare-timing] [--rounds N] [--fail-on SPEC]
#                         [--keep] [-q]
#
# One bare repository in Gerrit's NoteDb layout, built step by step, each step one
# accounted operation (test label "accounts"):
#   create changes  step 3: CHANGES changes, refs/changes/NN/C/1 and .../meta
#   create users    step 4: USERS accounts, refs/users/NN/ID with account.config
#   add reviewers   step 5: 5-10 random reviewers per change, each looked up,
#                   recorded in a new refs/changes/NN/C/meta commit
#   pack refs       (--refs packed) git pack-refs --all after each step
#   query           step 6: QUERIES sequential `git fetch` over git:// of a random
#                   change's meta and patch-set refs and a random user's account
#                   ref, each its own `account run` (a run), timed
#   serve queries   the git daemon (and everything it forked) during step 6
#   parallel        step 7: CLIENTS concurrent clients querying for SECONDS
#   serve parallel  the git daemon during step 7
# Prints the accounting table, the step totals, the query latency percentiles
# (ms) and the parallel requests per second. --vs runs loose and packed refs with
# the same seed and prints both side by side and `account compare`.
# --rounds N repeats the whole test N times (with --vs: loose packed, then
# packed loose, ...), every step one more run of its operation; --fail-on SPEC
# is passed to the final `account compare` (exit 3 on a significant regression,
# 5 when something gated could not be judged, e.g. too few rounds).
# --bare-timing also runs every query bare, interleaved with its accounted twin
# (the same fetch into a second client), timed by this script: the latency the
# records report next to the latency the program has without account.
#
#   --users N      accounts (default 1024)       --changes N  changes (default 200)
#   --queries N    sequential queries (2000)     --clients N  parallel clients (4)
#   --seconds S    parallel phase length (10)    --seed N     random seed (1)
#   --refs R       loose (default) or packed     --vs         both, compared
#   -o FILE        records (default ./accounts-test-REFS.jsonl; with --vs
#                  FILE's name gets -loose / -packed before .jsonl), overwritten
#   --git PATH, --account PATH, -c KEY=VALUE, --keep, -q,
#   --store S, --commit REV, --repo DIR (one mode): as perf-test.sh
set -euo pipefail

PROG=accounts-test.sh
LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/lib" && pwd)
# shellcheck source=lib/common.sh
. "$LIB_DIR/common.sh"

usage() { sed -n '2,42p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

# number OPTION VALUE MIN: VALUE is an integer >= MIN.
number() {
  [[ $2 =~ ^[0-9]+$ ]] || usage_error "$1 $2: not a number"
  [ "$2" -ge "$3" ] || usage_error "$1 $2: must be at least $3"
}

git_path='' account_path='' users=1024 changes=200 queries=2000 refs=loose vs=0
clients=4 seconds=10 seed=1 out='' keep=0 QUIET=0 bare_timing=0 rounds=1 fail_on=''
GIT_C=()
while [ $# -gt 0 ]; do
  case $1 in
    --git | --account | --users | --changes | --queries | --refs | --clients | --seconds | \
      --seed | -o | --output | -c | --rounds | --fail-on | --store | --commit | --repo)
      need_value "$1" $#
      case $1 in
        --git) git_path=$2 ;;
        --account) account_path=$2 ;;
        --users) number "$1" "$2" 11; users=$2 ;;
        --changes) number "$1" "$2" 1; changes=$2 ;;
        --queries) number "$1" "$2" 1; queries=$2 ;;
        --clients) number "$1" "$2" 1; clients=$2 ;;
        --seconds) number "$1" "$2" 1; seconds=$2 ;;
        --seed) number "$1" "$2" 0; seed=$2 ;;
        --rounds) number "$1" "$2" 1; rounds=$2 ;;
        --fail-on) fail_on=$2 ;;
        --store) STORE=$2 ;;
        --commit) COMMIT=$2 ;;
        --repo) STORE_REPO=$2 ;;
        --refs) refs=$2 ;;
        -o | --output) out=$2 ;;
        -c) [[ $2 == ?*=* ]] || usage_error "-c $2: use -c KEY=VALUE"; GIT_C+=(-c "$2") ;;
      esac
      shift 2
      ;;
    --vs) vs=1; shift ;;
    --bare-timing) bare_timing=1; shift ;;
    --keep) keep=1; shift ;;
    -q | --quiet) QUIET=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage_error "unknown argument '$1'" ;;
  esac
done
case $refs in loose | packed) ;; *) usage_error "--refs $refs: use loose or packed" ;; esac
find_git "$git_path"
find_account "$account_path"
[ -n "${EPOCHREALTIME:-}" ] || die "bash 5 or later is needed (EPOCHREALTIME)"

modes=("$refs")
[ "$vs" = 1 ] && modes=(loose packed)
out_given=1
[ -n "$out" ] || { out="accounts-test.jsonl"; out_given=0; }
out=$(cd "$(dirname "$out")" 2>/dev/null && pwd)/$(basename "$out") ||
  die "-o $out: the directory does not exist"
# records_for MODE: the records file of MODE.
records_for() {
  if [ "$vs" = 1 ] || [ "$out_given" = 0 ]; then
    printf '%s-%s.jsonl' "${out%.jsonl}" "$1"
  else
    printf '%s' "$out"
  fi
}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/accounts-test.XXXXXX")
DAEMON_RUN=''
RECORDS=''
cleanup() {
  daemon_stop
  if [ "$keep" = 1 ]; then echo "$PROG: kept $WORK" >&2; else rm -rf "$WORK"; fi
}
install_traps  # lib/common.sh: cleanup on exit, a clean Ctrl-C, the failing command named
git_environment
printf '[gc]\n\tauto = 0\n[maintenance]\n\tauto = false\n' >"$HOME/.gitconfig"
T=accounts
STEPS="$LIB_DIR/accounts-steps.sh"

# step_op OP STEP ARGS...: one step of the seed as one accounted operation;
# the step's progress lines reach the terminal through descriptor 3.
step_op() {
  local op=$1
  shift
  if [ "$QUIET" = 1 ]; then
    run_op "$T" "$op" -- bash "$STEPS" "$@" 3>/dev/null
  else
    run_op "$T" "$op" -- bash "$STEPS" "$@" 3>&2
  fi
}
pack_refs() {
  [ "$1" = packed ] || return 0
  run_op "$T" "pack refs" -- "$GIT" "${GIT_C[@]}" -C "$REPO" pack-refs --all --prune
}

# time_bare_query CLIENT FETCH_ARGS...: one query without account, its wall
# time (microseconds, as bash's EPOCHREALTIME measures around it) appended to
# BARE_TIMES.
time_bare_query() {
  local client=$1 t0 t1
  shift
  t0=$EPOCHREALTIME
  "$GIT" "${GIT_C[@]}" -C "$client" "$@" 2>"$WORK/bare.err" ||
    die "bare query failed: git $*: $(cat "$WORK/bare.err")"
  t1=$EPOCHREALTIME
  echo "${t0/./} ${t1/./}" >>"$BARE_TIMES"
}

# run_mode MODE: the whole test with MODE ref storage, records in records_for MODE.
run_mode() {
  local mode=$1 base q c u id nn client err status bare_client t0 t1
  local -a fetch
  RECORDS=$(records_for "$mode")
  base="$WORK/$mode/git"
  # A new repository each round; the timings of earlier rounds stay.
  rm -rf "$base" "$WORK/$mode/client.git" "$WORK/$mode/bare-client.git" "$WORK/$mode/parallel"
  REPO="$base/test_repo.git"
  say "$mode refs: $users users, $changes changes, $queries queries, $clients clients x ${seconds}s -> $RECORDS"
  # Steps 1-2: the repository with one empty commit (not accounted).
  "$GIT" init -q --bare "$REPO" || die "git init $REPO failed"
  c=$("$GIT" -C "$REPO" commit-tree "$("$GIT" -C "$REPO" hash-object -t tree -w /dev/null)" -m "Initial empty repository") ||
    die "cannot create the initial commit"
  "$GIT" -C "$REPO" update-ref refs/heads/master "$c"

  step_op "create changes" changes "$GIT" "$REPO" "$changes"
  pack_refs "$mode"
  step_op "create users" users "$GIT" "$REPO" "$users"
  pack_refs "$mode"
  step_op "add reviewers" reviewers "$GIT" "$REPO" "$changes" "$users" "$seed"
  pack_refs "$mode"
  say "$T: $(find "$REPO/refs" -type f | wc -l) loose refs, $(grep -c '^[0-9a-f]' "$REPO/packed-refs" 2>/dev/null || echo 0) packed refs"

  # Step 6: sequential queries, each an `account run` (one run of op "query").
  daemon_start "$T" "serve queries" "$base"
  client="$WORK/$mode/client.git"
  "$GIT" init -q --bare "$client"
  bare_client="$WORK/$mode/bare-client.git"
  [ "$bare_timing" = 1 ] && "$GIT" init -q --bare "$bare_client"
  BARE_TIMES="$WORK/$mode/bare.txt"
  err="$WORK/query.err"
  RANDOM=$((seed + 1))
  say "$T: query ($queries sequential fetches over git://)"
  for ((q = 1; q <= queries; q++)); do
    c=$((RANDOM % changes + 1))
    u=$((RANDOM % users + 1))
    id=$((1000000 + u))
    printf -v nn '%02d' $((c % 100))
    fetch=(fetch -q --no-tags "git://127.0.0.1:$DAEMON_PORT/test_repo.git"
      "refs/changes/$nn/$c/meta" "refs/changes/$nn/$c/1" "refs/users/$(printf '%02d' $((id % 100)))/$id")
    status=0
    if [ "$bare_timing" = 1 ]; then
      # Bare first on odd queries, second on even ones: neither always pays
      # for the caches the other warmed.
      [ $((q % 2)) = 1 ] && time_bare_query "$bare_client" "${fetch[@]}"
      t0=$EPOCHREALTIME
    fi
    "$ACCOUNT" run -q --test "$T" --op query -o "$RECORDS" -- \
      "$GIT" "${GIT_C[@]}" -C "$client" "${fetch[@]}" 2>"$err" || status=$?
    if [ "$bare_timing" = 1 ]; then
      t1=$EPOCHREALTIME
      echo "${t0/./} ${t1/./}" >>"$WORK/$mode/invocation.txt"
      [ $((q % 2)) = 0 ] && time_bare_query "$bare_client" "${fetch[@]}"
    fi
    if [ "$status" -ne 0 ]; then
      printf '%s: query %d (change %d, user %d) failed (exit %d): git fetch: %s\n' \
        "$PROG" "$q" "$c" "$id" "$status" "$(cat "$err")" >&2
      exit 1
    fi
    if [ "$QUIET" != 1 ] && { [ $((q % 250)) -eq 0 ] || [ "$q" -eq "$queries" ]; }; then
      printf '    query: %d/%d\n' "$q" "$queries" >&2
    fi
  done
  daemon_stop

  # Step 7: CLIENTS concurrent clients for SECONDS.
  daemon_start "$T" "serve parallel" "$base"
  mkdir -p "$WORK/$mode/parallel"
  step_op parallel parallel "$GIT" "git://127.0.0.1:$DAEMON_PORT/test_repo.git" \
    "$changes" "$users" "$seed" "$clients" "$seconds" "$WORK/$mode/parallel"
  daemon_stop
  cat "$WORK/$mode/parallel"/[0-9]* >"$WORK/$mode/parallel.txt"
  # The serve rows end stopped (daemon_start's --stop-signal TERM: ok, not
  # failed), and a failed query has ended the script above: every run counts.
  "$ACCOUNT" report --format csv "$RECORDS" >"$WORK/$mode/report.csv"
  "$ACCOUNT" report --percentiles --format csv "$RECORDS" >"$WORK/$mode/percentiles.csv"
}

# summary MODE...: the seed's three result tables for each mode, and B vs A.
summary() {
  local m
  echo
  echo "Steps 3-6 totals (wall seconds; query: the sum of the $queries runs)"
  for m in "$@"; do
    awk -F, -v m="$m" -v q="$queries" '
      NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
      $1 == "accounts" { w[$2] = $(col["wall_s"]) }
      END { printf "%s %.3f %.3f %.3f %.3f\n", m, w["create changes"], w["create users"], w["add reviewers"], w["query"] * q }' \
      "$WORK/$m/report.csv"
  done >"$WORK/totals.txt"
  {
    printf '%-16s %15s %15s %15s %15s\n' release "create changes" "create users" "add reviewers" "queries"
    table_with_change "$WORK/totals.txt" '%15.3f' '%14.2f%%'
  }
  echo
  echo "Query latency over $queries runs (ms, wall time of each account run)"
  for m in "$@"; do
    awk -F, -v m="$m" '
      $1 == "accounts" && $2 == "query" && $3 == "wall_s" {
        printf "%s", m; for (i = 5; i <= 13; i++) printf " %.3f", $i * 1000; printf "\n" }' \
      "$WORK/$m/percentiles.csv"
  done >"$WORK/latency.txt"
  {
    printf '%-16s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n' release min median avg p60 p70 p80 p90 p99 max
    table_with_change "$WORK/latency.txt" '%9.3f' '%8.2f%%'
  }
  [ "$bare_timing" = 1 ] && bare_latency "$@"
  echo
  echo "Parallel: $clients clients for ${seconds} s (requests per second)"
  for m in "$@"; do
    awk -v m="$m" '
      { n++; r[n] = $1 / ($2 / 1e6); total += $1; if ($2 / 1e6 > span) span = $2 / 1e6 }
      END {
        for (i = 1; i <= n; i++) { s += r[i]; if (r[i] > mx) mx = r[i] }
        avg = s / n; for (i = 1; i <= n; i++) v += (r[i] - avg) ^ 2
        printf "%s %.2f %.2f %.2f %d %.2f\n", m, avg, sqrt(v / n), mx, total, total / span }' \
      "$WORK/$m/parallel.txt"
  done >"$WORK/parallel.txt"
  {
    printf '%-16s %12s %12s %12s %12s %12s\n' release "client avg" "client sd" "client max" requests "total req/s"
    table_with_change "$WORK/parallel.txt" '%12.2f' '%11.2f%%'
  }
}

# bare_latency MODE...: the query latency medians with and without account.
bare_latency() {
  local m
  echo
  echo "Query latency, median ms (--bare-timing: each query also run bare, interleaved)"
  printf '%-16s %12s %12s %9s %12s\n' release bare "the records" ratio "account run"
  for m in "$@"; do
    awk -F, -v m="$m" -v bare="$WORK/$m/bare.txt" -v inv="$WORK/$m/invocation.txt" '
      function median(a, n,   i, j, t) {
        for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
      $1 == "accounts" && $2 == "query" && $3 == "wall_s" { rec = $6 * 1000 }
      END {
        while ((getline line < bare) > 0) { split(line, t, " "); b[++nb] = (t[2] - t[1]) / 1000 }
        while ((getline line < inv) > 0) { split(line, t, " "); v[++nv] = (t[2] - t[1]) / 1000 }
        mb = median(b, nb)
        printf "%-16s %12.3f %12.3f %8.3fx %12.3f\n", m, mb, rec, rec / mb, median(v, nv) }' \
      "$WORK/$m/percentiles.csv"
  done
  echo "bare: git fetch timed by this script; the records: the median wall of the"
  echo "query runs' tree records; account run: the whole account run invocation."
}

# table_with_change FILE NUMBER_FORMAT PERCENT_FORMAT: rows "NAME v1 v2 ...",
# then for a second row "B vs A" with (B - A) / A in percent.
table_with_change() {
  awk -v nf="$2" -v pf="$3" '
    { name[NR] = $1; for (i = 2; i <= NF; i++) v[NR, i] = $i; cols = NF
      printf "%-16s", $1; for (i = 2; i <= NF; i++) printf " " nf, $i; printf "\n" }
    END {
      if (NR < 2) exit
      printf "%-16s", name[2] " vs " name[1]
      for (i = 2; i <= cols; i++) {
        if (v[1, i] == 0) { printf " %" length(sprintf(nf, 0)) "s", "N/A"; continue }
        printf " " pf, (v[2, i] - v[1, i]) * 100 / v[1, i]
      }
      printf "\n" }' "$1"
}

started=$SECONDS
[ -z "$fail_on" ] || [ "$vs" = 1 ] || usage_error "--fail-on needs --vs (two modes to compare)"
[ -z "$STORE$COMMIT" ] || [ "$vs" = 0 ] || usage_error "--store/--commit keep one mode: not with --vs"
for m in "${modes[@]}"; do : >"$(records_for "$m")" || die "cannot write $(records_for "$m")"; done
for ((round = 1; round <= rounds; round++)); do
  order=("${modes[@]}")
  # loose packed, then packed loose: each mode runs as often first as last.
  if [ $((round % 2)) = 0 ] && [ ${#modes[@]} -eq 2 ]; then order=("${modes[1]}" "${modes[0]}"); fi
  for m in "${order[@]}"; do
    [ "$rounds" = 1 ] || say "round $round/$rounds: $m refs"
    run_mode "$m"
  done
done
elapsed=$((SECONDS - started))
for m in "${modes[@]}"; do store_records "$(records_for "$m")"; done

printf 'Test CPU: %s (%s cores)\n' "$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)" "$(nproc)"
printf '%s, %d users, %d changes, %d queries, seed %d, %d s\n' "$("$GIT" --version)" \
  "$users" "$changes" "$queries" "$seed" "$elapsed"
for m in "${modes[@]}"; do
  echo
  echo "== $m refs: $(records_for "$m")"
  "$ACCOUNT" report "$(records_for "$m")"
  echo
  "$ACCOUNT" report --percentiles "$(records_for "$m")"
done
summary "${modes[@]}"
if [ "$vs" = 1 ]; then
  echo
  status=0
  "$ACCOUNT" compare "$(records_for loose)" "$(records_for packed)" \
    --names loose,packed ${fail_on:+--fail-on "$fail_on"} || status=$?
  exit "$status"
fi
