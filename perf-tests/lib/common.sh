# shellcheck shell=bash
# Shared by perf-test.sh and accounts-test.sh (sourced, not run): messages, finding
# git and account, running one accounted operation, and a git daemon on loopback.
#
# The caller sets PROG (its name for messages) and, before using run_op/daemon_*,
# GIT, ACCOUNT, RECORDS and WORK (and may set RUN_OPTIONS, an array of more
# account run options, e.g. --timeline).

die() { printf '%s: %s\n' "$PROG" "$*" >&2; exit 1; }
usage_error() { printf '%s: %s (see --help)\n' "$PROG" "$*" >&2; exit 1; }
say() { [ "${QUIET:-0}" = 1 ] || printf '### %s\n' "$*" >&2; }

# need_value OPTION "$#": an option that takes a value must have one.
need_value() { [ "$2" -ge 2 ] || usage_error "option $1 needs a value"; }

# find_git [PATH]: sets GIT to an absolute path of a working git, or dies.
find_git() {
  local want=${1:-git} found
  if [[ $want == */* ]]; then
    [ -x "$want" ] || die "--git $want: not an executable file"
    found=$(cd "$(dirname "$want")" && pwd)/$(basename "$want")
  else
    found=$(command -v "$want" 2>/dev/null) || die "git not found in PATH (use --git PATH)"
  fi
  "$found" --version >/dev/null 2>&1 || die "$found --version failed: not a working git"
  GIT=$found
}

# find_account [PATH]: sets ACCOUNT from PATH, $ACCOUNT, the installed prefix
# (PREFIX/bin/account when this is PREFIX/share/account/perf-tests), the build
# directories next to this checkout, or PATH; dies with a clear message otherwise.
find_account() {
  local want=${1:-${ACCOUNT:-}} top c
  if [ -n "$want" ]; then
    [ -x "$want" ] || die "account tool $want: not an executable file"
    ACCOUNT=$(cd "$(dirname "$want")" && pwd)/$(basename "$want")
    return
  fi
  case $LIB_DIR in
    */share/account/perf-tests/lib)
      c=${LIB_DIR%/share/account/perf-tests/lib}/bin/account
      if [ -x "$c" ]; then ACCOUNT=$c; return; fi ;;
  esac
  top=$(cd "$LIB_DIR/../.." && pwd)
  for c in "$top"/build/cli/account "$top"/build-*/cli/account; do
    if [ -x "$c" ]; then ACCOUNT=$c; return; fi
  done
  if c=$(command -v account 2>/dev/null); then ACCOUNT=$c; return; fi
  die "the account tool was not found: build it (cmake --build build) or pass --account PATH"
}

# The environment every git command of the harness sees: no user or system
# configuration, fixed identities and dates (so object ids repeat run to run).
git_environment() {
  export HOME="$WORK/home"
  mkdir -p "$HOME"
  export GIT_CONFIG_NOSYSTEM=1 GIT_TERMINAL_PROMPT=0
  export GIT_AUTHOR_NAME="Perf Test" GIT_AUTHOR_EMAIL="perf@example.com"
  export GIT_COMMITTER_NAME="Perf Test" GIT_COMMITTER_EMAIL="perf@example.com"
  export GIT_AUTHOR_DATE="1123545600 +0000" GIT_COMMITTER_DATE="1123545600 +0000"
  unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY GIT_CONFIG_PARAMETERS
}

# g ARGS...: git with the harness's -c settings (GIT_C: an array of "-c" "k=v").
g() { "$GIT" "${GIT_C[@]}" "$@"; }

# run_op TEST OP [account-run options...] -- COMMAND...
# Runs COMMAND under `account run`, appending to RECORDS. Its stderr is kept; on
# failure the command and that stderr are printed and the harness stops.
run_op() {
  local test=$1 op=$2 err status=0 line
  shift 2
  err="$WORK/stderr.$$"
  say "$test: $op"
  "$ACCOUNT" run --test "$test" --op "$op" -o "$RECORDS" ${RUN_OPTIONS[@]+"${RUN_OPTIONS[@]}"} \
    "$@" 2>"$err" || status=$?
  if [ "$status" -ne 0 ]; then
    printf '%s: %s %s failed (exit %d): %s\n' "$PROG" "$test" "$op" "$status" "$(cmd_of "$@")" >&2
    grep -v '^account: .* -> ' "$err" >&2 || true
    exit 1
  fi
  if [ "${QUIET:-0}" != 1 ]; then
    while IFS= read -r line; do
      case $line in "account: "*" -> "*) printf '    %s\n' "${line%% -> *}" >&2 ;; esac
    done <"$err"
  fi
}

