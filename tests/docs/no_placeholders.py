#!/usr/bin/env python3
"""No template hole (`{name}`) left unfilled in README.md, docs/*.md,
perf-tests/README.md, the manual pages' sources (packaging/man) or the
generated pages (man1/, man7/, gzipped). Shell's `${x}` is not one. usage: no_placeholders.py SOURCE_DIR GENERATED_MAN_DIR"""
import gzip
import os
import re
import sys

HOLE = re.compile(r"(?<!\$)\{[A-Za-z_][A-Za-z0-9_]*\}")


def files(source, man):
    yield os.path.join(source, "README.md")
    yield os.path.join(source, "perf-tests", "README.md")
    for d in (os.path.join(source, "docs"), os.path.join(source, "packaging", "man"), man):
        for top, _, names in sorted(os.walk(d)):
            for name in sorted(names):
                if name.endswith((".md", ".h2m", ".in", ".gz")):
                    yield os.path.join(top, name)


def lines(path):
    if path.endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8", errors="replace")
    return open(path, encoding="utf-8", errors="replace")


def main():
    source, man = sys.argv[1], sys.argv[2]
    holes, seen, pages = [], 0, 0
    for path in files(source, man):
        seen += 1
        pages += path.endswith(".gz")
        for n, line in enumerate(lines(path), 1):
            for m in HOLE.finditer(line):
                holes.append(f"{os.path.relpath(path, source)}:{n}: unfilled {m.group(0)}")
    if not pages:
        holes.append(f"no generated manual page (*.gz) under {man}")
    print("\n".join(holes) or f"ok: no unfilled placeholder in {seen} files")
    return 1 if holes else 0


if __name__ == "__main__":
    sys.exit(main())
