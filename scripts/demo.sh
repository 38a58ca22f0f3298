#!/usr/bin/env bash
# Installs what is missing, builds, and accounts a real git workload: a
# repository of generated files is added, committed, cloned and checked out,
# each step under `account run`, then the per-operation table is printed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh"
account="${ACCOUNT_BUILD_DIR:-$root/build}/cli/account"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
records="$work/demo.jsonl"
export GIT_AUTHOR_NAME=demo GIT_AUTHOR_EMAIL=demo@example.com
export GIT_COMMITTER_NAME=demo GIT_COMMITTER_EMAIL=demo@example.com

mkdir "$work/repo"
cd "$work/repo"
git init -q .
# 200 files of deterministic text, about 4 MiB.
for i in $(seq 1 200); do
  seq "$((i * 1000))" "$((i * 1000 + 2500))" >"file$i.txt"
done

run() { "$account" run -q -o "$records" --test demo --op "$1" -- "${@:2}"; }
run "add files" git add .
run "commit" git commit -q -m "demo"
run "clone" git clone -q --no-local "$work/repo" "$work/clone"
run "checkout" git -C "$work/clone" checkout -q -b other
"$account" run -o "$records" --test demo --op "status" -- git -C "$work/clone" status --short
"$account" report "$records"
