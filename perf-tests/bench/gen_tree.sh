#!/bin/sh
# gen_tree.sh DIR [FILES] [KIB]: a deterministic source-like tree for the git
# workloads: FILES files (default 2000) of about KIB KiB each (default 25), so
# about 50 MiB, spread over 40 directories. Text that compresses like code
# (about 3:1), not random bytes and not zeros.
set -eu
dir=$1
files=${2:-2000}
kib=${3:-25}
mkdir -p "$dir"
/usr/bin/python3 - "$dir" "$files" "$kib" <<'PY'
import os, random, sys
d, files, kib = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(42)
words = ["int", "return", "static", "void", "const", "struct", "if", "else", "for",
         "while", "size_t", "buffer", "count", "value", "result", "error", "length"]
words += ["%s_%d" % (w, i) for i in range(40) for w in ("node", "item", "ctx")]
for f in range(files):
    sub = os.path.join(d, "dir%02d" % (f % 40))
    os.makedirs(sub, exist_ok=True)
    out, size = [], 0
    while size < kib * 1024:
        line = "    " + " ".join(rng.choice(words) for _ in range(rng.randint(3, 12))) + ";\n"
        out.append(line)
        size += len(line)
    with open(os.path.join(sub, "file%04d.c" % f), "w") as fh:
        fh.write("".join(out))
PY
