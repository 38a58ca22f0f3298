#!/bin/sh
# report-bench-git.sh ACCOUNT OUT_DIR: the records docs/report.md is made from.
# Runs the same git workload twice under `account run`, once with git's default
# zlib level ("a.jsonl") and once with core.compression=0 ("b.jsonl"), so that
# `account compare` has a real difference to show.
set -eu
ACCOUNT=${1:?usage: report-bench-git.sh ACCOUNT OUT_DIR}
OUT=${2:?usage: report-bench-git.sh ACCOUNT OUT_DIR}
mkdir -p "$OUT"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

workload() {  # $1: records file, $2: git -c setting
  rec=$1 setting=$2
  rm -f "$rec"
  for test in small large; do
    repo="$WORK/$test-$(basename "$rec" .jsonl)"
    rm -rf "$repo" && mkdir -p "$repo" && cd "$repo"
    git init -q . && git config user.email bench@example.com && git config user.name bench
    if [ "$test" = small ]; then
      i=0
      while [ $i -lt 300 ]; do
        head -c 12000 /dev/urandom | base64 > "f$i.txt"
        i=$((i + 1))
      done
    else
      # 24 MiB: half zeros, half random, like the seed's halfzero_large.
      { head -c 12582912 /dev/zero; head -c 12582912 /dev/urandom; } > big.bin
    fi
    run() { op=$1; shift; "$ACCOUNT" run -q -o "$rec" --test "$test" --op "$op" "$@"; }
    run "add files" -- git -c "$setting" add .
    run commit -- git -c "$setting" commit -qm initial
    rm -rf ./*
    run checkout -- git -c "$setting" checkout -q -- .
    run status --repeat 5 -- git status --porcelain
    run gc -- git -c "$setting" gc -q
  done
}

workload "$OUT/a.jsonl" core.compression=-1
workload "$OUT/b.jsonl" core.compression=0
