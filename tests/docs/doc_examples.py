#!/usr/bin/env python3
"""Runs every `$ account ...` example of README.md, docs/*.md and the manual
pages' EXAMPLES (packaging/man/*.h2m, from which the pages are generated)
against the records tests/docs/make_fixture.sh makes, and checks it ends as
shown: an example followed by `echo "exit $?"` must print the shown `exit N`
line, one followed by `[exit N]` must exit N, any other must exit 0. Examples that cannot run here are listed with the
reason in tests/docs/example_exceptions.txt; an entry that matches no example
fails the test, so the list cannot go stale.

usage: doc_examples.py ACCOUNT SOURCE_DIR BINARY_DIR"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

# A command word `account` at the start of a shell command, after any
# environment assignments (`LD_PRELOAD=$(gcc -print-file-name=libasan.so) account run`).
INVOKES_ACCOUNT = re.compile(
    r"(^|[;&|(]\s*|\bdo\s+|\bexec\s+)(\w+=(\$\([^)]*\)|\S+)\s+)*account\s")
SHOWN_STATUS = re.compile(r"^(?:\w+ )?exit(?: status)? (\d+)$")
# run.md's way to show the status of a command without an echo.
SHOWN_EXIT = re.compile(r"^\[exit (\d+)\]$")


def markdown_examples(path):
    """(line number, command, shown status line or None) of each `$ ` command
    in a fenced block that runs account."""
    lines = open(path, encoding="utf-8").read().split("\n")
    examples, fenced, i = [], False, 0
    while i < len(lines):
        line = lines[i].strip()
        if line.startswith("```"):
            fenced = not fenced
            i += 1
            continue
        if not (fenced and line.startswith("$ ")):
            i += 1
            continue
        start, command = i + 1, line[2:]
        while i + 1 < len(lines):
            if command.endswith("\\"):
                command = command[:-1] + " " + lines[i + 1].strip()
            elif command.count('"') % 2:  # a quoted argument spans lines
                command += "\n" + lines[i + 1]
            else:
                break
            i += 1
        i += 1
        shown = None
        while i < len(lines) and not lines[i].strip().startswith(("$ ", "```")):
            if SHOWN_STATUS.match(lines[i].strip()) and "$?" in command:
                shown = lines[i].strip()
            elif SHOWN_EXIT.match(lines[i].strip()):
                shown = int(SHOWN_EXIT.match(lines[i].strip()).group(1))
            i += 1
        if INVOKES_ACCOUNT.search(command):
            examples.append((start, command, shown))
    return examples


def man_examples(path):
    examples, inside = [], False
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        line = line.rstrip("\n")
        if line.startswith("["):
            inside = line == "[EXAMPLES]"
        elif inside and line.startswith("account "):
            examples.append((n, line.replace("\\-", "-"), None))
    return examples


def load_exceptions(path):
    """(document, substring of the command, reason) per non-comment line:
    DOC<tab>COMMAND SUBSTRING<tab>REASON."""
    entries = []
    for line in open(path, encoding="utf-8"):
        if line.strip() and not line.startswith("#"):
            doc, needle, reason = line.rstrip("\n").split("\t")
            entries.append((doc, needle, reason))
    return entries


def main():
    account, source, binary = (os.path.abspath(a) for a in sys.argv[1:4])
    here = os.path.join(source, "tests", "docs")
    docs = ["README.md"] + sorted(
        "docs/" + f for f in os.listdir(os.path.join(source, "docs")) if f.endswith(".md"))
    mans = sorted("packaging/man/" + f
                  for f in os.listdir(os.path.join(source, "packaging", "man")) if f.endswith(".h2m"))
    exceptions = load_exceptions(os.path.join(here, "example_exceptions.txt"))
    used = set()
    failures, ran = [], 0
    env = dict(os.environ, PATH=os.path.dirname(account) + os.pathsep + os.environ["PATH"],
               LC_ALL="C.UTF-8")
    with tempfile.TemporaryDirectory(prefix="doc-examples-") as tmp:
        fixture = os.path.join(tmp, "fixture")
        os.mkdir(fixture)
        subprocess.run([os.path.join(here, "make_fixture.sh"), account, fixture, source, binary],
                       check=True, env=env)
        # The README clones "the project checkout" from beside it: ../main.
        os.symlink(os.path.join(fixture, "src"), os.path.join(tmp, "main"))
        for doc in docs + mans:
            path = os.path.join(source, doc)
            examples = man_examples(path) if doc.endswith(".h2m") else markdown_examples(path)
            if not examples:
                continue
            # Each document runs in order in its own copy: an example may read
            # what the one before it wrote.
            work = os.path.join(tmp, doc.replace("/", "_"))
            shutil.copytree(fixture, work, symlinks=True)
            for line, command, shown in examples:
                skip = [e for e in exceptions if e[0] == doc and e[1] in command]
                if skip:
                    used.update(skip)
                    continue
                ran += 1
                try:
                    done = subprocess.run(["bash", "-c", command], cwd=work, env=env,
                                          stdin=subprocess.DEVNULL, capture_output=True,
                                          text=True, timeout=20)
                except subprocess.TimeoutExpired:
                    failures.append(f"{doc}:{line}: `{command}` ran over 20 s")
                    continue
                out = done.stdout.split("\n")
                if isinstance(shown, int):
                    if done.returncode != shown:
                        failures.append(f"{doc}:{line}: `{command}` shows [exit {shown}], exited "
                                        f"{done.returncode}; stderr: {done.stderr.strip()[-300:]}")
                elif shown is not None:
                    if shown not in out:
                        failures.append(f"{doc}:{line}: `{command}` shows '{shown}', printed "
                                        f"{[l for l in out if SHOWN_STATUS.match(l)]}; "
                                        f"stderr: {done.stderr.strip()[-300:]}")
                elif done.returncode != 0:
                    failures.append(f"{doc}:{line}: `{command}` exited {done.returncode}; "
                                    f"stderr: {done.stderr.strip()[-300:]}")
    for e in exceptions:
        if e not in used:
            failures.append(f"example_exceptions.txt: '{e[1]}' in {e[0]} matches no example: "
                            "remove the entry")
    for f in failures:
        print(f)
    if failures:
        print(f"{len(failures)} of {ran} doc examples do not run as shown")
        return 1
    print(f"ok: {ran} doc examples ran as shown, {len(used)} excepted")
    return 0


if __name__ == "__main__":
    sys.exit(main())
