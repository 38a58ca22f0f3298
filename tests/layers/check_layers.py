#!/usr/bin/env python3
"""Fails when an #include or a target_link_libraries points up a layer.

usage: check_layers.py SOURCE_DIR [LAYERS_FILE]

Layers come from LAYERS_FILE (default: tests/layers/layers.txt under
SOURCE_DIR). An include is resolved the way the build resolves it: relative to
the including file, then to its top folder (parse/ includes "formats/x.h"),
then <account/...> to the in-test API, then by a file name that exists once in
the layered folders (the folders export their own directory). Each upward arrow
is one line, "FILE:LINE: LAYER includes HEADER of LAYER above it"; exit 1 when
there is one.
"""
import collections
import os
import re
import sys

SOURCE_SUFFIXES = ('.h', '.hpp', '.cc', '.c', '.cpp')


def read_layers(path):
    """{folder: rank} of the layers, and the folders declared outside them."""
    rank, outside = {}, set()
    for n, line in enumerate(open(path), 1):
        words = line.split('#', 1)[0].split()
        if words[:1] == ['outside:']:
            outside.update(words[1:])
            continue
        for folder in words:
            rank[folder] = n
    return rank, outside


def folder_of(rel, rank):
    best = None
    for f in rank:
        if (rel == f or rel.startswith(f + '/')) and (best is None or len(f) > len(best)):
            best = f
    return best


def source_files(root, rank):
    files = {}
    for top in sorted({f.split('/')[0] for f in rank}):
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith(SOURCE_SUFFIXES):
                    rel = os.path.relpath(os.path.join(dirpath, name), root)
                    files[rel] = folder_of(rel, rank)
    return files


def unlisted_folders(root, rank, outside):
    """Every folder the build adds is in a layer or declared outside them, and
    every layer is a folder."""
    problems = [f"{f}: in the layers table but not in the source tree"
                for f in rank if not os.path.isdir(os.path.join(root, f))]
    for line, args in cmake_commands(open(os.path.join(root, 'CMakeLists.txt')).read(),
                                     'add_subdirectory'):
        if args and args[0] not in rank and args[0] not in outside:
            problems.append(f"CMakeLists.txt:{line}: {args[0]} is in no layer of "
                            "tests/layers/layers.txt")
    return problems


def resolve(rel, header, files, by_name):
    candidates = [os.path.normpath(os.path.join(os.path.dirname(rel), header)),
                  os.path.normpath(os.path.join(rel.split('/')[0], header))]
    if header.startswith('account/'):
        candidates.append(os.path.join('api/include', header))
    for c in candidates:
        if c in files:
            return c
    same_name = by_name.get(os.path.basename(header), [])
    return same_name[0] if len(same_name) == 1 else None


INCLUDE = re.compile(r'\s*#\s*include\s*([<"])([^">]+)[">]')


def include_arrows(root, rank, files):
    by_name = collections.defaultdict(list)
    for rel in files:
        by_name[os.path.basename(rel)].append(rel)
    problems = []
    for rel, folder in files.items():
        with open(os.path.join(root, rel), errors='replace') as text:
            for n, line in enumerate(text, 1):
                m = INCLUDE.match(line)
                if not m or (m.group(1) == '<' and not m.group(2).startswith('account/')):
                    continue
                target = resolve(rel, m.group(2), files, by_name)
                if target is None:
                    continue  # generated (profile.pb.h) or a system header
                other = files[target]
                if rank[other] > rank[folder] or (rank[other] == rank[folder] and other != folder):
                    problems.append(f"{rel}:{n}: {folder} includes {m.group(2)} of {other}, "
                                    f"{'a layer above it' if rank[other] > rank[folder] else 'beside it in the same layer'}")
    return problems


def cmake_commands(text, name):
    """(line, arguments) of every NAME(...) call, arguments split on blanks."""
    for m in re.finditer(r'\b' + name + r'\s*\(([^)]*)\)', text):
        line = text.count('\n', 0, m.start()) + 1
        args = re.sub(r'#[^\n]*', '', m.group(1)).split()
        yield line, args


def link_arrows(root, rank):
    lists = {}
    for f in rank:
        path = os.path.join(root, f, 'CMakeLists.txt')
        if os.path.exists(path):
            lists[f] = (os.path.relpath(path, root), open(path).read())
    owner = {}
    for f, (_, text) in lists.items():
        for kind in ('add_library', 'add_executable'):
            for _, args in cmake_commands(text, kind):
                if args:
                    owner[args[0]] = f
    problems = []
    for f, (path, text) in lists.items():
        for line, args in cmake_commands(text, 'target_link_libraries'):
            if not args or args[0] not in owner:
                continue
            here = owner[args[0]]
            for dep in args[1:]:
                other = owner.get(dep)
                if other and rank[other] > rank[here]:
                    problems.append(f"{path}:{line}: {args[0]} ({here}) links {dep} of {other}, "
                                    "a layer above it")
    return problems


def main(argv):
    if len(argv) < 2:
        print("usage: check_layers.py SOURCE_DIR [LAYERS_FILE]", file=sys.stderr)
        return 2
    root = argv[1]
    layers_file = argv[2] if len(argv) > 2 else os.path.join(root, 'tests/layers/layers.txt')
    rank, outside = read_layers(layers_file)
    files = source_files(root, rank)
    problems = unlisted_folders(root, rank, outside) + include_arrows(root, rank, files) + link_arrows(root, rank)
    for p in problems:
        print(p)
    counts = collections.Counter(files.values())
    print(f"{len(files)} files in {len(counts)} folders, {len(problems)} arrows up a layer",
          file=sys.stderr)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
