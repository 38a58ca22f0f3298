#!/usr/bin/env bash
# The HTML report in a real browser (issue 13). Records a real story under
# `account run --timeline --backtrace-min`: a `git daemon` serving a small
# repository, a `git clone` from it over git://, a `git status` in the clone;
# writes `account report --format html`, opens it in headless Chromium with the
# network off (a network namespace of its own, where unshare works), and checks:
# no console message and no script error, the tooltips set up by the page's
# script, the page no wider than a 1366-px laptop screen, the expected charts,
# and the table cells in the DOM equal to `account report`'s text. The report,
# the DOM and a PNG screenshot stay in OUTDIR as the test's artifacts.
# Then html_browser_zoom.py drives the zoom with real mouse events (the axis
# re-ticked as the tool ticks it, zoomed out again) and opens the compare page
# of two clones recorded the same way (run1, run2), whose memory curves and
# process timelines share one time axis each.
#
# usage: html_browser_test.sh ACCOUNT OUTDIR TIME_AXIS_LABELS
# Prints "ok" at the end; any failure is one line starting with "FAIL:".
set -euo pipefail

ACCOUNT=$1
OUT=$2
LABELS=$3
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
fail() {
  echo "FAIL: $*"
  exit 1
}
command -v chromium >/dev/null ||
  fail "chromium not found: the browser test needs Debian's chromium (scripts/install-deps.sh installs it)"
command -v git >/dev/null || fail "git not found (scripts/install-deps.sh installs it)"
rm -rf "$OUT"
mkdir -p "$OUT"
W=$(mktemp -d "${TMPDIR:-/tmp}/html-browser.XXXXXX")
DAEMON_RUN=
cleanup() {
  [ -z "$DAEMON_RUN" ] || kill "$DAEMON_RUN" 2>/dev/null || true
  rm -rf "$W"
}
trap cleanup EXIT
export HOME=$W GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org \
  GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org
R=$OUT/records.jsonl
: >"$R"

# A repository with some history: 400 files, three commits.
git init -q -b main "$W/src"
for c in 1 2 3; do
  awk -v c="$c" -v dir="$W/src" 'BEGIN {
    for (i = 1; i <= 400; i++) {
      f = dir "/file" i ".txt"
      for (n = i * c; n <= i * c + 300; n++) print "line", c, i, n > f
      close(f)
    }
  }'
  git -C "$W/src" add -A
  git -C "$W/src" commit -q -m "commit $c"
done

# The daemon on a free port, under account run in the background.
port=
for try in 1 2 3 4 5; do
  p=$((20000 + (RANDOM % 20000)))
  hex=$(printf '%04X' "$p")
  grep -q ":$hex " /proc/net/tcp 2>/dev/null && continue
  "$ACCOUNT" run -q --timeline --backtrace-min 256K --test story --op serve -o "$W/daemon.jsonl" -- \
    git daemon --export-all --reuseaddr --base-path="$W" --listen=127.0.0.1 --port="$p" \
    --pid-file="$W/daemon.pid" "$W" 2>"$W/daemon.err" &
  DAEMON_RUN=$!
  for _ in $(seq 1 500); do
    kill -0 "$DAEMON_RUN" 2>/dev/null || break
    if [ -s "$W/daemon.pid" ] && grep -q "0100007F:$hex 00000000:0000 0A" /proc/net/tcp; then
      port=$p
      break
    fi
    sleep 0.01
  done
  [ -n "$port" ] && break
  kill "$DAEMON_RUN" 2>/dev/null || true
  wait "$DAEMON_RUN" 2>/dev/null || true
  DAEMON_RUN=
done
[ -n "$port" ] || fail "git daemon did not listen: $(cat "$W/daemon.err")"
"$ACCOUNT" run -q --timeline --backtrace-min 256K --test story --op clone -o "$R" -- \
  git clone -q "git://127.0.0.1:$port/src" "$W/dst" || fail "git clone failed"
# git status can end within one 5-ms interval: sampled every millisecond, its
# memory chart has the two samples a curve needs.
"$ACCOUNT" run -q --timeline --interval 1 --backtrace-min 256K --test story --op status -o "$R" -- \
  git -C "$W/dst" status --short || fail "git status failed"
# The same clone and status again: the second build of the compare page.
B=$OUT/run2.jsonl
"$ACCOUNT" run -q --timeline --backtrace-min 256K --test story --op clone -o "$B" -- \
  git clone -q "git://127.0.0.1:$port/src" "$W/dst2" || fail "the second git clone failed"
"$ACCOUNT" run -q --timeline --interval 1 --backtrace-min 256K --test story --op status -o "$B" -- \
  git -C "$W/dst2" status --short || fail "the second git status failed"
# SIGTERM to the git wrapper that runs git-daemon (it passes it on), then wait
# for account run's tree record.
dpid=$(cat "$W/daemon.pid")
target=$dpid
ppid=$(awk '{ print $4 }' "/proc/$dpid/stat")
[ "$ppid" = "$DAEMON_RUN" ] || target=$ppid
kill -TERM "$target"
wait "$DAEMON_RUN" || true
DAEMON_RUN=
# The clones and statuses alone are the first build of the compare page.
cp "$R" "$OUT/run1.jsonl"
# The serve's records first: the rows in the story's order.
cat "$W/daemon.jsonl" "$R" >"$W/all.jsonl"
mv "$W/all.jsonl" "$R"

