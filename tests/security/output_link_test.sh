#!/bin/sh
# Issue 34.3: nobody plants a link to a root-only file, and a FIFO, in a shared
# sticky directory under the names root's `account report/compare/export -o`
# will write. The link is replaced by root's output, never followed (the
# root-only file keeps its bytes); the FIFO is refused at once, never blocks.
# Usage: output_link_test.sh ACCOUNT RECORDS.jsonl
. "$(dirname "$0")/common.sh"
account=$1
records=$2
shared=$work/tmp
mkdir -m 1777 "$shared"
printf 'root secret\n' >"$root_dir/secret"
as_nobody ln -s "$root_dir/secret" "$shared/report.txt"
as_nobody ln -s "$root_dir/secret" "$shared/trace.json"
as_nobody mkfifo "$shared/fifo"
"$account" report -o "$shared/report.txt" "$records" 2>"$work/err" || fail "report: $(cat "$work/err")"
"$account" export -f chrome-trace -o "$shared/trace.json" "$records" 2>"$work/err" ||
  fail "export: $(cat "$work/err")"
[ "$(cat "$root_dir/secret")" = "root secret" ] || fail "root's file was written through the link"
for f in report.txt trace.json; do
  [ -f "$shared/$f" ] && [ ! -L "$shared/$f" ] || fail "$f is not root's own file"
  [ "$(stat -c %u "$shared/$f")" = 0 ] || fail "$f is not root's"
done
grep -q 'Operation' "$shared/report.txt" || fail "the report is not in report.txt"
start=$(date +%s)
status=0
timeout 10 "$account" compare -o "$shared/fifo" "$records" "$records" 2>"$work/err" || status=$?
[ "$status" = 1 ] || fail "compare -o FIFO: status $status (124: it blocked): $(cat "$work/err")"
[ $(($(date +%s) - start)) -le 2 ] || fail "compare -o FIFO took more than 2 s"
grep -qx "account: compare: cannot write $shared/fifo: it is a FIFO (refused: use -o - and a redirect)" \
  "$work/err" || fail "compare -o FIFO: $(cat "$work/err")"
echo ok
