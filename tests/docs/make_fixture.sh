#!/bin/sh
# The record files the docs' examples read, made by real `account run`s of small
# real programs in DIR (tests/docs/doc_examples.py). Names and shapes follow the
# docs: a.jsonl/b.jsonl two builds of a few operations, clone.jsonl a clone whose
# runs 2 and 3 fail, good/broken the same clone with and without a clean target.
# usage: make_fixture.sh ACCOUNT DIR SOURCE_DIR BINARY_DIR
set -eu
account=$1 dir=$2 source=$3 build=$4
cd "$dir"
run() { "$account" run -q "$@"; }

git init -q src
git -C src -c user.name=d -c user.email=d@e commit -q --allow-empty -m one
# 8 MB, as docs/compare.md says: gzip -9 takes about 4 times -1's CPU on it, so
# its gate example is decided under load too (on 108 KB noise could leave it unjudged).
seq 1 1200000 > data.txt

for f in a b; do
  run --repeat 4 --test small --op status -o $f.jsonl -- git -C src status --short
  run --repeat 4 --test small --op gc -o $f.jsonl -- git -C src gc -q
  run --repeat 4 --test small --op count -o $f.jsonl -- sh -c 'seq 1 50000 | wc -l >/dev/null'
done
cp a.jsonl ops.jsonl
cp a.jsonl fleet.jsonl

run --repeat 3 --test clone --op clone -o clone.jsonl -- git clone -q --no-local src dst 2>/dev/null || true
rm -rf dst
run --repeat 3 --test clone --op clone --prepare 'rm -rf dst' -o good.jsonl -- git clone -q --no-local src dst
run --repeat 2 --test clone --op clone -o broken.jsonl -- git clone -q --no-local src dst 2>/dev/null || true
rm -rf dst

run --test readme --op alloc --backtrace-min 1 -o bt.jsonl -- sh -c 'seq 1 1000 | sort >/dev/null'

cp "$source/tests/parse/data/anon.jsonl" anon.jsonl
cp anon.jsonl before.jsonl
sed 's/"tests-placeholder"//' anon.jsonl > after.jsonl

# The README's backtrace example runs a test program of the build tree.
ln -s "$build" build
# docs/run.md: ASan- and TSan-built programs (a GCC build tree has them).
for p in asan_copy tsan_threads; do
  if [ -x "$build/tests/programs/$p" ]; then ln -s "$build/tests/programs/$p" "$p"; fi
done
cp a.jsonl pt.jsonl
# Labels a spreadsheet or Markdown would take for code (docs/input-output.md "Text from records").
grep '"op":"count"' a.jsonl | head -1 |
  sed 's/"test":"small"/"test":"=HYPERLINK(\\"x\\")"/; s/"op":"count"/"op":"a\\tb|<i>"/' > odd.jsonl
# docs/run.md: a run interrupted by TERM after 1 s.
"$account" run -q --repeat 5 --test demo --op sleep -o s.jsonl -- sh -c 'sleep 5 & sleep 5' &
sleep 1
kill -TERM $!
wait $! || true
