# Python allocation loop for perf-tests/overhead.sh: many small objects
# (lists, dicts, strings, bytes) created and dropped, plus a growing/shrinking
# working set. usage: py_alloc.py ROUNDS
import sys

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 200
keep = []
total = 0
for r in range(rounds):
    batch = []
    for i in range(2000):
        d = {"k": i, "s": "x" * (i % 200), "l": [i] * (i % 17)}
        batch.append(d)
        total += len(d["s"])
    keep.append(bytes(4096 * (r % 8 + 1)))
    if len(keep) > 64:
        del keep[:32]
    del batch
print("py_alloc total=%d" % total)
