#!/bin/sh
# Issue 34.1: with the shim in /etc/ld.so.preload (bound over it in a private
# mount namespace, never the host's file), a set-user-ID root program run by
# nobody must not take ACCOUNT_OUTPUT, ACCOUNT_RUN_DIR or ACCOUNT_BACKTRACE_LOG
# from nobody's environment: it writes nothing at all (no file, no %p name, no
# record on stderr). The same program without the set-user-ID bit still writes
# its record, so the preload is known to work.
# Usage: secure_exec_test.sh SHIM PROGRAM (PROGRAM: tests/programs/hello)
. "$(dirname "$0")/common.sh"
shim=$1
program=$2

cp "$shim" "$work/libaccount.so"
cp "$program" "$work/plain"
cp "$program" "$work/setuid"
chmod 0755 "$work/libaccount.so" "$work/plain"
chmod 4755 "$work/setuid"
echo "$work/libaccount.so" >"$work/ld.so.preload"

# Runs PROGRAM as nobody with ACCOUNT_* aimed at DIR, the shim preloaded.
# The host may have no /etc/ld.so.preload to bind over: the namespace sees /etc
# through an overlay whose upper layer holds the file.
mkdir "$work/upper" "$work/overlay-work"
cp "$work/ld.so.preload" "$work/upper/ld.so.preload"
cat >"$work/attack.sh" <<SCRIPT
mount -t overlay overlay -o lowerdir=/etc,upperdir="$work/upper",workdir="$work/overlay-work" /etc
run() {  # run PROGRAM DIR
  setpriv --reuid=$nobody --regid=$nobody --clear-groups env \
    ACCOUNT_OUTPUT="\$2/%p.jsonl" ACCOUNT_BACKTRACE_MIN=1 ACCOUNT_BACKTRACE_LOG="\$2/bt-%p.log" \
    "\$1" secure 0
}
run "$work/plain" "$nobody_dir" >"$work/plain.out" 2>"$work/plain.err"
run "$work/setuid" "$root_dir" >"$work/setuid.out" 2>"$work/setuid.err"
setpriv --reuid=$nobody --regid=$nobody --clear-groups env ACCOUNT_RUN_DIR="$root_dir" \
  "$work/setuid" rundir 0 >"$work/rundir.out" 2>"$work/rundir.err"
SCRIPT
# Everything else in the namespace (sh, mount, setpriv, env) is preloaded too:
# its records go to /dev/null.
ACCOUNT_OUTPUT=/dev/null unshare -m --propagation private sh -e "$work/attack.sh" || fail "the attack could not be set up"

# The control: preloaded, nobody's own program writes its record.
[ "$(cat "$work/plain.out")" = "hello from secure" ] || fail "plain: $(cat "$work/plain.out")"
set -- "$nobody_dir"/*.jsonl
[ $# -eq 1 ] && [ -f "$1" ] || fail "plain program wrote no record: $(ls "$nobody_dir")"
grep -q '"kind":"process".*"exit_code":0' "$1" || fail "plain record: $(cat "$1")"

# The set-user-ID program ran, and wrote nothing of root's anywhere.
[ "$(cat "$work/setuid.out")" = "hello from secure" ] || fail "setuid: $(cat "$work/setuid.out")"
[ "$(cat "$work/rundir.out")" = "hello from rundir" ] || fail "setuid: $(cat "$work/rundir.out")"
[ "$(cat "$work/setuid.err")" = "note" ] || fail "setuid stderr: $(cat "$work/setuid.err")"
[ "$(cat "$work/rundir.err")" = "note" ] || fail "setuid stderr: $(cat "$work/rundir.err")"
[ -z "$(ls -A "$root_dir")" ] || fail "root wrote into nobody's choice: $(ls -l "$root_dir")"
echo ok
