#!/bin/sh
# Issue 34.6: with a name server that never answers (a silent UDP socket,
# named by a resolv.conf bound over the host's in a private mount namespace),
# account watch's final push gives up at its 2 s deadline with one line, and
# the watch's own record is still written. Before, getaddrinfo held it for the
# resolver's full timeout (10 s here).
# Usage: push_dns_test.sh ACCOUNT
. "$(dirname "$0")/common.sh"
account=$1
printf 'nameserver 127.0.0.9\noptions timeout:5 attempts:2\n' >"$work/resolv.conf"
cat >"$work/attack.sh" <<SCRIPT
mount --bind "$work/resolv.conf" /etc/resolv.conf
python3 -c '
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.9", 53))
open("$work/listening", "w").close()
while True: s.recv(4096)
' &
silent=\$!
while [ ! -e "$work/listening" ]; do sleep 0.05; done
sleep 0.3 &
started=\$(date +%s%N)
"$account" watch --pid \$! --push http://gateway.blackhole.test:9091 -o "$work/record.jsonl" 2>"$work/err"
echo \$(( (\$(date +%s%N) - started) / 1000000 )) >"$work/ms"
kill \$silent
SCRIPT
timeout 60 unshare -m --propagation private sh -e "$work/attack.sh" || fail "the attack could not be run"
ms=$(cat "$work/ms")
# Two pushes (the first at the start, the final one after it), each held to
# its 2 s deadline, and 1 s for starting and the record. Without the bound
# each took the resolver's 10 s.
[ "$ms" -lt 5300 ] || fail "the push took the watch $ms ms (deadline 2000 ms): $(cat "$work/err")"
[ "$(grep -c 'push to http://gateway.blackhole.test:9091' "$work/err")" -eq 1 ] ||
  fail "not one line about the push: $(cat "$work/err")"
grep -q 'no answer within 2000 ms (resolve gateway.blackhole.test)' "$work/err" || fail "$(cat "$work/err")"
grep -q '"kind":"process"' "$work/record.jsonl" || fail "no record: $(cat "$work/record.jsonl")"
echo ok
