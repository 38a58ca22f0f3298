#!/usr/bin/env bash
# history-demo.sh DIR [ACCOUNT]: the history of docs/history.md. Makes DIR/repo,
# a small C program's 30 commits: commit 12 makes its work loop a quarter longer,
# commit 19 plants a malloc regression (a second 64 KiB buffer per item). Builds
# and measures every commit (5 runs, account run --store --commit), into
# DIR/results.sqlite.
set -euo pipefail
dir=$1 account=${2:-account}
rm -rf "$dir" && mkdir -p "$dir/repo"
cd "$dir/repo"
git init -q -b main
for c in $(seq 1 30); do
  loops=200000; [ "$c" -ge 12 ] && loops=250000
  extra=0; [ "$c" -ge 19 ] && extra=1
  cat >main.c <<C
#include <stdlib.h>
#include <string.h>
/* revision $c */
static unsigned long work(const char* p, size_t n) {
  unsigned long h = 5381;
  for (int k = 0; k < $loops; ++k) h = h * 33 + (unsigned char)p[k % n];
  return h;
}
int main(void) {
  unsigned long h = 0;
  for (int i = 0; i < 64; ++i) {
    char* item = malloc(65536);
    memset(item, i, 65536);
    if ($extra) {
      char* copy = malloc(65536);
      memcpy(copy, item, 65536);
      free(copy);
    }
    h += work(item, 65536);
    free(item);
  }
  return h == 42;
}
C
  git add main.c
  git -c user.name=Demo -c user.email=demo@example.org commit -qm "revision $c"
done
for sha in $(git rev-list --reverse HEAD); do
  git checkout -q "$sha"
  cc -O0 -fno-builtin -o prog main.c
  "$account" run -q --repeat 5 --test demo --op items --store "$dir/results.sqlite" \
    --commit "$sha" -o "$dir/all.jsonl" -- ./prog
done
git checkout -q main
