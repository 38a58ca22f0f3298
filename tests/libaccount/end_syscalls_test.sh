#!/bin/sh
# The shim's system calls at a process's end, under strace. The record's
# figures cost, in order: getrusage(RUSAGE_SELF) (CPU, faults, switches,
# storage bytes), the open and read of /proc/thread-self/status (peaks: the
# calling thread's view, since /proc/self is the main thread's, which reads as
# a zombie's once main has called pthread_exit), and for
# rchar/wchar getrusage(RUSAGE_CHILDREN) and the open and read of
# /proc/self/io. Neither file is closed: exit closes them, and exec
# (O_CLOEXEC). Six calls, two more than before the kernel counters.
set -eu
so=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
strace -qq -o "$dir/log" -E "LD_PRELOAD=$so" -E ACCOUNT_SAMPLE_MS=0 \
  -E "ACCOUNT_OUTPUT=$dir/records.jsonl" /bin/true
end=$(sed -n '/^getrusage(RUSAGE_SELF/,$p' "$dir/log")
names=$(printf '%s\n' "$end" | head -6 | sed 's/(.*//' | tr '\n' ' ')
expected="getrusage openat pread64 getrusage openat pread64 "
fail=0
if [ "$names" != "$expected" ]; then
  echo "FAIL: the end's first system calls are '$names', expected '$expected'"
  fail=1
fi
for file in thread-self/status self/io; do
  fd=$(printf '%s\n' "$end" | sed -n "s|^openat(AT_FDCWD, \"/proc/$file\".* = \([0-9]*\)$|\1|p")
  if [ -z "$fd" ]; then
    echo "FAIL: /proc/$file not opened at the end"
    fail=1
  elif printf '%s\n' "$end" | grep -q "^close($fd)"; then
    echo "FAIL: /proc/$file (fd $fd) closed at the end: exit closes it"
    fail=1
  fi
done
if [ ! -s "$dir/records.jsonl" ]; then
  echo "FAIL: no record written"
  fail=1
fi
[ $fail = 0 ] && echo ok
[ $fail = 0 ]
