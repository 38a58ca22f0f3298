#!/bin/bash
# A real git daemon stopped the way servers stop, by SIGTERM (issue 33.1):
# under `account run --stop-signal TERM` and under `account watch --tree`, the
# run reads "stopped (SIGTERM)", its figures count, and report exits 0;
# without a stop signal the same end is a failed run (exit 4).
# Usage: stopped_server_test.sh ACCOUNT_BINARY; prints "ok" last.
set -u
account=$1
dir=$(mktemp -d)
trap 'kill $(cat "$dir"/*.pid 2>/dev/null) 2>/dev/null; rm -rf "$dir"' EXIT
git init -q --bare "$dir/repo.git"
fail() { echo "FAIL: $*"; exit 1; }

port_of() {  # a free port on the loopback, chosen by the kernel
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
daemon_args() {  # PORT PIDFILE
  echo git daemon --reuseaddr --listen=127.0.0.1 --port="$1" --base-path="$dir" --export-all \
    --pid-file="$2"
}
wait_serving() {  # PORT: until a clone-side request gets an answer (at most 10 s)
  for _ in $(seq 100); do
    git ls-remote "git://127.0.0.1:$1/repo.git" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  fail "git daemon on port $1 never answered"
}
wait_pidfile() {
  for _ in $(seq 100); do [ -s "$1" ] && return 0; sleep 0.1; done
  fail "no pid file $1"
}

# 1. account run --stop-signal TERM, the daemon killed by TERM: stopped.
port=$(port_of)
"$account" run -q --test serve --op daemon --stop-signal TERM -o "$dir/run.jsonl" -- \
  $(daemon_args "$port" "$dir/run.pid") &
run=$!
wait_pidfile "$dir/run.pid"
wait_serving "$port"
kill -TERM "$(cat "$dir/run.pid")"
wait $run
status=$?
[ $status = 143 ] || fail "account run returned $status, not the daemon's 143"
grep -q '"kind":"tree".*"exit_code":143,.*"stop_signals":\[15\]' "$dir/run.jsonl" ||
  fail "no stop_signals in the tree record: $(grep tree "$dir/run.jsonl")"
out=$("$account" report --columns +exit "$dir/run.jsonl")
status=$?
[ $status = 0 ] || fail "report exit $status, not 0: $out"
row=$(grep '^serve ' <<<"$out")
grep -q 'stopped (SIGTERM)$' <<<"$row" || fail "row not stopped: $row"
# Its figures are there: CPU and sizes, not blanks (the Runs column says 1).
read -r _ _ cpu size resident _ <<<"$row"
[[ $cpu =~ ^[0-9]+\.[0-9]{2}$ ]] || fail "CPU not shown: $row"
awk -v s="$size" -v r="$resident" 'BEGIN { exit !(s > 1 && r > 1) }' ||
  fail "sizes of a real git daemon must exceed 1 MiB: $row"
metrics=$("$account" export -f openmetrics "$dir/run.jsonl")
grep -qx 'account_runs{test="serve",operation="daemon",host="[^"]*"} 1' <<<"$metrics" ||
  fail "openmetrics does not count the stopped run: $metrics"
grep -qx 'account_failed_runs{test="serve",operation="daemon",host="[^"]*"} 0' <<<"$metrics" ||
  fail "openmetrics counts the stopped run as failed: $metrics"

# 2. The same end without --stop-signal: failed, left out, exit 4.
port=$(port_of)
"$account" run -q --test serve --op daemon -o "$dir/failed.jsonl" -- \
  $(daemon_args "$port" "$dir/failed.pid") &
run=$!
wait_pidfile "$dir/failed.pid"
wait_serving "$port"
kill -TERM "$(cat "$dir/failed.pid")"
wait $run
out=$("$account" report "$dir/failed.jsonl")
status=$?
[ $status = 4 ] || fail "report of a failed run exit $status, not 4: $out"
grep -q '^serve .*1 of 1 failed: exit 143$' <<<"$out" || fail "not failed: $out"

# 3. account watch --pid DAEMON --tree, then kill -TERM: stopped by default.
for stop in default none; do
  port=$(port_of)
  $(daemon_args "$port" "$dir/watched-$stop.pid") &
  daemon=$!
  wait_serving "$port"
  extra=()
  [ $stop = none ] && extra=(--stop-signal none)
  "$account" watch --pid $daemon --tree --test serve --op daemon "${extra[@]}" \
    -o "$dir/watch-$stop.jsonl" 2>/dev/null &
  watch=$!
  # Requests until the watch has written a record (the daemon's child that
  # served one ended): it is attached, however slow its start on a busy machine.
  for _ in $(seq 100); do
    git ls-remote "git://127.0.0.1:$port/repo.git" >/dev/null || fail "no answer under watch"
    [ -s "$dir/watch-$stop.jsonl" ] && break
    sleep 0.1
  done
  [ -s "$dir/watch-$stop.jsonl" ] || fail "account watch wrote no record in 10 s"
  kill -TERM $daemon
  wait $watch || fail "account watch returned $?"
  wait $daemon 2>/dev/null
  out=$("$account" report --columns +exit "$dir/watch-$stop.jsonl")
  status=$?
  if [ $stop = default ]; then
    [ $status = 0 ] || fail "report of a watched stop exit $status, not 0: $out"
    row=$(grep '^serve ' <<<"$out")
    grep -q 'stopped (SIGTERM)$' <<<"$row" || fail "watched row not stopped: $row"
    read -r _ _ cpu size _ <<<"$row"
    awk -v s="$size" 'BEGIN { exit !(s > 1) }' || fail "watched row has no size: $row"
  else
    [ $status = 4 ] || fail "--stop-signal none: report exit $status, not 4: $out"
    grep -q '1 of 1 failed: signal 15$' <<<"$out" || fail "--stop-signal none not failed: $out"
  fi
done
"$account" watch --pid 1 --tree --stop-signal none --stop-signal TERM 2>"$dir/err"
[ $? = 1 ] || fail "none with a signal accepted"
grep -qx 'account: watch: --stop-signal none cannot go with other signals' "$dir/err" ||
  fail "message: $(cat "$dir/err")"
echo ok
