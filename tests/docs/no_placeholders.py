#!/usr/bin/env python3
"""No template hole (`{name}`) left unfilled in README.md, docs/*.md, the
manual pages' sources (packaging/man) or the generated pages. Shell's `${x}`
is not one. usage: no_placeholders.py SOURCE_DIR GENERATED_MAN_DIR"""
import os
import re
import sys

HOLE = re.compile(r"(?<!\$)\{[A-Za-z_][A-Za-z0-9_]*\}")


def files(source, man):
    yield os.path.join(source, "README.md")
    for d in (os.path.join(source, "docs"), os.path.join(source, "packaging", "man"), man):
        for name in sorted(os.listdir(d)):
            path = os.path.join(d, name)
            if os.path.isfile(path) and not name.endswith(".sh"):
                yield path


def main():
    source, man = sys.argv[1], sys.argv[2]
    holes, seen = [], 0
    for path in files(source, man):
        seen += 1
        for n, line in enumerate(open(path, encoding="utf-8", errors="replace"), 1):
            for m in HOLE.finditer(line):
                holes.append(f"{os.path.relpath(path, source)}:{n}: unfilled {m.group(0)}")
    print("\n".join(holes) or f"ok: no unfilled placeholder in {seen} files")
    return 1 if holes else 0


if __name__ == "__main__":
    sys.exit(main())