# The serve run ends by SIGTERM: a failed run, counted in (exit status 4).
status=0
"$ACCOUNT" report --include-failed --format html -o "$OUT/report.html" "$R" || status=$?
[ "$status" = 0 ] || [ "$status" = 4 ] || fail "account report --format html: exit $status"
status=0
"$ACCOUNT" report --include-failed "$R" >"$OUT/report.txt" || status=$?
[ "$status" = 0 ] || [ "$status" = 4 ] || fail "account report: exit $status"

# Chromium, with no network at all where a namespace of its own can be made.
NET=()
if unshare -n true 2>/dev/null; then NET=(unshare -n); fi
browser() {
  "${NET[@]}" timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
    --user-data-dir="$W/profile" --enable-logging=stderr --v=0 --window-size=1366,900 "$@" \
    "file://$OUT/report.html"
}
browser --dump-dom >"$OUT/dom.html" 2>"$OUT/chromium.log" ||
  fail "chromium --dump-dom failed: $(tail -3 "$OUT/chromium.log")"
browser --screenshot="$OUT/report.png" >/dev/null 2>>"$OUT/chromium.log" ||
  fail "chromium --screenshot failed: $(tail -3 "$OUT/chromium.log")"

# No console message (errors, failed loads) and no script error.
if grep -E 'CONSOLE|net::ERR|Uncaught' "$OUT/chromium.log" >"$W/console"; then
  fail "the browser reported: $(head -3 "$W/console")"
fi
grep -q '<html[^>]* data-js-errors=' "$OUT/dom.html" &&
  fail "script error: $(grep -o 'data-js-errors="[^"]*"' "$OUT/dom.html")"
# The script ran: every chart element's tooltip is set up.
tips=$(sed -n 's/.*<html[^>]* data-tips="\([0-9]*\)".*/\1/p' "$OUT/dom.html")
[ -n "$tips" ] || fail "the page's script did not run (no data-tips on <html>)"
titles=$(grep -o '<title>' "$OUT/report.html" | wc -l)
[ "$tips" = "$((titles - 1))" ] || fail "$tips tooltips set up for $((titles - 1)) chart titles"
[ "$(grep -c 'data-tip="' "$OUT/dom.html")" -ge 1 ] || fail "no data-tip in the DOM"
# No sideways scrolling on a 1366-px screen.
width=$(sed -n 's/.*<html[^>]* data-scroll-width="\([0-9]*\)".*/\1/p' "$OUT/dom.html")
[ -n "$width" ] && [ "$width" -le 1366 ] || fail "the page is $width px wide, over 1366"
# The charts: memory and processes for each of the three operations, the
# allocations where large ones were made (the clone's index-pack, the serve's
# pack-objects).
n() { grep -o "aria-label=\"$1\"" "$OUT/dom.html" | wc -l; }
[ "$(n 'memory over time')" = 3 ] || fail "$(n 'memory over time') memory charts, not 3"
[ "$(n 'process timeline')" = 3 ] || fail "$(n 'process timeline') process timelines, not 3"
[ "$(n 'where large allocations come from')" -ge 1 ] || fail "no allocation chart"
# The story reads: the daemon, its upload-pack and pack-objects, the clone's index-pack.
for who in 'git-daemon' 'git upload-pack' 'git pack-objects' 'git index-pack' 'git clone'; do
  grep -q "$who" "$OUT/dom.html" || fail "the process timelines do not show $who"
done
# The table at the top: its cells, row by row, are account report's text.
sed -n '/<table>/,/<\/table>/p' "$OUT/dom.html" | sed -n '1,/<\/table>/p' | grep '<td' |
  sed -e 's/<[^>]*>/ /g' -e 's/&amp;/\&/g' | awk '{ $1 = $1; print }' >"$W/dom-rows"
# The notes under the table (from "Exit:" on) are the page's footnotes, not rows.
tail -n +4 "$OUT/report.txt" | sed '/^Exit:/,$d' | grep -v '^$' | awk '{ $1 = $1; print }' >"$W/text-rows"
[ -s "$W/dom-rows" ] || fail "no table rows in the DOM"
diff "$W/text-rows" "$W/dom-rows" >"$W/diff" ||
  fail "the page's table differs from account report's: $(head -5 "$W/diff" | tr '\n' ' ')"
# The screenshot: a PNG of the window's size.
[ "$(head -c 8 "$OUT/report.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
  fail "$OUT/report.png is not a PNG"
png_width=$((16#$(head -c 20 "$OUT/report.png" | tail -c 4 | od -An -tx1 | tr -d ' \n')))
[ "$png_width" = 1366 ] || fail "the screenshot is $png_width px wide, not 1366"

# Zoom with the mouse, and the compare page.
"$ACCOUNT" compare --format html --names run1,run2 -o "$OUT/compare.html" "$OUT/run1.jsonl" "$B" ||
  fail "account compare --format html: exit $?"
python3 "$HERE/html_browser_zoom.py" "$LABELS" "$OUT" "$OUT/report.html" "$OUT/compare.html" \
  run1 run2 >"$W/zoom" || fail "$(sed -n "s/^FAIL: //p" "$W/zoom")"
echo "ok: $(wc -c <"$OUT/report.html") bytes, $tips tooltips, $width px wide; $(cat "$W/zoom"); artifacts in $OUT"
