# Shared by the tests of tests/security/: an unprivileged user (nobody) attacks
# a root `account`. Sourced; sets $work (removed on exit) and defines helpers.
set -eu
[ "$(id -u)" -eq 0 ] || { echo "fail: these tests act as nobody against root; run them as root"; exit 1; }
work=$(mktemp -d)
chmod 0755 "$work"
trap 'rm -rf "$work"' EXIT
nobody=65534

as_nobody() {  # as_nobody COMMAND...: runs it as uid/gid 65534, no groups
  setpriv --reuid=$nobody --regid=$nobody --clear-groups "$@"
}

fail() {
  echo "fail: $*"
  exit 1
}

# A directory only root can enter, and one nobody owns.
root_dir=$work/root-only
mkdir -m 0700 "$root_dir"
nobody_dir=$work/nobody
mkdir -m 0755 "$nobody_dir"
chown $nobody:$nobody "$nobody_dir"

# all_sleeping PIDS...: every one of PIDS has exec'd sleep (a child found in
# /proc/PID/task/*/children can still be the shell's fork before its exec).
all_sleeping() {
  for pid in "$@"; do
    [ "$(cat /proc/$pid/comm 2>/dev/null)" = sleep ] || return 1
  done
}

# kill_run_expect_gone RUN PIDS...: SIGKILLs account run RUN and fails unless
# every one of PIDS (its command's tree) is gone, or a zombie of whoever reaps
# orphans, within 1 s.
kill_run_expect_gone() {
  run=$1
  shift
  # The shell's "Killed" for its job, whenever it reaps it, is not the test's
  # output (CTest matches "^ok"; 1 run in 12 failed on it).
  { kill -9 $run; wait $run; } 2>/dev/null || true
  for pid in "$@"; do
    dead=
    for _ in $(seq 20); do  # 1 s
      # Gone and reaped already: no status file, and sed's failure must not
      # end the script under set -e (it did, silently, in CI-like runs).
      state=$(sed -n 's/^State:\t\(.\).*/\1/p' /proc/$pid/status 2>/dev/null || true)
      [ -z "$state" ] || [ "$state" = Z ] && { dead=1; break; }
      sleep 0.05
    done
    [ -n "$dead" ] || { kill -9 "$@"; fail "process $pid of the command's tree outlived account run"; }
  done
}

# expect_leftovers_removed RUN ERR LIST: ERR (the next run's stderr) says in
# one line that it removed what account run RUN left, and no path of LIST
# (one a line) is left.
expect_leftovers_removed() {
  [ "$(grep -c "^account: run: removed what account run $1 left (.*): it was killed, and its tree record was never written$" "$2")" -eq 1 ] ||
    fail "not one line: $(cat "$2")"
  while read -r left; do
    [ ! -e "$left" ] || fail "left behind: $left"
  done <"$3"
}