# cmd_of [account-run options...] -- COMMAND...: COMMAND as one line.
cmd_of() {
  while [ $# -gt 0 ] && [ "$1" != -- ]; do shift; done
  [ $# -gt 0 ] && shift
  printf '%s' "$*"
}

# ---- git daemon on loopback -------------------------------------------------
# port_listening PORT: true when something listens on 127.0.0.1:PORT or *:PORT.
port_listening() {
  local hex
  hex=$(printf '%04X' "$1")
  awk -v h=":$hex" 'NR > 1 && $4 == "0A" && substr($2, length($2) - 4) == h { f = 1 }
                    END { exit !f }' /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# free_port: a port in 20000-32767 (below Linux's ephemeral range, so no outgoing
# connection holds it) nobody listens on.
free_port() {
  local p=$((20000 + ($$ * 7 + RANDOM) % 12768)) i
  for ((i = 0; i < 200; i++)); do
    port_listening "$p" || { echo "$p"; return; }
    p=$((20000 + (p - 20000 + 1) % 12768))
  done
  die "no free TCP port found"
}

# daemon_start TEST OP BASE: `git daemon` serving BASE under `account run`, in the
# background. Sets DAEMON_PORT, DAEMON_RUN (the account run pid) and DAEMON_PID.
# Waits until the port listens (read from /proc/net/tcp, so no probe connection
# is counted in the serve row). The records go to a file of their own, appended to
# RECORDS by daemon_stop, so an attempt that lost a race for the port leaves no
# run behind.
daemon_start() {
  local test=$1 op=$2 base=$3 pidfile i
  for _ in 1 2 3 4 5; do
    DAEMON_PORT=$(free_port)
    pidfile="$WORK/daemon.pid"
    rm -f "$pidfile"
    : >"$WORK/daemon.jsonl"
    say "$test: $op (git daemon on 127.0.0.1:$DAEMON_PORT)"
    # SIGTERM is how daemon_stop ends it: a stopped run, not a failed one.
    "$ACCOUNT" run -q --test "$test" --op "$op" -o "$WORK/daemon.jsonl" --stop-signal TERM \
      ${RUN_OPTIONS[@]+"${RUN_OPTIONS[@]}"} -- \
      "$GIT" "${GIT_C[@]}" daemon --export-all --reuseaddr --informative-errors \
      --base-path="$base" --listen=127.0.0.1 --port="$DAEMON_PORT" \
      --pid-file="$pidfile" "$base" 2>"$WORK/daemon.err" &
    DAEMON_RUN=$!
    for ((i = 0; i < 500; i++)); do
      if ! kill -0 "$DAEMON_RUN" 2>/dev/null; then break; fi
      if [ -s "$pidfile" ] && port_listening "$DAEMON_PORT"; then
        DAEMON_PID=$(cat "$pidfile")
        return
      fi
      sleep 0.01
    done
    if kill -0 "$DAEMON_RUN" 2>/dev/null; then
      kill "$DAEMON_RUN" 2>/dev/null || true
      wait "$DAEMON_RUN" 2>/dev/null || true
      die "git daemon did not listen on 127.0.0.1:$DAEMON_PORT within 5 s: $(cat "$WORK/daemon.err")"
    fi
    wait "$DAEMON_RUN" 2>/dev/null || true
    DAEMON_RUN=
    # Lost a race for the port: try another one; anything else is fatal.
    grep -q -i 'unable to allocate\|address already in use' "$WORK/daemon.err" ||
      die "git daemon failed: $(cat "$WORK/daemon.err")"
  done
  die "git daemon could not bind a port after 5 tries"
}

# daemon_stop: SIGTERM to the command `account run` started (the `git` wrapper,
# which passes it on to git-daemon and waits), so every record is written; then
# wait for `account run` to write its tree record.
daemon_stop() {
  [ -n "${DAEMON_RUN:-}" ] || return 0
  local target=$DAEMON_PID ppid i
  ppid=$(awk '{print $4}' "/proc/$DAEMON_PID/stat" 2>/dev/null || true)
  if [ -n "$ppid" ] && [ "$ppid" != "$DAEMON_RUN" ]; then target=$ppid; fi
  kill -TERM "$target" 2>/dev/null || true
  for ((i = 0; i < 500; i++)); do
    kill -0 "$DAEMON_RUN" 2>/dev/null || break
    sleep 0.01
  done
  # Still there after 5 s: the daemon ignored SIGTERM; make sure it ends.
  kill -0 "$DAEMON_RUN" 2>/dev/null && kill -KILL "$DAEMON_PID" "$target" 2>/dev/null
  wait "$DAEMON_RUN" 2>/dev/null || true
  DAEMON_RUN=
  cat "$WORK/daemon.jsonl" >>"$RECORDS"
  rm -f "$WORK/daemon.jsonl"
}

# Runs the script's own cleanup() on exit, stops cleanly on Ctrl-C or TERM
# (saying where the records so far are) and names any command that fails.
interrupted() {
  trap - INT TERM
  echo "$PROG: interrupted; the records so far are in ${RECORDS:-(none yet)}" >&2
  exit 130
}
install_traps() {
  trap cleanup EXIT
  trap interrupted INT TERM
  set -E
  trap 'printf "%s: stopped: \"%s\" failed (exit %d, line %d)\n" "$PROG" "$BASH_COMMAND" $? "$LINENO" >&2' ERR
}

# --store/--commit/--repo of perf-test.sh and accounts-test.sh: the records of
# one build kept in account's results store at a commit (docs/history.md), after
# the runs, in one transaction (`account store add`).
STORE='' COMMIT='' STORE_REPO=.
# store_records FILE...: stores them when --store or --commit was given.
store_records() {
  [ -n "$STORE$COMMIT" ] || return 0
  "$ACCOUNT" store add ${STORE:+--store "$STORE"} --repo "$STORE_REPO" --commit "${COMMIT:-HEAD}" \
    "$@" >&2 || die "the records were not stored (they are in $*)"
}
